package dev.fiucx.perf.bench;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import dev.fiucx.FiFlags;
import dev.fiucx.ServeAttr;
import dev.fiucx.Server;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench -P} with {@code --csv}, {@code --plot}, {@code --html} and {@code --hgrm}: a row per
 * initiator and one for all, read back against the serve's element; and the warm-up's limit, with
 * one initiator stopped (SIGSTOP) before it can say it warmed up.
 */
@RequiresProvider("ucx")
class BenchProcessesOutputsTest {
  @TempDir Path dir;

  private static final long N = 300;
  private static final long W = 50;
  private static final int T = 2;

  @Test
  void csvHasARowPerInitiatorAndOneForAllAndThePlotAndPageAreWritten() throws Exception {
    Path json = dir.resolve("run.json");
    Path png = dir.resolve("plots/run.png");
    Path html = dir.resolve("run.html");
    Path hgrm = dir.resolve("run.hgrm");
    try (Server server =
        Fabric.serve(
            new ServeAttr(
                "127.0.0.1",
                0,
                List.of(
                    new ServeAttr.Region(
                        "counter", 256, FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE)),
                new DomainAttr("shm", DomainAttr.Progress.AUTO, false, Map.of())))) {
      MemorySegment m = server.memory("counter");
      BenchCli.Run r =
          BenchCli.run(
              "bench",
              "-P",
              "3",
              "--same-element",
              "--connect",
              "127.0.0.1:" + server.port(),
              "--region",
              "counter",
              "-T",
              "" + T,
              "-n",
              "" + N,
              "-w",
              "" + W,
              "-R",
              "50,99",
              "--csv",
              "--json",
              json.toString(),
              "--plot",
              png.toString(),
              "--html",
              html.toString(),
              "--hgrm",
              hgrm.toString());
      assertEquals(0, r.exit(), r.out() + r.err());
      // every thread t of the three initiators on thread t's element: 3 x (N + W) calls on each
      assertEquals(3 * (N + W), m.get(JAVA_LONG, 0));
      assertEquals(3 * (N + W), m.get(JAVA_LONG, 64));

      // stdout is the CSV alone; the table went to stderr
      List<String> csv = r.out().lines().toList();
      List<String> columns = CsvLine.columns(Percentiles.parse("50,99"), true);
      assertEquals(String.join(",", columns), csv.getFirst());
      assertEquals(CsvLine.PROCESS_COLUMNS, columns.subList(columns.size() - 5, columns.size()));
      assertEquals(
          CsvLine.columns(Percentiles.parse("50,99")), columns.subList(0, columns.size() - 5));
      assertEquals(1 + 3 + 1, csv.size(), r.out());
      assertTrue(r.err().contains("latency (usec), round trip"), r.err());

      JsonNode procs = new ObjectMapper().readTree(json.toFile()).get("processes");
      long ops = 0;
      long calls = 0;
      for (int p = 0; p < 3; p++) {
        Map<String, String> row = row(columns, csv.get(1 + p));
        JsonNode i = procs.get("initiators").get(p);
        assertEquals("" + p, row.get("initiator"));
        assertEquals(i.get("pid").asText(), row.get("pid"));
        assertEquals("" + T, row.get("threads"));
        assertEquals("" + T * N, row.get("ops"));
        assertEquals("" + T * (N + W), row.get("calls_with_warmup"));
        assertEquals(CsvLine.num(i.get("ops_per_s").asDouble()), row.get("ops_per_s"));
        assertEquals("ok", row.get("target_check"));
        assertEquals("", row.get("jain_index"));
        assertEquals("fetch", row.get("family"));
        assertEquals("NATIVE", row.get("mechanism"));
        ops += Long.parseLong(row.get("ops"));
        calls += Long.parseLong(row.get("calls_with_warmup"));
      }
      Map<String, String> all = row(columns, csv.getLast());
      assertEquals("all", all.get("initiator"));
      assertEquals("", all.get("pid"));
      assertEquals("" + 3 * T, all.get("threads"));
      assertEquals("" + ops, all.get("ops"));
      assertEquals(3 * T * N, ops);
      assertEquals("" + calls, all.get("calls_with_warmup"));
      // what the target saw: every call of every initiator, warm-up included, on the T elements
      assertEquals(m.get(JAVA_LONG, 0) + m.get(JAVA_LONG, 64), calls);
      assertEquals("ok", all.get("target_check"));
      JsonNode fairness = procs.get("fairness");
      assertEquals(CsvLine.num(fairness.get("min_over_max").asDouble()), all.get("min_over_max"));
      assertEquals(
          String.format(Locale.ROOT, "%.4f", fairness.get("jain_index").asDouble()),
          all.get("jain_index"));

      byte[] head = Arrays.copyOf(Files.readAllBytes(png), 8);
      assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}, head);
      BufferedImage image = ImageIO.read(png.toFile());
      assertNotNull(image);
      assertEquals(900, image.getWidth());

      String page = Files.readString(html);
      assertTrue(page.contains("<tr><th>initiators</th><td>3 processes"), page);
      assertTrue(
          page.contains(
              "<tr><th>initiator 2</th><td>pid "
                  + procs.get("initiators").get(2).get("pid").asText()
                  + ": "
                  + T * N
                  + " calls in "),
          page);
      assertTrue(page.contains("<tr><th>fairness</th><td>min/max "), page);
      assertTrue(page.contains(T * N * 3 + " calls, " + T * N * 3 + " elements in "), page);

      String h = Files.readString(hgrm);
      assertTrue(h.matches("(?s).*Total count\\s+=\\s+" + 3 * T * N + "\\].*"), h);
    }
  }

  /** A CSV row by column (no field of these rows is quoted). */
  private static Map<String, String> row(List<String> columns, String line) {
    String[] f = line.split(",", -1);
    assertEquals(columns.size(), f.length, line);
    Map<String, String> m = new java.util.HashMap<>();
    for (int i = 0; i < f.length; i++) {
      m.put(columns.get(i), f[i]);
    }
    return m;
  }

  /**
   * An initiator that never says it warmed up (stopped with SIGSTOP as soon as it runs) ends the
   * run once the limit passes: one line naming it, exit status 1, no initiator left.
   */
  @Test
  void anInitiatorThatNeverWarmsUpEndsTheRunAtTheLimit() throws Exception {
    long limitSeconds = 15;
    Set<Long> seen = new HashSet<>();
    long stopped = -1;
    long began = System.nanoTime();
    CompletableFuture<BenchCli.Run> run =
        CompletableFuture.supplyAsync(
            () ->
                BenchCli.run(
                    "bench",
                    "-P",
                    "2",
                    "-n",
                    "100",
                    "-w",
                    "10",
                    "--warmup-limit",
                    limitSeconds + "s"));
    try {
      while (stopped < 0 && !run.isDone()) {
        Optional<ProcessHandle> second = initiator("64", seen);
        if (second.isPresent()) {
          stopped = second.get().pid();
          signal("-STOP", stopped);
        } else {
          Thread.sleep(5);
        }
      }
      assertTrue(stopped > 0, "initiator 1 never started");
      // a guard against a hang, far above the limit: not a measurement
      BenchCli.Run r = run.get(limitSeconds + 120, TimeUnit.SECONDS);
      long tookNanos = System.nanoTime() - began;
      assertEquals(1, r.exit(), r.out() + r.err());
      assertTrue(tookNanos >= TimeUnit.SECONDS.toNanos(limitSeconds), "ended before the limit");
      String last = r.err().strip().lines().toList().getLast();
      Matcher line =
          Pattern.compile(
                  "fiucx bench: initiators? (.+) did not say (it|they) had warmed up within "
                      + limitSeconds
                      + " s; every initiator was killed \\(--warmup-limit gives a slow warm-up"
                      + " longer\\)")
              .matcher(last);
      assertTrue(line.matches(), r.err());
      // initiator 0 may be named too when this machine is slow; initiator 1 always is
      assertTrue(
          Arrays.asList(line.group(1).split(", ")).contains("1 (pid " + stopped + ")"), last);
      // nothing it started runs on: each initiator seen is gone, none is left below this JVM
      initiator("", seen);
      assertEquals(2, seen.size(), seen.toString());
      for (long pid : seen) {
        assertTrue(ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true), "pid " + pid);
      }
      assertTrue(initiator("", new HashSet<>()).isEmpty());
    } finally {
      if (stopped > 0 && ProcessHandle.of(stopped).map(ProcessHandle::isAlive).orElse(false)) {
        signal("-KILL", stopped);
      }
    }
  }

  /**
   * A bench -P initiator below this JVM, each one's pid added to {@code seen}: the one whose
   * elements are at byte {@code at} (empty: any).
   */
  private static Optional<ProcessHandle> initiator(String at, Set<Long> seen) {
    return ProcessHandle.current()
        .descendants()
        .filter(
            h -> {
              List<String> args = Arrays.asList(h.info().arguments().orElse(new String[0]));
              int i = args.indexOf("--elements-at");
              if (!args.contains("--initiator-of-processes") || i < 0 || i + 1 >= args.size()) {
                return false;
              }
              seen.add(h.pid());
              return at.isEmpty() || args.get(i + 1).equals(at);
            })
        .reduce((a, b) -> a);
  }

  private static void signal(String signal, long pid) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", signal, Long.toString(pid)).inheritIO().start();
    assertEquals(0, kill.waitFor());
  }
}
