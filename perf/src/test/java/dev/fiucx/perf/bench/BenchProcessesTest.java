package dev.fiucx.perf.bench;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import dev.fiucx.FiFlags;
import dev.fiucx.ServeAttr;
import dev.fiucx.Server;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench -P 3}: three initiator processes against one serve (one in this JVM, so the test
 * reads the region itself, or the one bench runs), each initiator's figures read back, the target's
 * elements exactly what all calls leave.
 */
@RequiresProvider("ucx")
class BenchProcessesTest {
  @TempDir Path dir;

  private static final long N = 300;
  private static final long W = 50;

  private static Server serve(String transport) {
    return Fabric.serve(
        new ServeAttr(
            "127.0.0.1",
            0,
            List.of(
                new ServeAttr.Region("counter", 256, FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE)),
            new DomainAttr(transport, DomainAttr.Progress.AUTO, false, Map.of())));
  }

  /** Runs -P 3 against the serve, checks what every initiator did; the JSON. */
  private JsonNode againstServe(Server server, String transport, boolean same) throws Exception {
    Path json = dir.resolve(transport + same + ".json");
    List<String> args =
        new ArrayList<>(
            List.of(
                "bench",
                "-P",
                "3",
                "--connect",
                "127.0.0.1:" + server.port(),
                "--region",
                "counter",
                "--transport",
                transport,
                "-n",
                "" + N,
                "-w",
                "" + W,
                "--json",
                json.toString()));
    if (same) {
      args.add("--same-element");
    }
    BenchCli.Run r = BenchCli.run(args.toArray(String[]::new));
    assertEquals(0, r.exit(), r.out() + r.err());
    JsonNode root = new ObjectMapper().readTree(json.toFile());
    JsonNode procs = root.get("processes");
    assertEquals(3, procs.get("count").asInt());
    assertEquals(same, procs.get("same_element").asBoolean());
    double[] rates = new double[3];
    for (int p = 0; p < 3; p++) {
      JsonNode i = procs.get("initiators").get(p);
      assertEquals(N, i.get("ops").asLong(), i.toString());
      assertEquals(N + W, i.get("calls_per_thread_with_warmup").get(0).asLong());
      assertEquals(same ? 0 : 64 * p, i.get("elements_at").asLong());
      rates[p] = i.get("ops_per_s").asDouble();
    }
    Fairness f = Fairness.of(rates);
    assertEquals(f.jain(), procs.get("fairness").get("jain_index").asDouble());
    assertEquals(f.minOverMax(), procs.get("fairness").get("min_over_max").asDouble());
    assertEquals(3 * N, root.get("results").get("ops").asLong());
    assertTrue(root.get("target_check").get("ok").asBoolean(), root.toString());
    assertTrue(root.get("target_check").get("checked").asBoolean(), root.toString());
    assertTrue(
        r.out()
            .contains(
                "target check: every element holds what "
                    + 3 * (N + W)
                    + " calls of all initiators (warm-up included) leave on what it held before"),
        r.out());
    return root;
  }

  @Test
  void threeInitiatorsOverShmEachOnTheirOwnAndOnTheSameElement() throws Exception {
    try (Server server = serve("shm")) {
      MemorySegment m = server.memory("counter");
      // the serve's elements start where a user left them: the check counts from there
      for (int p = 0; p < 3; p++) {
        m.set(JAVA_LONG, 64L * p, 1000);
      }
      againstServe(server, "shm", false);
      for (int p = 0; p < 3; p++) {
        assertEquals(1000 + N + W, m.get(JAVA_LONG, 64L * p), "initiator " + p + "'s element");
      }
      againstServe(server, "shm", true);
      assertEquals(1000 + N + W + 3 * (N + W), m.get(JAVA_LONG, 0));
      assertEquals(1000 + N + W, m.get(JAVA_LONG, 64));
    }
  }

  @Test
  void threeInitiatorsOverTcpEachOnTheirOwnAndOnTheSameElement() throws Exception {
    try (Server server = serve("tcp")) {
      MemorySegment m = server.memory("counter");
      againstServe(server, "tcp", true);
      assertEquals(3 * (N + W), m.get(JAVA_LONG, 0));
      againstServe(server, "tcp", false);
      assertEquals(3 * (N + W) + N + W, m.get(JAVA_LONG, 0));
      assertEquals(N + W, m.get(JAVA_LONG, 64));
      assertEquals(N + W, m.get(JAVA_LONG, 128));
    }
  }

  /** Without --connect bench runs the serve itself; a remote-lock cell shows its lock counts. */
  @Test
  void theServeBenchRunsItselfAndARemoteLockCell() throws Exception {
    Path json = dir.resolve("own.json");
    BenchCli.Run r =
        BenchCli.run(
            "bench",
            "-P",
            "3",
            "-o",
            "sum",
            "-z",
            "double_complex",
            "--same-element",
            "-n",
            "100",
            "-w",
            "10",
            "--json",
            json.toString());
    assertEquals(0, r.exit(), r.out() + r.err());
    assertTrue(r.out().contains("(a serve bench runs in its own process: region bench)"), r.out());
    assertTrue(r.out().contains("\nremote lock: 330 elements, "), r.out());
    assertTrue(
        r.out().contains("target check: every element holds what 330 calls of all initiators"),
        r.out());
    JsonNode root = new ObjectMapper().readTree(json.toFile());
    assertEquals("REMOTE_LOCK", root.get("cell").get("mechanism").asText());
    JsonNode em = root.get("processes").get("emulation");
    assertEquals(330, em.get("lock_elements").asLong());
    long waits = 0;
    for (JsonNode i : root.get("processes").get("initiators")) {
      waits += i.get("emulation").get("lock_waits").asLong();
      assertEquals(110, i.get("emulation").get("lock_elements").asLong());
    }
    assertEquals(waits, em.get("lock_waits").asLong());
    assertTrue(root.get("inputs").get("target_started_by_bench").asBoolean());
  }

  /**
   * An initiator whose stdin ends (its parent died) ends itself, with status 1 (not killed: 137);
   * one that fails says why in the lines the parent shows.
   */
  @Test
  void anInitiatorEndsWithItsParentAndAFailedOneSaysWhy() throws Exception {
    try (Server server = serve("shm")) {
      String target = "127.0.0.1:" + server.port();
      List<String> child =
          List.of(
              "-n",
              "10",
              "-w",
              "10",
              "--json",
              dir.resolve("c.json").toString(),
              "--parent-watch",
              "--initiator-of-processes",
              "--elements-at",
              "64",
              "--connect",
              target,
              "--region");
      List<String> args = new ArrayList<>(child);
      args.add("counter");
      InitiatorProcess waiting = new InitiatorProcess(0, args, null);
      assertEquals(InitiatorProcess.WarmUp.DONE, waiting.awaitWarmedUp(inTwoMinutes()));
      waiting.close();
      assertEquals(1, waiting.waitFor());
      args = new ArrayList<>(child);
      args.add("nope");
      try (InitiatorProcess failing = new InitiatorProcess(1, args, null)) {
        assertEquals(InitiatorProcess.WarmUp.EXITED, failing.awaitWarmedUp(inTwoMinutes()));
        assertEquals(1, failing.waitFor());
        assertTrue(
            failing
                .lastLines()
                .contains(
                    "initiator 1: fiucx bench: FI_ENOENT: no such entry: "
                        + target
                        + " serves no region 'nope'; it serves:"
                        + " counter"),
            failing.lastLines().toString());
      }
      // the waiting one made its 10 warm-up calls and was never told to measure
      assertEquals(10, server.memory("counter").get(JAVA_LONG, 64));
    }
  }

  /** A deadline for a warm-up that a test does not hold back: far enough never to be reached. */
  private static long inTwoMinutes() {
    return System.nanoTime() + 120_000_000_000L;
  }

  @Test
  void fairnessIsMinOverMaxAndJainsIndex() {
    assertEquals(new Fairness(1.0, 1.0), Fairness.of(new double[] {5, 5, 5}));
    // (2 + 4)^2 / (2 * (4 + 16)) = 36 / 40
    assertEquals(new Fairness(0.5, 0.9), Fairness.of(new double[] {2, 4}));
    // one initiator had it all: 1/n
    assertEquals(new Fairness(0.0, 0.25), Fairness.of(new double[] {0, 8, 0, 0}));
    // (1 + 2 + 3)^2 / (3 * 14) = 36 / 42
    assertEquals(new Fairness(1.0 / 3, 36.0 / 42), Fairness.of(new double[] {1, 2, 3}));
    assertEquals(new Fairness(0.0, 1.0), Fairness.of(new double[] {0, 0}));
    assertEquals(new Fairness(1.0, 1.0), Fairness.of(new double[] {7}));
  }

  @Test
  void whatCallsLeaveFromAnyStart() {
    assertEquals(
        hex(Operands.of(dev.fiucx.FiDatatype.UINT64, 12)),
        hex(after("SUM", "UINT64", Operands.of(dev.fiucx.FiDatatype.UINT64, 5), 7)));
    // uint8 wraps: 250 + 10 = 4
    assertEquals(
        hex(Operands.of(dev.fiucx.FiDatatype.UINT8, 4)),
        hex(after("SUM", "UINT8", Operands.of(dev.fiucx.FiDatatype.UINT8, 250), 10)));
    assertEquals(
        hex(Operands.of(dev.fiucx.FiDatatype.DOUBLE, 10)),
        hex(after("SUM", "DOUBLE", Operands.of(dev.fiucx.FiDatatype.DOUBLE, 7), 3)));
    assertEquals(
        hex(Operands.of(dev.fiucx.FiDatatype.INT64, 1)),
        hex(after("MIN", "INT64", Operands.of(dev.fiucx.FiDatatype.INT64, 5), 2)));
    assertEquals(
        hex(Operands.of(dev.fiucx.FiDatatype.INT64, 5)),
        hex(after("MAX", "INT64", Operands.of(dev.fiucx.FiDatatype.INT64, 5), 2)));
    // BXOR with one: 6 ^ 1 = 7 after an odd count, 6 after an even one
    assertEquals(
        hex(Operands.of(dev.fiucx.FiDatatype.UINT32, 7)),
        hex(after("BXOR", "UINT32", Operands.of(dev.fiucx.FiDatatype.UINT32, 6), 5)));
    assertEquals(
        hex(Operands.of(dev.fiucx.FiDatatype.UINT32, 6)),
        hex(after("BXOR", "UINT32", Operands.of(dev.fiucx.FiDatatype.UINT32, 6), 4)));
    // CSWAP compares with zero: a non-zero element stays
    assertEquals(
        hex(Operands.of(dev.fiucx.FiDatatype.INT32, 9)),
        hex(after("CSWAP", "INT32", Operands.of(dev.fiucx.FiDatatype.INT32, 9), 3)));
    // PROD with one keeps the element; LXOR with one gives !x, so 5 is 0 after an odd count and 1
    // (true) after an even one, never 5 again
    assertEquals(
        hex(Operands.of(dev.fiucx.FiDatatype.INT64, 2)),
        hex(after("PROD", "INT64", Operands.of(dev.fiucx.FiDatatype.INT64, 2), 3)));
    assertEquals(
        hex(Operands.of(dev.fiucx.FiDatatype.INT16, 0)),
        hex(after("LXOR", "INT16", Operands.of(dev.fiucx.FiDatatype.INT16, 5), 3)));
    assertEquals(
        hex(Operands.of(dev.fiucx.FiDatatype.INT16, 1)),
        hex(after("LXOR", "INT16", Operands.of(dev.fiucx.FiDatatype.INT16, 5), 4)));
    // a float sum from another value than zero past the additions it may take: not checkable
    assertEquals(
        null,
        after(
            "SUM", "FLOAT", Operands.of(dev.fiucx.FiDatatype.FLOAT, 3), TargetCheck.MAX_STEPS + 1));
  }

  private static byte[] after(String op, String dt, byte[] start, long calls) {
    return TargetCheck.after(
        dev.fiucx.FiOp.valueOf(op), dev.fiucx.FiDatatype.valueOf(dt), start, calls);
  }

  private static String hex(byte[] b) {
    return b == null ? null : java.util.HexFormat.of().formatHex(b);
  }

  /** What -P cannot do: one line each, exit status 2, before any process starts. */
  @Test
  void refusalsAreOneLine() {
    refused("fiucx bench: -P and --vs-ucx-perftest: one at a time", "--vs-ucx-perftest");
    refused("fiucx bench: -P and --sweep-window: one at a time", "--sweep-window", "-O", "4");
    refused("fiucx bench: -P and --server: one at a time", "--server");
    refused("fiucx bench: -P and --fetched: one at a time", "--fetched", "f.txt");
    refused("fiucx bench: -P and --metrics-port: one at a time", "--metrics-port", "0");
    refused(
        "fiucx bench: -P runs one cell; this selection has 2 (one -o, -z and --family)",
        "-o",
        "sum,min");
    refused(
        "fiucx bench: -P runs against a serve: --connect HOST:PORT needs --region NAME (a bench"
            + " --server serves one initiator)",
        "--connect",
        "127.0.0.1:1");
    refused(
        "fiucx bench: --server-progress is a bench target's; the serve -P runs against progresses"
            + " by itself",
        "--server-progress",
        "auto");
    BenchCli.Run r = BenchCli.run("bench", "-P", "0");
    assertEquals(2, r.exit());
    assertEquals("fiucx bench: -P is 1 .. 64: 0", r.err().strip());
    r = BenchCli.run("bench", "--same-element");
    assertEquals(2, r.exit());
    assertEquals("fiucx bench: --same-element goes with -P (--processes)", r.err().strip());
    r = BenchCli.run("bench", "--warmup-limit", "5s");
    assertEquals(2, r.exit());
    assertEquals("fiucx bench: --warmup-limit goes with -P (--processes)", r.err().strip());
    r = BenchCli.run("bench", "--help");
    assertTrue(r.out().contains("-P, --processes=N"), r.out());
  }

  private static void refused(String line, String... more) {
    List<String> args = new ArrayList<>(List.of("bench", "-P", "2"));
    args.addAll(List.of(more));
    BenchCli.Run r = BenchCli.run(args.toArray(String[]::new));
    assertEquals(2, r.exit(), r.err());
    assertEquals(line, r.err().strip());
  }
}
