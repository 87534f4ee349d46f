package dev.fiucx.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.fiucx.conformance.remote.JavaCommand;
import dev.fiucx.conformance.remote.NetworkNamespaces;
import dev.fiucx.conformance.remote.TestCertificates;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two hosts (network namespaces joined by a veth pair): {@code fiucx serve} in one, {@code fiucx
 * bench --connect} initiators in the other over UCX tcp. Two initiators take tickets (fetch SUM
 * UINT64) from one served counter and every ticket is seen once; then the serve gets SIGTERM while
 * a third initiator runs, exits 0 within 10 s, and the initiator ends with an error, not a hang.
 * Once with the bootstrap open to all ({@code --insecure}), once with a shared secret and TLS,
 * where an initiator with the wrong secret is refused first.
 */
@RequiresProvider("ucx")
class TwoHostsTest {
  static final int CALLS = 4000;
  static final int WARMUP = 500;

  @TempDir Path dir;

  /** {@code fiucx bench ...} in host {@code 1}, its stdout and stderr in files. */
  private static Process bench(NetworkNamespaces hosts, Path out, Path err, String... args)
      throws IOException {
    return bench(hosts, out, err, List.of(args));
  }

  /** {@code fiucx bench ARGS... MORE...}. */
  private static Process bench(
      NetworkNamespaces hosts, Path out, Path err, List<String> args, String... more)
      throws IOException {
    List<String> a = new ArrayList<>(List.of("bench"));
    a.addAll(args);
    a.addAll(List.of(more));
    ProcessBuilder b =
        new ProcessBuilder(
                JavaCommand.of(hosts.prefix(1), FiucxCli.class, a.toArray(String[]::new)))
            .redirectOutput(out.toFile())
            .redirectError(err.toFile());
    b.environment().put("UCX_LOG_FILE", "stderr");
    return b.start();
  }

  private static void stop(List<Process> processes) {
    for (Process p : processes) {
      if (p.isAlive()) {
        p.destroyForcibly();
        try {
          p.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  @ParameterizedTest(name = "secured {0}")
  @ValueSource(booleans = {false, true})
  void ticketsCrossFromOneHostToTheOtherAndSigtermEndsTheServeCleanly(boolean secured)
      throws Exception {
    assumeTrue(NetworkNamespaces.available(), "needs root and iproute2 to create namespaces");
    List<Process> initiators = new ArrayList<>();
    try (NetworkNamespaces hosts = new NetworkNamespaces()) {
      List<String> serveArgs =
          new ArrayList<>(
              List.of(
                  "serve",
                  "--port",
                  "0",
                  "--bind",
                  hosts.address(0),
                  "--transport",
                  "tcp",
                  "--region",
                  "counter:64"));
      Path trust = null;
      // what each initiator adds to its bench options
      List<String> benchSecurity = new ArrayList<>();
      if (secured) {
        Path secret = Files.writeString(dir.resolve("secret"), "the two hosts' shared secret\n");
        TestCertificates tls = TestCertificates.make(dir, "serve", hosts.address(0));
        trust = tls.certificate();
        serveArgs.addAll(
            List.of(
                "--secret-file",
                secret.toString(),
                "--tls-key",
                tls.key().toString(),
                "--tls-cert",
                trust.toString()));
        benchSecurity.addAll(
            List.of("--secret-file", secret.toString(), "--tls-trust", trust.toString()));
      } else {
        serveArgs.add("--insecure");
      }
      try (ServeChild serve = new ServeChild(hosts.prefix(0), serveArgs.toArray(String[]::new))) {
        run(hosts, serve, trust, benchSecurity, initiators);
      } finally {
        stop(initiators);
      }
    }
  }

  /**
   * @param trust the serve's certificate when it runs TLS with a secret, null when it is open
   */
  private void run(
      NetworkNamespaces hosts,
      ServeChild serve,
      Path trust,
      List<String> benchSecurity,
      List<Process> initiators)
      throws Exception {
    boolean secured = trust != null;
    int port = serve.awaitListening();
    assertEquals("fiucx serve: listening on " + hosts.address(0) + ":" + port, serve.seen().get(0));
    serve.awaitLine(
        secured
            ? "fiucx serve: bootstrap over TLS, initiators must prove the shared secret"
            : "fiucx serve: bootstrap over plain TCP, no secret: every region's key to anyone"
                + " who connects \\(--insecure\\)",
        30);
    serve.awaitLine("fiucx serve: region counter: 64 bytes, key 0x[0-9a-f]{16}, access rw", 30);
    String target = hosts.address(0) + ":" + port;

    if (secured) {
      Path wrong = Files.writeString(dir.resolve("wrong"), "not the hosts' shared secret");
      Process stranger =
          bench(
              hosts,
              dir.resolve("outw"),
              dir.resolve("errw"),
              List.of("--secret-file", wrong.toString(), "--tls-trust", trust.toString()),
              "--connect",
              target,
              "--region",
              "counter",
              "-n",
              "10");
      initiators.add(stranger);
      assertTrue(stranger.waitFor(60, TimeUnit.SECONDS), "the stranger did not finish");
      String err = Files.readString(dir.resolve("errw"));
      assertEquals(1, stranger.exitValue(), err);
      assertEquals(
          List.of(
              "fiucx bench: "
                  + target
                  + " refused: wrong shared secret (the answer to the challenge is not right)"),
          err.lines().filter(l -> l.startsWith("fiucx bench: ")).toList());
      serve.awaitLine(
          "fiucx serve: refused "
              + hosts.address(1)
              + ":\\d+: UNAUTHORIZED: wrong shared secret \\(the answer to the challenge is"
              + " not right\\)",
          10);
    }

    Path[] fetched = {dir.resolve("a.txt"), dir.resolve("b.txt")};
    List<Process> takers = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      takers.add(
          bench(
              hosts,
              dir.resolve("out" + i),
              dir.resolve("err" + i),
              benchSecurity,
              "--connect",
              target,
              "--region",
              "counter",
              "-n",
              Integer.toString(CALLS),
              "-w",
              Integer.toString(WARMUP),
              "--fetched",
              fetched[i].toString()));
      initiators.add(takers.get(i));
    }
    for (int i = 0; i < 2; i++) {
      Process p = takers.get(i);
      assertTrue(p.waitFor(180, TimeUnit.SECONDS), "initiator " + i + " did not finish");
      assertEquals(0, p.exitValue(), Files.readString(dir.resolve("err" + i)));
      String out = Files.readString(dir.resolve("out" + i));
      assertTrue(out.contains("  target     " + target + " (a fiucx serve: region counter,"), out);
      assertTrue(
          out.contains(
              "target check: " + (CALLS + WARMUP) + " fetched tickets, distinct per element"),
          out);
    }
    int total = 2 * (CALLS + WARMUP);
    boolean[] seen = new boolean[total];
    for (Path f : fetched) {
      List<String> lines = Files.readAllLines(f);
      assertEquals(CALLS + WARMUP, lines.size());
      for (String line : lines) {
        String[] w = line.split(" ");
        assertEquals("0", w[0]);
        long v = Long.parseLong(w[1]);
        assertTrue(v >= 0 && v < total, "ticket " + v + " outside 0.." + (total - 1));
        assertTrue(!seen[(int) v], "ticket " + v + " seen twice");
        seen[(int) v] = true;
      }
    }
    serve.awaitLine(
        "fiucx serve: initiator " + hosts.address(1) + ":\\d+ departed \\(said BYE\\)", 30);
    serve.awaitLine(
        "fiucx serve: initiator " + hosts.address(1) + ":\\d+ departed \\(said BYE\\)", 30);

    // a third initiator runs far longer than the test waits; the serve stops under it
    Path err = dir.resolve("err2");
    Process third =
        bench(
            hosts,
            dir.resolve("out2"),
            err,
            benchSecurity,
            "--connect",
            target,
            "--region",
            "counter",
            "-n",
            "100000000",
            "-w",
            "0");
    initiators.add(third);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (!Files.readString(err).contains(" ops/s") && System.nanoTime() < deadline) {
      assertTrue(third.isAlive(), "the third initiator ended early: " + Files.readString(err));
      Thread.sleep(100);
    }
    assertTrue(Files.readString(err).contains(" ops/s"), "the third initiator never ran");
    long t0 = System.nanoTime();
    serve.signal("TERM");
    assertEquals(0, serve.awaitExit(10), "the serve's exit status (-1: still running 10 s later)");
    System.err.printf("serve exited %.0f ms after SIGTERM%n", (System.nanoTime() - t0) / 1e6);
    serve.awaitLine("fiucx serve: SIGTERM: refusing new connections, revoking keys", 5);
    serve.awaitLine(
        "fiucx serve: initiator " + hosts.address(1) + ":\\d+ departed \\(server shutting down\\)",
        5);
    serve.awaitLine("fiucx serve: stopped", 5);
    assertTrue(third.waitFor(30, TimeUnit.SECONDS), "the third initiator hangs");
    System.err.printf(
        "third initiator ended %.0f ms after SIGTERM%n", (System.nanoTime() - t0) / 1e6);
    String text = Files.readString(err);
    text.lines()
        .filter(l -> l.startsWith("fiucx bench: "))
        .forEach(l -> System.err.println("third initiator: " + l));
    assertEquals(1, third.exitValue(), text);
    assertTrue(
        text.contains("fiucx bench: a call failed with -FI_EKEYREJECTED")
            || text.contains("fiucx bench: a call failed with -FI_ECONNRESET"),
        text);
    assertEquals(0, serve.sysvSegmentsLeft());
  }
}
