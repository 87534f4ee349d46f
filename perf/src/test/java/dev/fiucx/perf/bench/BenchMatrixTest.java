package dev.fiucx.perf.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fiucx.AtomicAttr;
import dev.fiucx.AtomicFamily;
import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiException;
import dev.fiucx.FiOp;
import dev.fiucx.conformance.report.OpMatrix;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The matrix: every cell of a selection run in one process against one target, each with its target
 * check; the JSON, CSV and page read back cell by cell against the provider's own answers
 * (queryAtomic, asked here of a domain over the same transport). Correctness only, never time.
 */
@RequiresProvider("ucx")
class BenchMatrixTest {
  private static final long N = 50;
  private static final long WARMUP = 10;

  @TempDir Path dir;

  /** What a cell of the page shows: its class, its title's first line and its text. */
  private record PageCell(String css, String text) {}

  private static final Pattern TD =
      Pattern.compile("<td class=\"([^\"]*)\" title=\"([^\":&]*): [^\"]*\">(.*?)</td>");

  /** The page's cells by label ({@code fetch FI_SUM FI_UINT64}). */
  private static Map<String, PageCell> page(Path html) throws Exception {
    Map<String, PageCell> cells = new HashMap<>();
    Matcher m = TD.matcher(Files.readString(html));
    while (m.find()) {
      assertNull(cells.put(m.group(2), new PageCell(m.group(1), m.group(3))), m.group(2));
    }
    return cells;
  }

  /** The provider's answer for a cell over {@code transport}, or null when it refuses it. */
  private static Map<String, AtomicAttr> provider(String transport, List<JsonNode> cells) {
    Map<String, AtomicAttr> answers = new HashMap<>();
    try (Domain d =
        Fabric.openDomain(
            "ucx", new DomainAttr(transport, DomainAttr.Progress.MANUAL, false, Map.of()))) {
      for (JsonNode c : cells) {
        AtomicFamily f = AtomicFamily.ofLabel(c.get("family").asText());
        FiOp op = FiOp.ofName(c.get("op").asText().substring(3));
        FiDatatype dt = FiDatatype.ofName(c.get("datatype").asText().substring(3));
        try {
          answers.put(label(c), d.queryAtomic(dt, op, f.queryFlag()));
        } catch (FiException e) {
          answers.put(label(c), null);
        }
      }
    }
    return answers;
  }

  private static String label(JsonNode c) {
    return c.get("family").asText() + " " + c.get("op").asText() + " " + c.get("datatype").asText();
  }

  /**
   * Every cell of the JSON, CSV and page against the provider's answer: a valid one timed with
   * {@code threads} x N calls and its target checked exact, an invalid one listed and never timed.
   *
   * @return the valid cells' count
   */
  private static int checkCells(
      JsonNode root, List<String> csv, Map<String, PageCell> page, String transport, int threads) {
    List<JsonNode> cells = new ArrayList<>();
    root.get("cells").forEach(cells::add);
    Map<String, AtomicAttr> provider = provider(transport, cells);
    assertEquals(cells.size() + 1, csv.size(), "a header and a row per cell");
    assertEquals(cells.size(), page.size(), "a page cell per cell");
    int valid = 0;
    for (int i = 0; i < cells.size(); i++) {
      JsonNode c = cells.get(i);
      String label = label(c);
      AtomicAttr attr = provider.get(label);
      String[] row = csv.get(i + 1).split(",");
      assertEquals(label, row[0] + " " + row[1] + " " + row[2], "the CSV's order is the JSON's");
      PageCell cell = page.get(label);
      assertNotNull(cell, label + " on the page");
      if (attr == null) {
        assertFalse(c.get("valid").asBoolean(), label);
        assertEquals("invalid", c.get("status").asText(), label);
        assertTrue(c.get("mechanism").isNull(), label);
        assertNull(c.get("results"), label + " is never timed");
        assertTrue(c.get("reason").asText().contains("FI_EOPNOTSUPP"), c.toString());
        assertEquals("invalid", row[row.length - 1], label);
        assertEquals("", row[10], label + ": no calls in the CSV");
        assertEquals(new PageCell("invalid", "invalid"), cell, label);
        continue;
      }
      valid++;
      assertTrue(c.get("valid").asBoolean(), label);
      assertEquals(attr.mechanism().name(), c.get("mechanism").asText(), label);
      assertEquals(attr.mechanism().name(), row[8], label);
      assertEquals(OpMatrix.word(attr.mechanism()), cell.css(), label);
      assertTrue(cell.text().matches("[0-9]+\\.[0-9]{3} us<br>[0-9.]+ [kMG]?/s"), cell.text());
      JsonNode r = c.get("results");
      assertEquals(threads * N, r.get("ops").asLong(), label);
      assertEquals(threads * N, r.get("latency_ns").get("samples").asLong(), label);
      r.get("calls_per_thread_with_warmup").forEach(t -> assertEquals(N + WARMUP, t.asLong()));
      assertEquals(0, r.get("error").asInt(), label);
      assertEquals(Long.toString(threads * N), row[10], label);
      // every valid cell's target exact, as bench checks one cell
      JsonNode check = c.get("target_check");
      assertTrue(check.get("ok").asBoolean(), check.toString());
      assertTrue(check.get("checked").asBoolean(), label + ": " + check);
      assertEquals("ok", c.get("status").asText(), label);
      assertEquals("ok", row[row.length - 1], label);
      assertEquals(
          "every element holds what " + threads * (N + WARMUP) + " calls (warm-up included) leave",
          check.get("detail").asText(),
          label);
    }
    JsonNode summary = root.get("summary");
    assertEquals(cells.size(), summary.get("cells").asInt());
    assertEquals(valid, summary.get("valid").asInt());
    assertEquals(valid, summary.get("timed").asInt());
    assertEquals(cells.size() - valid, summary.get("invalid").asInt());
    assertEquals(0, summary.get("wrong").asInt() + summary.get("failed").asInt());
    assertEquals(valid, summary.get("ok").asInt(), "every valid cell checked exact");
    assertEquals(0, summary.get("unchecked").asInt());
    return valid;
  }

  private static BenchCli.Run bench(String... args) {
    return bench(args, new String[0]);
  }

  private static BenchCli.Run bench(String[] words, String... more) {
    List<String> all = new ArrayList<>(List.of("bench"));
    all.addAll(List.of(words));
    all.addAll(List.of(more));
    return BenchCli.run(all.toArray(String[]::new));
  }

  /**
   * Every cell of the table over shared memory, two threads pinned to CPU 0: 354 valid, the other
   * 444 listed; each measuring thread of each cell read back CPU 0 as all it may run on.
   */
  @Test
  void everyCellOverShm() throws Exception {
    Path json = dir.resolve("all.json");
    Path html = dir.resolve("all.html");
    BenchCli.Run r =
        bench(
            ("-o all -z all --family all -n " + N + " -w " + WARMUP + " -T 2 -c 0 --csv")
                .split(" "),
            "--json",
            json.toString(),
            "--html",
            html.toString());
    assertEquals(0, r.exit(), r.err());
    JsonNode root = new ObjectMapper().readTree(json.toFile());
    assertEquals(3 * 19 * 14, root.get("cells").size());
    // the table's order: family, op, datatype
    int i = 0;
    for (AtomicFamily f : AtomicFamily.values()) {
      for (FiOp op : FiOp.values()) {
        for (FiDatatype dt : FiDatatype.values()) {
          assertEquals(
              f.label() + " " + op.fiName() + " " + dt.fiName(), label(root.get("cells").get(i++)));
        }
      }
    }
    List<String> csv = r.out().lines().toList();
    assertEquals(String.join(",", CsvLine.COLUMNS), csv.getFirst());
    assertEquals(354, checkCells(root, csv, page(html), "shm", 2));
    assertEquals(444, root.get("summary").get("invalid").asInt());
    // pinned: asked, and read back by each measuring thread of each cell
    JsonNode pin = root.get("pinning");
    assertEquals("0", pin.get("cpu_list").asText());
    assertEquals("[0]", pin.get("cpus").toString());
    assertEquals("0", root.get("inputs").get("cpus").asText());
    for (JsonNode c : root.get("cells")) {
      if (c.has("results")) {
        JsonNode allowed = c.get("results").get("cpus_allowed_per_thread");
        assertEquals("[\"0\",\"0\"]", allowed.toString(), label(c));
      }
    }
    assertTrue(
        r.err().contains("  pinning    each measuring thread on CPUs 0 (sched_setaffinity;"),
        r.err());
    assertNull(root.get("inputs").get("op"), "a matrix's cells are in selection and cells");
    assertEquals(3, root.get("selection").get("families").size());
    // the table (on stderr: stdout carries the CSV)
    assertTrue(
        r.err()
            .contains(
                "fiucx bench: 798 cells (19 ops x 14 datatypes, base,fetch,compare):"
                    + " 354 valid, 444 invalid;"),
        r.err());
    assertTrue(
        r.err()
            .contains(
                "cells: 798 selected, 354 timed (target check: 354 exact, 0 with no exactly known"
                    + " value, 0 wrong, 0 failed), 444 invalid"),
        r.err());
    assertTrue(r.err().contains("  base    FI_CSWAP        every datatype asked"), r.err());
    assertTrue(
        r.err()
            .lines()
            .anyMatch(
                l -> l.matches("\\| fetch   \\| FI_SUM +\\| FI_UINT64 +\\| native .*\\| ok +\\|")),
        r.err());
  }

  /**
   * A list over tcp (every mechanism, valid and invalid cells) with three percentiles: the table,
   * JSON and CSV show the percentiles asked.
   */
  @Test
  void aListOverTcpWithPercentiles() throws Exception {
    Path json = dir.resolve("tcp.json");
    Path html = dir.resolve("tcp.html");
    BenchCli.Run r =
        bench(
            ("--transport tcp -o sum,min,cswap,bor,read -z int8,int64,double,long_double_complex"
                    + " --family all -n "
                    + N
                    + " -w "
                    + WARMUP
                    + " -R 50,99,99.99 --csv")
                .split(" "),
            "--json",
            json.toString(),
            "--html",
            html.toString());
    assertEquals(0, r.exit(), r.err());
    JsonNode root = new ObjectMapper().readTree(json.toFile());
    assertEquals(3 * 5 * 4, root.get("cells").size());
    List<String> csv = r.out().lines().toList();
    assertEquals(
        String.join(",", CsvLine.columns(Percentiles.parse("50,99,99.99"))), csv.getFirst());
    int valid = checkCells(root, csv, page(html), "tcp", 1);
    assertTrue(valid > 0 && valid < 60, "valid and invalid cells: " + valid);
    assertEquals("tcp", root.get("ucx").get("tls").asText());
    assertEquals("ucp", root.get("path").asText());
    assertTrue(root.get("pinning").isNull());
    List<String> mechanisms = new ArrayList<>();
    for (JsonNode c : root.get("cells")) {
      if (c.has("results")) {
        mechanisms.add(c.get("mechanism").asText());
        assertNull(c.get("results").get("cpus_allowed_per_thread"), "not pinned");
        List<String> keys = new ArrayList<>();
        c.get("results").get("latency_ns").fieldNames().forEachRemaining(keys::add);
        assertEquals(List.of("kind", "samples", "p50", "p99", "p99_99", "max", "mean"), keys);
      }
    }
    assertTrue(
        mechanisms.containsAll(List.of("NATIVE", "CAS_LOOP", "REMOTE_LOCK")),
        mechanisms.toString());
    assertFalse(r.err().contains("  pinning "), r.err());
    assertTrue(r.err().contains("|      p50 us      p99 us   p99.99 us |"), r.err());
  }

  /** One cell pinned: its header, the JSON's pinning and the thread's own reading of it. */
  @Test
  void oneCellPinnedToCpuZero() throws Exception {
    Path json = dir.resolve("one.json");
    BenchCli.Run r = bench("-n", "200", "-w", "20", "-c", "0", "--json", json.toString());
    assertEquals(0, r.exit(), r.err());
    JsonNode root = new ObjectMapper().readTree(json.toFile());
    assertEquals("0", root.get("pinning").get("cpu_list").asText());
    assertEquals("[\"0\"]", root.get("results").get("cpus_allowed_per_thread").toString());
    assertTrue(root.get("target_check").get("ok").asBoolean());
    assertTrue(r.out().contains("  pinning    each measuring thread on CPUs 0"), r.out());
    assertTrue(r.out().contains("| Final:  |"), r.out());
  }
}
