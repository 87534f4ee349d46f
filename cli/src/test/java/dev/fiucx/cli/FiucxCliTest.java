package dev.fiucx.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fiucx.AtomicAttr;
import dev.fiucx.AtomicFamily;
import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.FiOp;
import dev.fiucx.Mechanism;
import dev.fiucx.conformance.report.ConformanceReport;
import dev.fiucx.conformance.report.OpMatrix;
import dev.fiucx.conformance.suite.RequiresProvider;
import dev.fiucx.semantics.AtomicCell;
import dev.fiucx.semantics.AtomicTable;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@RequiresProvider("ucx")
class FiucxCliTest {
  @TempDir Path dir;

  private record Run(int exit, String out) {}

  private static Run run(String... args) {
    PrintStream saved = System.out;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
      int exit = FiucxCli.commandLine().execute(args);
      return new Run(exit, bytes.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(saved);
    }
  }

  @Test
  void infoJsonListsEveryCellAnd354Valid() throws Exception {
    Run r = run("info", "--json");
    assertEquals(0, r.exit());
    JsonNode cells = new ObjectMapper().readTree(r.out());
    assertEquals(798, cells.size());
    Set<String> valid = new HashSet<>();
    for (JsonNode c : cells) {
      if (c.get("valid").asBoolean()) {
        valid.add(
            c.get("family").asText()
                + " "
                + c.get("op").asText()
                + " "
                + c.get("datatype").asText());
      }
    }
    assertEquals(354, valid.size());
    JsonNode first = cells.get(0);
    assertEquals("base", first.get("family").asText());
    assertEquals("FI_MIN", first.get("op").asText());
    assertEquals("FI_INT8", first.get("datatype").asText());
    assertEquals(4096, first.get("count").asLong());
    assertEquals(1, first.get("size").asInt());
    assertEquals("CAS_LOOP", first.get("mechanism").asText());
    assertTrue(valid.contains("fetch FI_ATOMIC_READ FI_LONG_DOUBLE_COMPLEX"));
    assertTrue(!valid.contains("base FI_ATOMIC_READ FI_INT32"));
  }

  @Test
  void infoTextHasOneBlockPerFamily() {
    Run r = run("info");
    assertEquals(0, r.exit());
    assertTrue(r.out().contains("base atomics (130 valid)"), r.out());
    assertTrue(r.out().contains("fetch atomics (144 valid)"), r.out());
    assertTrue(r.out().contains("compare atomics (80 valid)"), r.out());
    assertTrue(
        r.out().lines().anyMatch(l -> l.matches("\\s+MSWAP\\s+cas(\\s+cas){7}(\\s+-){6}")),
        r.out());
  }

  @Test
  void replayExitsOneOnAFailureAndZeroOtherwise() throws Exception {
    Path good = dir.resolve("good.jsonl");
    Files.writeString(
        good,
        "{\"record\":\"case\",\"id\":\"ok\",\"family\":\"fetch\",\"op\":\"FI_SUM\",\"datatype\":\"FI_UINT32\",\"count\":1,"
            + "\"initial_target\":\"ffffffff\",\"operand\":\"02000000\",\"compare\":null,"
            + "\"final_target\":\"01000000\",\"result\":\"ffffffff\",\"nan\":false}\n");
    Path bad = dir.resolve("bad.jsonl");
    Files.writeString(
        bad,
        Files.readString(good)
            .replace("\"final_target\":\"01000000\"", "\"final_target\":\"00000000\""));
    Run ok = run("replay", "--engine", "reference", good.toString());
    assertEquals(0, ok.exit(), ok.out());
    assertTrue(ok.out().endsWith("1 passed, 0 failed\n"), ok.out());
    Run failed = run("replay", "--engine", "reference", good.toString(), bad.toString());
    assertEquals(1, failed.exit(), failed.out());
    assertTrue(
        failed.out().contains("FAIL ok: final_target expected 00000000 got 01000000"),
        failed.out());
    assertTrue(failed.out().endsWith("1 passed, 1 failed\n"), failed.out());
  }

  @Test
  void infoForTheUcxProviderTellsWhatUcxCarriesOutAndWhy() throws Exception {
    for (String transport : List.of("tcp", "shm")) {
      Provider provider = Provider.ask(transport);
      provider.assertIsTheReferenceButDemotions();
      Run json = run("info", "--provider", "ucx", "--transport", transport, "--json");
      assertEquals(0, json.exit());
      JsonNode cells = new ObjectMapper().readTree(json.out());
      assertEquals(798, cells.size());
      Map<String, Integer> byMechanism = new TreeMap<>();
      Map<String, String> demoted = new TreeMap<>();
      for (JsonNode c : cells) {
        String key = key(c);
        AtomicAttr asked = provider.cells().get(key);
        assertEquals(asked != null, c.get("valid").asBoolean(), key);
        if (asked == null) {
          continue;
        }
        assertEquals(asked.mechanism().name(), c.get("mechanism").asText(), key);
        assertEquals(asked.count(), c.get("count").asLong(), key);
        byMechanism.merge(c.get("mechanism").asText(), 1, Integer::sum);
        String reason = c.get("reason").asText();
        if (reason.endsWith(SELF_TEST)) {
          demoted.put(key, demotion(reason));
        }
      }
      assertEquals(provider.byMechanism(), byMechanism, transport);
      assertEquals(provider.demoted(), demoted, transport);

      Run text = run("info", "--provider", "ucx", "--transport", transport);
      assertEquals(0, text.exit());
      assertTrue(text.out().contains("\n  ucx.version  " + provider.version() + "\n"), text.out());
      assertTrue(
          text.out().contains("\n  self-test    " + provider.selfTestFact() + "\n"), text.out());
      // the fetch block's BAND row: cas where the self-test demoted the native op
      assertEquals(
          provider.row(AtomicFamily.FETCH, FiOp.BAND),
          matrixRow(text.out(), "fetch atomics", FiOp.BAND),
          text.out());
    }
  }

  @Test
  void replayThroughUcxRunsNativeCasAndLockCases() throws Exception {
    Path f = dir.resolve("ucx.jsonl");
    Files.writeString(
        f,
        """
        {"record":"case","id":"fetch-sum","family":"fetch","op":"FI_SUM","datatype":"FI_UINT64","count":2,"initial_target":"01000000000000000200000000000000","operand":"0500000000000000ffffffffffffffff","compare":null,"final_target":"06000000000000000100000000000000","result":"01000000000000000200000000000000","nan":false}
        {"record":"case","id":"cswap-float","family":"compare","op":"FI_CSWAP","datatype":"FI_FLOAT","count":1,"initial_target":"00000080","operand":"0000803f","compare":"00000000","final_target":"00000080","result":"00000080","nan":false}
        {"record":"case","id":"min","family":"base","op":"FI_MIN","datatype":"FI_INT8","count":1,"initial_target":"05","operand":"fe","compare":null,"final_target":"fe","result":null,"nan":false}
        {"record":"case","id":"ld","family":"fetch","op":"FI_ATOMIC_READ","datatype":"FI_LONG_DOUBLE","count":1,"initial_target":"0000000000000080ff3f000000000000","operand":null,"compare":null,"final_target":"0000000000000080ff3f000000000000","result":"0000000000000080ff3f000000000000","nan":false}
        """);
    Run r = run("replay", "--engine", "ucx", "--transport", "shm", f.toString());
    assertEquals(0, r.exit(), r.out());
    assertTrue(r.out().strip().endsWith("4 passed, 0 failed"), r.out());
  }

  @Test
  void conformanceOverSharedMemoryChecksEveryCellAndWritesJsonAndHtml() throws Exception {
    Provider provider = Provider.ask("shm");
    Path json = dir.resolve("conformance.json");
    Path html = dir.resolve("conformance.html");
    Run r =
        run(
            "conformance",
            "--transport",
            "shm",
            "--json",
            json.toString(),
            "--html",
            html.toString());
    assertEquals(0, r.exit(), r.out());
    JsonNode checks = new ObjectMapper().readTree(json.toFile());
    Map<String, Integer> byStatus = new TreeMap<>(Map.of("pass", 0, "fail", 0, "unsupported", 0));
    Set<String> keys = new HashSet<>();
    Map<String, JsonNode> byKey = new TreeMap<>();
    Set<String> flagMechanisms = new TreeSet<>();
    for (JsonNode c : checks) {
      String cell = key(c);
      String key = cell + " " + c.get("call").asText();
      assertTrue(keys.add(key), "one entry per (family, op, datatype, call): " + key);
      assertTrue(!c.get("status").asText().equals("fail"), c.toString());
      byStatus.merge(c.get("status").asText(), 1, Integer::sum);
      byKey.put(key, c);
      String call = c.get("call").asText();
      if (call.startsWith("fi_") || call.equals("query") || call.equals("count_limit")) {
        AtomicAttr asked = provider.cells().get(cell);
        assertEquals(
            asked == null ? null : asked.mechanism().name(),
            c.get("mechanism").isNull() ? null : c.get("mechanism").asText(),
            key);
      } else if (!call.equals("error_entry")) {
        flagMechanisms.add(c.get("mechanism").asText());
      }
    }
    String summary =
        byStatus.get("pass")
            + " passed, "
            + byStatus.get("fail")
            + " failed, "
            + byStatus.get("unsupported")
            + " unsupported";
    assertEquals(summary, r.out().strip().lines().reduce((a, b) -> b).orElseThrow(), r.out());
    // the same totals from the provider's answers, by the suite's rule
    Totals expected = provider.suiteTotalsOverShm();
    assertEquals(expected.flagMechanisms(), flagMechanisms);
    assertEquals(expected.passed(), byStatus.get("pass"), r.out());
    assertEquals(expected.unsupported(), byStatus.get("unsupported"), r.out());
    assertEquals(expected.passed() + expected.unsupported(), checks.size());
    assertEquals(
        provider.row(AtomicFamily.BASE, FiOp.SUM),
        matrixRow(r.out(), "base atomics", FiOp.SUM),
        r.out());
    JsonNode fetchSum = byKey.get("fetch FI_SUM FI_UINT64 fi_fetch_atomic");
    assertEquals(
        provider.cells().get("fetch FI_SUM FI_UINT64").mechanism().name(),
        fetchSum.get("mechanism").asText());
    assertEquals("pass", fetchSum.get("status").asText());
    assertEquals("", fetchSum.get("detail").asText());
    JsonNode mswap = byKey.get("base FI_MSWAP FI_INT8 fi_atomic");
    assertEquals("unsupported", mswap.get("status").asText());
    assertTrue(mswap.get("mechanism").isNull());
    assertEquals(
        "pass",
        byKey
            .get("compare FI_CSWAP_GT FI_LONG_DOUBLE fi_compare_atomicmsg")
            .get("status")
            .asText());
    assertEquals("CAS_LOOP", byKey.get("base FI_SUM FI_INT8 FI_INJECT").get("mechanism").asText());
    assertEquals("pass", byKey.get("base FI_SUM FI_INT8 FI_INJECT").get("status").asText());
    assertTrue(r.out().contains("\n  ucx.version  " + provider.version() + "\n"), r.out());
    String page = Files.readString(html);
    assertTrue(page.startsWith("<!DOCTYPE html>"));
    assertTrue(page.contains("<p class=\"summary\">" + summary + "</p>"), summary);
    assertTrue(
        page.contains("<tr><th>fiucx</th><td>" + ConformanceReport.fiucxVersion() + "</td></tr>"),
        "the version");
    assertTrue(!page.contains("http://") && !page.contains("https://"), "self-contained");
  }

  @Test
  void versionIsTheProjects() {
    Run r = run("--version");
    assertEquals(0, r.exit());
    assertEquals("fiucx " + ConformanceReport.fiucxVersion() + "\n", r.out());
  }

  @Test
  void conformanceExitsTwoOnBadArgumentsOrAProviderThatCannotOpen() {
    assertEquals(2, run("conformance", "--provider", "nosuch").exit());
    assertEquals(2, run("conformance", "--no-such-option").exit());
    assertEquals(2, run("conformance", "--json").exit(), "--json without its FILE");
    assertEquals(2, run("conformance", "--transport", "nosuch").exit());
  }

  /** How the provider's self-test ends the reason of a cell it demoted (NativeAtomicsProof). */
  private static final String SELF_TEST = "(self-test at domain open)";

  /** The size of the conformance suite's buffers (Rig.BUFFER_BYTES). */
  private static final int SUITE_BUFFER_BYTES = 32 * 1024;

  /** The datatypes whose base SUM cell stands for its mechanism in the flag checks (FlagChecks). */
  private static final List<FiDatatype> FLAG_CANDIDATES =
      List.of(
          FiDatatype.UINT64,
          FiDatatype.INT32,
          FiDatatype.INT8,
          FiDatatype.UINT16,
          FiDatatype.DOUBLE,
          FiDatatype.FLOAT,
          FiDatatype.FLOAT_COMPLEX,
          FiDatatype.DOUBLE_COMPLEX,
          FiDatatype.LONG_DOUBLE,
          FiDatatype.LONG_DOUBLE_COMPLEX);

  /** What a conformance run should count, and the mechanisms its flag checks run on. */
  private record Totals(int passed, int unsupported, Set<String> flagMechanisms) {}

  /**
   * What the ucx provider says over one transport, asked as the commands ask it: its facts and the
   * query answer of every cell it supports, by {@link #key}.
   */
  private record Provider(Map<String, String> facts, Map<String, AtomicAttr> cells) {
    static Provider ask(String transport) {
      try (Domain d =
          Fabric.openDomain(
              "ucx", new DomainAttr(transport, DomainAttr.Progress.MANUAL, false, Map.of()))) {
        Map<String, AtomicAttr> cells = new TreeMap<>();
        for (AtomicFamily f : AtomicFamily.values()) {
          for (FiOp op : FiOp.values()) {
            for (FiDatatype dt : FiDatatype.values()) {
              try {
                cells.put(key(f, op, dt), d.queryAtomic(dt, op, f.queryFlag()));
              } catch (FiException e) {
                assertEquals(FiErrno.EOPNOTSUPP, e.errno(), key(f, op, dt));
              }
            }
          }
        }
        return new Provider(d.describe(), cells);
      }
    }

    String version() {
      return facts.get("ucx.version");
    }

    String selfTestFact() {
      return facts.get("self-test");
    }

    Map<String, Integer> byMechanism() {
      Map<String, Integer> out = new TreeMap<>();
      cells.values().forEach(a -> out.merge(a.mechanism().name(), 1, Integer::sum));
      return out;
    }

    /**
     * The cells whose native op the self-test demoted, each with that op ({@code fetching AND/4}).
     */
    Map<String, String> demoted() {
      Map<String, String> out = new TreeMap<>();
      cells.forEach(
          (k, a) -> {
            if (a.reason() != null && a.reason().endsWith(SELF_TEST)) {
              out.put(k, demotion(a.reason()));
            }
          });
      return out;
    }

    /**
     * Every cell is the reference table's (valid there, the same mechanism), but a demoted one: a
     * NATIVE cell there, CAS_LOOP here; and the self-test fact names exactly the demoted ops.
     */
    void assertIsTheReferenceButDemotions() {
      Map<String, String> demoted = demoted();
      for (AtomicCell ref : AtomicTable.reference().cells()) {
        String k = key(ref.family(), ref.op(), ref.datatype());
        AtomicAttr a = cells.get(k);
        assertEquals(ref.valid(), a != null, k);
        if (a == null) {
          continue;
        }
        if (demoted.containsKey(k)) {
          assertEquals(Mechanism.NATIVE, ref.mechanism(), k);
          assertEquals(Mechanism.CAS_LOOP, a.mechanism(), k);
        } else {
          assertEquals(ref.mechanism(), a.mechanism(), k);
        }
      }
      Set<String> ops = new TreeSet<>(demoted.values());
      if (ops.isEmpty()) {
        assertEquals("every native op proved right", selfTestFact());
      } else {
        String head = ops.size() + " native ops gave wrong answers and were demoted: ";
        assertTrue(selfTestFact().startsWith(head), selfTestFact());
        assertEquals(
            ops, new TreeSet<>(List.of(selfTestFact().substring(head.length()).split(", "))));
      }
    }

    /** A row of the op x datatype matrix as the commands print it, split into its words. */
    List<String> row(AtomicFamily family, FiOp op) {
      List<String> words = new ArrayList<>(List.of(op.name()));
      for (FiDatatype dt : FiDatatype.values()) {
        AtomicAttr a = cells.get(key(family, op, dt));
        words.add(a == null ? "-" : OpMatrix.word(a.mechanism()));
      }
      return words;
    }

    /**
     * The conformance suite's counts over shared memory from these answers, by its rule
     * (Conformance.run): a supported cell passes its query, each call form (base 4, the others 3)
     * and its count limit, which is unsupported when the provider's count is past the suite's
     * buffers; an unsupported cell's query and call forms are unsupported; five flag checks pass
     * for each mechanism of a base SUM cell among the candidates whose fetch SUM and ATOMIC_READ
     * are supported too; the error-entry check is unsupported on shared memory.
     */
    Totals suiteTotalsOverShm() {
      int passed = 0;
      int unsupported = 0;
      for (AtomicFamily f : AtomicFamily.values()) {
        int forms = f == AtomicFamily.BASE ? 4 : 3;
        for (FiOp op : FiOp.values()) {
          for (FiDatatype dt : FiDatatype.values()) {
            AtomicAttr a = cells.get(key(f, op, dt));
            if (a == null) {
              unsupported += 1 + forms;
            } else if (a.count() <= SUITE_BUFFER_BYTES / dt.size() - 1) {
              passed += 1 + forms + 1;
            } else {
              passed += 1 + forms;
              unsupported++;
            }
          }
        }
      }
      Set<String> flagged = new TreeSet<>();
      for (FiDatatype dt : FLAG_CANDIDATES) {
        AtomicAttr sum = cells.get(key(AtomicFamily.BASE, FiOp.SUM, dt));
        if (sum != null
            && cells.containsKey(key(AtomicFamily.FETCH, FiOp.SUM, dt))
            && cells.containsKey(key(AtomicFamily.FETCH, FiOp.ATOMIC_READ, dt))) {
          flagged.add(sum.mechanism().name());
        }
      }
      return new Totals(passed + 5 * flagged.size(), unsupported + 1, flagged);
    }
  }

  private static String key(AtomicFamily family, FiOp op, FiDatatype dt) {
    return family.label() + " " + op.fiName() + " " + dt.fiName();
  }

  /** The cell of a JSON entry of {@code info --json} or {@code conformance --json}. */
  private static String key(JsonNode c) {
    return c.get("family").asText() + " " + c.get("op").asText() + " " + c.get("datatype").asText();
  }

  /** {@code fetching AND/4} of a self-test reason {@code fetching AND on 4 bytes left ...}. */
  private static String demotion(String reason) {
    Matcher m = Pattern.compile("^(fetching )?([A-Z]+) on (\\d+) bytes ").matcher(reason);
    assertTrue(m.find(), reason);
    return (m.group(1) == null ? "" : m.group(1)) + m.group(2) + "/" + m.group(3);
  }

  /** The words of {@code op}'s row in the printed matrix block headed {@code heading}, or none. */
  private static List<String> matrixRow(String out, String heading, FiOp op) {
    List<String> lines = out.lines().toList();
    int i = 0;
    while (i < lines.size() && !lines.get(i).startsWith(heading)) {
      i++;
    }
    for (i++; i < lines.size() && !lines.get(i).isBlank(); i++) {
      List<String> words = List.of(lines.get(i).strip().split("\\s+"));
      if (words.get(0).equals(op.name())) {
        return words;
      }
    }
    return List.of();
  }
}
