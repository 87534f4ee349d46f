package dev.fiucx.perf.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.fiucx.conformance.remote.JavaCommand;
import dev.fiucx.conformance.remote.NetworkNamespaces;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench --vs-ucx-perftest} between two hosts (network namespaces joined by a veth pair, UCX
 * over tcp): a {@code bench --server --perftest-server} in one starts ucx_perftest's server for
 * each round, bench and ucx_perftest's client run in the other; a server without the option refuses
 * the round in one line. Correctness only, never time.
 */
@RequiresProvider("ucx")
class PerftestTwoHostsTest {
  private static final int ROUNDS = 3;

  private static final Pattern LISTENING = Pattern.compile("listening on (\\S+):(\\d+)");

  @TempDir Path dir;

  private final List<Process> started = new ArrayList<>();

  @BeforeEach
  void needsNamespacesAndPerftest() {
    assumeTrue(NetworkNamespaces.available(), "needs root and iproute2 to create namespaces");
    assumeTrue(PerftestRunner.find() != null, "needs ucx_perftest (Debian: ucx-utils)");
  }

  /**
   * {@code fiucx bench ARGS} in host {@code host} (bench's own main, as the target process bench
   * starts), its stdout and stderr in files named {@code name}.
   */
  private Process fiucxBench(NetworkNamespaces hosts, int host, String name, String... args)
      throws IOException {
    ProcessBuilder b =
        new ProcessBuilder(JavaCommand.of(hosts.prefix(host), BenchCommand.class, args))
            .redirectOutput(dir.resolve(name + ".out").toFile())
            .redirectError(dir.resolve(name + ".err").toFile());
    b.environment().put("UCX_LOG_FILE", "stderr");
    Process p = b.start();
    started.add(p);
    return p;
  }

  private String text(String file) throws IOException {
    return Files.readString(dir.resolve(file));
  }

  /** A bench --server in host 0 over tcp; its {@code HOST:PORT} once it listens. */
  private String server(NetworkNamespaces hosts, String name, String... more) throws Exception {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--server",
                "--bind",
                hosts.address(0),
                "--port",
                "0",
                "--insecure",
                "--transport",
                "tcp"));
    args.addAll(List.of(more));
    Process p = fiucxBench(hosts, 0, name, args.toArray(String[]::new));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      Matcher m = LISTENING.matcher(text(name + ".out"));
      if (m.find()) {
        assertEquals(hosts.address(0), m.group(1));
        return m.group(1) + ":" + m.group(2);
      }
      assertTrue(p.isAlive(), "the bench server ended: " + text(name + ".err"));
      Thread.sleep(100);
    }
    throw new AssertionError("the bench server did not listen: " + text(name + ".err"));
  }

  /** bench --connect TARGET --vs-ucx-perftest in host 1; its exit status. */
  private int bench(NetworkNamespaces hosts, String target, String name) throws Exception {
    Process p =
        fiucxBench(
            hosts,
            1,
            name,
            "--connect",
            target,
            "--transport",
            "tcp",
            "--vs-ucx-perftest",
            "--rounds",
            Integer.toString(ROUNDS),
            "-n",
            "300",
            "-w",
            "30");
    assertTrue(p.waitFor(300, TimeUnit.SECONDS), "bench did not finish: " + text(name + ".err"));
    return p.exitValue();
  }

  private void stopAll() throws InterruptedException {
    for (Process p : started) {
      if (p.isAlive()) {
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void roundsAlternateWithUcxPerftestsServerOnTheTargetsHost() throws Exception {
    try (NetworkNamespaces hosts = new NetworkNamespaces()) {
      String target = server(hosts, "server", "--perftest-server");
      int exit = bench(hosts, target, "bench");
      String out = text("bench.out");
      String err = text("bench.err");
      assertEquals(0, exit, out + err);
      // both sides ran each round: the client here, the server there
      for (int i = 1; i <= ROUNDS; i++) {
        assertTrue(
            err.contains(
                "round "
                    + i
                    + " of "
                    + ROUNDS
                    + ": ucx_perftest -t ucp_fadd, its server on "
                    + hosts.address(0)),
            err);
      }
      assertTrue(
          out.contains(
              "vs ucx_perftest -t ucp_fadd -s 8 -O 1 (UCX_TLS=tcp), "
                  + ROUNDS
                  + " rounds each, alternating; latency mode"),
          out);
      String figure = " +[0-9.]+";
      String rate = " +[0-9.]+( [kMG])?";
      for (int i = 1; i <= ROUNDS; i++) {
        String row = "  " + i + figure + figure + figure + "x" + rate + rate + figure + "x";
        assertTrue(out.lines().anyMatch(l -> l.matches(row)), "round " + i + ": " + out);
      }
      String median = "median [0-9.]+x \\(min [0-9.]+x, max [0-9.]+x\\)";
      assertTrue(
          out.lines().anyMatch(l -> l.matches("  latency fiucx/ucx_perftest: " + median)), out);
      assertTrue(
          out.lines().anyMatch(l -> l.matches("  rate    fiucx/ucx_perftest: " + median)), out);
      assertTrue(
          out.contains("target check: every element holds what 330 calls (warm-up included)"), out);
      // the server's side: one ucx_perftest server per round, each reaped after its round
      Process server = started.getFirst();
      assertTrue(server.waitFor(30, TimeUnit.SECONDS), "the bench server did not end after BYE");
      String serverLog = text("server.err");
      List<String> lines = serverLog.lines().toList();
      assertEquals(
          ROUNDS,
          lines.stream()
              .filter(
                  l ->
                      l.matches(
                          "fiucx bench server: ucx_perftest -p \\d+ listening \\(UCX_TLS=tcp\\)"))
              .count(),
          serverLog);
      assertEquals(
          ROUNDS,
          lines.stream()
              .filter(l -> l.matches("fiucx bench server: ucx_perftest -p \\d+ exited with 0"))
              .count(),
          serverLog);
      assertTrue(lines.contains("fiucx bench server: done"), serverLog);
      assertEquals(0, server.exitValue(), serverLog);
    } finally {
      stopAll();
    }
  }

  @Test
  void aServerWithoutTheOptionRefusesTheRoundInOneLine() throws Exception {
    try (NetworkNamespaces hosts = new NetworkNamespaces()) {
      String target = server(hosts, "plain");
      int exit = bench(hosts, target, "refused");
      String err = text("refused.err");
      assertEquals(2, exit, err);
      assertEquals(
          List.of(
              "fiucx bench: "
                  + target
                  + " refused: this bench --server runs no ucx_perftest (start it with"
                  + " --perftest-server to compare with ucx_perftest from another host)"),
          err.lines().filter(l -> l.startsWith("fiucx bench: ")).toList());
      assertTrue(
          text("plain.err").contains("fiucx bench server: refused a ucx_perftest round: "),
          text("plain.err"));
      Process server = started.getFirst();
      assertTrue(server.waitFor(30, TimeUnit.SECONDS), "the bench server did not end after BYE");
      assertEquals(0, server.exitValue(), text("plain.err"));
    } finally {
      stopAll();
    }
  }
}
