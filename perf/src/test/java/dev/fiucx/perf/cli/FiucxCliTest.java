package dev.fiucx.perf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fiucx.conformance.report.ConformanceReport;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
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
    Run tcp = run("info", "--provider", "ucx", "--transport", "tcp", "--json");
    assertEquals(0, tcp.exit());
    JsonNode cells = new ObjectMapper().readTree(tcp.out());
    assertEquals(798, cells.size());
    Map<String, Integer> byMechanism = new TreeMap<>();
    for (JsonNode c : cells) {
      if (c.get("valid").asBoolean()) {
        byMechanism.merge(c.get("mechanism").asText(), 1, Integer::sum);
      }
    }
    // docs/semantics.md's 60 native cells, all proved right over tcp; every other cell of 8 bytes
    // or less
    // by the CAS loop; the 53 wider ones under a remote lock
    assertEquals(Map.of("CAS_LOOP", 241, "NATIVE", 60, "REMOTE_LOCK", 53), byMechanism);
    Run shm = run("info", "--provider", "ucx", "--transport", "shm", "--json");
    int demoted = 0;
    for (JsonNode c : new ObjectMapper().readTree(shm.out())) {
      if (c.get("family").asText().equals("fetch")
          && List.of("FI_BAND", "FI_BOR", "FI_BXOR").contains(c.get("op").asText())
          && List.of("FI_INT32", "FI_UINT32", "FI_INT64", "FI_UINT64")
              .contains(c.get("datatype").asText())) {
        demoted++;
        assertEquals(true, c.get("valid").asBoolean(), c.toString());
        assertEquals("CAS_LOOP", c.get("mechanism").asText(), c.toString());
        String op =
            Map.of("FI_BAND", "AND", "FI_BOR", "OR", "FI_BXOR", "XOR").get(c.get("op").asText());
        int bytes = c.get("size").asInt();
        assertTrue(
            c.get("reason").asText().contains("fetching " + op + " on " + bytes + " bytes left"),
            c.get("reason").asText());
      }
    }
    assertEquals(12, demoted);
    Run text = run("info", "--provider", "ucx", "--transport", "shm");
    assertTrue(text.out().contains("ucx.version  1.13.1"), text.out());
    assertTrue(text.out().contains("self-test    6 native ops gave wrong answers"), text.out());
    // the fetch block: BAND is cas on every integer type now, with nothing unsupported
    assertTrue(
        text.out().lines().anyMatch(l -> l.matches("\\s+BAND\\s+cas(\\s+cas){7}(\\s+-){6}")),
        text.out());
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
    // 354 valid cells (base 6 checks each, fetch and compare 5), 444 unsupported (base 5, others
    // 4), 5 flag checks for each of the three mechanisms and the error-entry check
    assertTrue(r.out().strip().endsWith("1915 passed, 0 failed, 1913 unsupported"), r.out());
    assertTrue(
        r.out()
            .contains(
                "  SUM           cas    cas    cas    cas    native native native native cas    cas"
                    + "    cas    lock   lock   lock"),
        r.out());
    JsonNode checks = new ObjectMapper().readTree(json.toFile());
    assertEquals(3828, checks.size());
    Set<String> keys = new HashSet<>();
    Map<String, JsonNode> byKey = new TreeMap<>();
    for (JsonNode c : checks) {
      String key =
          c.get("family").asText()
              + " "
              + c.get("op").asText()
              + " "
              + c.get("datatype").asText()
              + " "
              + c.get("call").asText();
      assertTrue(keys.add(key), "one entry per (family, op, datatype, call): " + key);
      assertTrue(!c.get("status").asText().equals("fail"), c.toString());
      byKey.put(key, c);
    }
    JsonNode fetchSum = byKey.get("fetch FI_SUM FI_UINT64 fi_fetch_atomic");
    assertEquals("NATIVE", fetchSum.get("mechanism").asText());
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
    assertTrue(r.out().contains("\n  ucx.version  1.13.1\n"), r.out());
    String page = Files.readString(html);
    assertTrue(page.startsWith("<!DOCTYPE html>"));
    assertTrue(page.contains("<p class=\"summary\">1915 passed, 0 failed, 1913 unsupported</p>"));
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
}
