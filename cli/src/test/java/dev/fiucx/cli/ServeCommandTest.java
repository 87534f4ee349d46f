package dev.fiucx.cli;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.BootstrapSecurity;
import dev.fiucx.ConnectedEndpoint;
import dev.fiucx.Connection;
import dev.fiucx.CqEntry;
import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.PeerRegion;
import dev.fiucx.ServeAttr;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code fiucx serve}: its options and config file, and the command as a real child process. */
@RequiresProvider("ucx")
class ServeCommandTest {
  static final long RW = FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE;
  @TempDir Path dir;

  static ServeCommand.Settings settings(String... args) {
    ServeCommand cmd = new ServeCommand();
    new CommandLine(cmd).parseArgs(args);
    return cmd.settings();
  }

  static String usageError(String... args) {
    return assertThrows(ServeCommand.UsageException.class, () -> settings(args)).getMessage();
  }

  @Test
  void optionsAreCheckedAndSizesTakeSuffixes() {
    ServeCommand.Settings s =
        settings("--region", "counter:64", "--region", "table:4k:r", "--region", "big:2m:w");
    assertEquals("127.0.0.1", s.bind());
    assertEquals(13340, s.port());
    assertEquals("shm", s.transport());
    assertEquals(
        List.of(
            new ServeAttr.Region("counter", 64, RW),
            new ServeAttr.Region("table", 4096, FiFlags.REMOTE_READ),
            new ServeAttr.Region("big", 2 << 20, FiFlags.REMOTE_WRITE)),
        s.regions());
    assertEquals(DomainAttr.DEFAULT_LOCK_LEASE, s.domainAttr().lockLease());
    assertEquals(
        java.time.Duration.ofMillis(250),
        settings("--region", "c:8", "--lease-ms", "250").domainAttr().lockLease());
    assertEquals(1L << 30, ServeCommand.size("1G", "x:1G"));

    assertEquals("at least one --region NAME:SIZE[:ACCESS] to serve", usageError());
    assertEquals(
        "--region wants NAME:SIZE[:ACCESS], not 'counter'", usageError("--region", "counter"));
    assertEquals(
        "--region 'a b:8': the name is 1 to 64 of A-Z a-z 0-9 . _ -",
        usageError("--region", "a b:8"));
    assertEquals("--region 'c:4': SIZE is at least 8 bytes: '4'", usageError("--region", "c:4"));
    assertEquals("--region 'c:12q': SIZE is not a number: '12q'", usageError("--region", "c:12q"));
    assertEquals(
        "--region 'c:8:x': ACCESS is rw, r or w, not 'x'", usageError("--region", "c:8:x"));
    assertEquals("region 'c' named twice", usageError("--region", "c:8", "--region", "c:16"));
    assertEquals("--port is 0 .. 65535: 70000", usageError("--region", "c:8", "--port", "70000"));
    assertEquals(
        "--lease-ms must be at least 1: 0", usageError("--region", "c:8", "--lease-ms", "0"));
    assertEquals(
        "--metrics-port is 0 .. 65535: -1", usageError("--region", "c:8", "--metrics-port", "-1"));
  }

  @Test
  void aBindBeyondLoopbackNeedsASecretOrInsecure() throws Exception {
    assertEquals(
        "--bind 0.0.0.0 reaches beyond this host: give a shared secret (--secret-file FILE or"
            + " FIUCX_SECRET), or --insecure to hand every region's key to anyone who connects",
        usageError("--region", "c:8", "--bind", "0.0.0.0"));
    ServeCommand.Settings loopback = settings("--region", "c:8", "--bind", "localhost");
    assertFalse(loopback.security().hasSecret());
    assertEquals(
        "bootstrap over plain TCP, no secret: loopback only",
        ServeCommand.securityLine(loopback.security()));
    ServeCommand.Settings insecure = settings("--region", "c:8", "--bind", "0.0.0.0", "--insecure");
    assertTrue(insecure.security().insecureBind());
    assertEquals(
        "bootstrap over plain TCP, no secret: every region's key to anyone who connects"
            + " (--insecure)",
        ServeCommand.securityLine(insecure.security()));

    // the secret's bytes are the file's, but for one trailing line break
    Path secret = Files.write(dir.resolve("secret"), "a secret of 20 bytes\r\n".getBytes());
    ServeCommand.Settings s =
        settings("--region", "c:8", "--bind", "0.0.0.0", "--secret-file", secret.toString());
    assertArrayEquals("a secret of 20 bytes".getBytes(), s.security().secret());
    assertEquals(
        "bootstrap over plain TCP, initiators must prove the shared secret",
        ServeCommand.securityLine(s.security()));
    Path tooShort = Files.write(dir.resolve("short"), "fifteen bytes..".getBytes());
    assertEquals(
        "--secret-file "
            + tooShort
            + " holds 15 bytes: a shared secret needs 16 at least (e.g. head -c 32 /dev/urandom |"
            + " base64)",
        usageError("--region", "c:8", "--secret-file", tooShort.toString()));
    assertEquals(
        "--secret-file " + dir.resolve("absent") + ": cannot read it: " + dir.resolve("absent"),
        usageError("--region", "c:8", "--secret-file", dir.resolve("absent").toString()));
    assertEquals(
        "--tls-key and --tls-cert go together",
        usageError("--region", "c:8", "--tls-key", secret.toString()));
    assertEquals(
        "--tls-keystore or --tls-key with --tls-cert, not both",
        usageError(
            "--region", "c:8", "--tls-keystore", "a.p12", "--tls-key", "k", "--tls-cert", "c"));
    String notPem =
        usageError(
            "--region", "c:8", "--tls-key", secret.toString(), "--tls-cert", secret.toString());
    assertEquals(
        "TLS certificates " + secret + ": ", notPem.substring(0, notPem.indexOf(": ") + 2));
  }

  @Test
  void theConfigFileHoldsTheSameKeysAndOptionsWin() throws Exception {
    Path file = dir.resolve("serve.properties");
    Path secret = Files.writeString(dir.resolve("secret"), "sixteen bytes at least\n");
    Files.writeString(
        file,
        "port=0\nbind=0.0.0.0\nregion=a:8, b:1k:r\ntransport=tcp\nmetrics-port=9999\nlease-ms=700\n"
            + "secret-file="
            + secret
            + "\n");
    ServeCommand.Settings s = settings("--config", file.toString());
    assertTrue(s.security().hasSecret());
    assertEquals(0, s.port());
    assertEquals("0.0.0.0", s.bind());
    assertEquals("tcp", s.transport());
    assertEquals(9999, s.metricsPort());
    assertEquals(700L, s.leaseMs());
    assertEquals(
        List.of(
            new ServeAttr.Region("a", 8, RW), new ServeAttr.Region("b", 1024, FiFlags.REMOTE_READ)),
        s.regions());
    ServeCommand.Settings o =
        settings(
            "--config",
            file.toString(),
            "--port",
            "5000",
            "--region",
            "c:16",
            "--transport",
            "shm",
            "--lease-ms",
            "9");
    assertEquals(5000, o.port());
    assertEquals("0.0.0.0", o.bind());
    assertEquals(List.of(new ServeAttr.Region("c", 16, RW)), o.regions());
    assertEquals("shm", o.transport());
    assertEquals(9L, o.leaseMs());

    Files.writeString(file, "regions=a:8\n");
    assertEquals(
        "--config " + file + ": unknown key 'regions' (keys: " + ServeCommand.CONFIG_KEYS + ")",
        usageError("--config", file.toString()));
    Files.writeString(file, "region=a:8\nport=x\n");
    assertEquals("--config: port is not a number: 'x'", usageError("--config", file.toString()));
  }

  @Test
  void aUsageErrorIsExitStatusTwo() {
    PrintStream saved = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try {
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      assertEquals(2, FiucxCli.commandLine().execute("serve", "--region", "x"));
    } finally {
      System.setErr(saved);
    }
    assertEquals(
        "fiucx serve: --region wants NAME:SIZE[:ACCESS], not 'x'",
        err.toString(StandardCharsets.UTF_8).trim());
  }

  /** One fetch SUM of 1 on the counter; the ticket, or the negative errno. */
  static long ticket(ConnectedEndpoint ep, PeerRegion counter, MemorySegment one, MemorySegment r) {
    int rc =
        ep.endpoint()
            .fetchAtomic(
                one,
                1,
                null,
                r,
                null,
                ep.peer(),
                counter.address(),
                counter.key(),
                FiDatatype.UINT64,
                FiOp.SUM,
                null);
    if (rc < 0) {
      return rc;
    }
    rc = ep.cq().sread(new CqEntry[] {new CqEntry()}, 1, 10_000);
    return rc == 1 ? r.get(JAVA_LONG, 0) : rc < 0 ? rc : -FiErrno.EIO;
  }

  @Test
  void theServeProcessTakesTheSecretFromTheEnvironmentAndNeverPrintsIt() throws Exception {
    String secret = "a secret from the environment";
    try (ServeChild serve =
        new ServeChild(
            List.of(),
            Map.of(BootstrapSecurity.SECRET_ENV, secret),
            "serve",
            "--port",
            "0",
            "--bind",
            "0.0.0.0",
            "--region",
            "counter:64")) {
      int port = serve.awaitListening();
      serve.awaitLine(
          "fiucx serve: bootstrap over plain TCP, initiators must prove the shared secret", 30);
      serve.awaitLine("fiucx serve: region counter: 64 bytes, key 0x[0-9a-f]{16}, access rw", 10);
      String target = "127.0.0.1:" + port;
      FiException none =
          assertThrows(FiException.class, () -> Fabric.connect(target, DomainAttr.defaults()));
      assertEquals(FiErrno.EACCES, none.errno());
      serve.awaitLine(
          "fiucx serve: refused 127\\.0\\.0\\.1:\\d+: UNAUTHORIZED: closed the connection instead"
              + " of answering the challenge",
          10);
      BootstrapSecurity right =
          BootstrapSecurity.none().withSecret(secret.getBytes(StandardCharsets.UTF_8));
      try (Connection c = Fabric.connect(target, DomainAttr.defaults(), right);
          ConnectedEndpoint ep = c.openEndpoint(16);
          Arena arena = Arena.ofConfined()) {
        MemorySegment one = arena.allocate(JAVA_LONG);
        one.set(JAVA_LONG, 0, 1);
        assertEquals(0, ticket(ep, c.region("counter"), one, arena.allocate(JAVA_LONG)));
      }
      serve.signal("TERM");
      assertEquals(0, serve.awaitExit(10));
      serve.awaitLine("fiucx serve: stopped", 5);
      assertTrue(
          serve.seen().stream().noneMatch(l -> l.contains(secret)), "the secret was printed");
    }
  }

  @Test
  void theServeProcessPrintsItsLinesServesAndStopsCleanlyOnSigterm() throws Exception {
    try (ServeChild serve =
        new ServeChild(
            List.of(),
            "serve",
            "--port",
            "0",
            "--region",
            "counter:64",
            "--region",
            "table:1k:r",
            "--lease-ms",
            "500",
            "--metrics-port",
            "0")) {
      int port = serve.awaitListening();
      assertTrue(port > 0);
      serve.awaitLine(
          "fiucx serve: provider ucx, transport sm,self, UCX \\S+, lock lease 500 ms", 10);
      Matcher counterLine =
          serve.awaitLine(
              "fiucx serve: region counter: 64 bytes, key 0x([0-9a-f]{16}), access rw", 10);
      serve.awaitLine("fiucx serve: region table: 1024 bytes, key 0x[0-9a-f]{16}, access r", 10);
      Matcher metrics = serve.awaitLine("metrics: http://127\\.0\\.0\\.1:(\\d+)/metrics", 10);
      String scrape =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + metrics.group(1) + "/metrics"))
                      .timeout(Duration.ofSeconds(10))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      assertTrue(scrape.contains("fiucx_domain_info{"), scrape);

      int n = 1000;
      try (Connection c = Fabric.connect("127.0.0.1:" + port, DomainAttr.defaults());
          ConnectedEndpoint ep = c.openEndpoint(16);
          Arena arena = Arena.ofConfined()) {
        PeerRegion counter = c.region("counter");
        assertEquals(Long.parseUnsignedLong(counterLine.group(1), 16), counter.key());
        serve.awaitLine(
            "fiucx serve: initiator 127\\.0\\.0\\.1:\\d+ connected \\(fiucx-java pid "
                + ProcessHandle.current().pid()
                + " on .*\\)",
            10);
        MemorySegment one = arena.allocate(JAVA_LONG);
        one.set(JAVA_LONG, 0, 1);
        MemorySegment r = arena.allocate(JAVA_LONG);
        for (long i = 0; i < n; i++) {
          assertEquals(i, ticket(ep, counter, one, r));
        }
      }
      serve.awaitLine("fiucx serve: initiator 127\\.0\\.0\\.1:\\d+ departed \\(said BYE\\)", 10);

      long t0 = System.nanoTime();
      serve.signal("TERM");
      assertEquals(0, serve.awaitExit(10), "exit status after SIGTERM (-1: still running)");
      System.err.printf("serve stopped %.0f ms after SIGTERM%n", (System.nanoTime() - t0) / 1e6);
      serve.awaitLine("fiucx serve: SIGTERM: refusing new connections, revoking keys", 5);
      serve.awaitLine("fiucx serve: stopped", 5);
      assertEquals(0, serve.sysvSegmentsLeft());
      assertEquals(Set.of(), serve.posixShmOrphans());
    }
  }

  @Test
  void aConfiguredServeStopsOnSigintAndItsInitiatorGetsAnErrno() throws Exception {
    Path file = dir.resolve("serve.properties");
    Files.writeString(file, "port=0\nregion=counter:8\ntransport=tcp\n");
    try (ServeChild serve = new ServeChild(List.of(), "serve", "--config", file.toString())) {
      int port = serve.awaitListening();
      serve.awaitLine("fiucx serve: provider ucx, transport tcp, .*", 10);
      serve.awaitLine("fiucx serve: region counter: 8 bytes, key 0x[0-9a-f]{16}, access rw", 10);
      try (Connection c = Fabric.connect("127.0.0.1:" + port, DomainAttr.defaults());
          ConnectedEndpoint ep = c.openEndpoint(16);
          Arena arena = Arena.ofConfined()) {
        PeerRegion counter = c.region("counter");
        MemorySegment one = arena.allocate(JAVA_LONG);
        one.set(JAVA_LONG, 0, 1);
        MemorySegment r = arena.allocate(JAVA_LONG);
        assertEquals(0, ticket(ep, counter, one, r));
        serve.signal("INT");
        assertEquals(0, serve.awaitExit(10), "exit status after SIGINT (-1: still running)");
        serve.awaitLine("fiucx serve: SIGINT: refusing new connections, revoking keys", 5);
        serve.awaitLine("fiucx serve: initiator .* departed \\(server shutting down\\)", 5);
        long rc = ticket(ep, counter, one, r);
        assertTrue(
            rc == -FiErrno.EKEYREJECTED || rc == -FiErrno.ECONNRESET, FiErrno.errorString(-rc));
      }
      assertEquals(0, serve.sysvSegmentsLeft());
    }
  }
}
