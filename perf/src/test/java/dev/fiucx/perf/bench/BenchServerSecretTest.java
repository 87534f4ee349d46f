package dev.fiucx.perf.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fiucx.BootstrapSecurity;
import dev.fiucx.conformance.remote.JavaCommand;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** bench --server proves a shared secret with its client both ways, as a fiucx serve does. */
@RequiresProvider("ucx")
class BenchServerSecretTest {
  private static final String SECRET = "bench server's shared secret";
  private static final Pattern LISTENING = Pattern.compile("^listening on (\\S+):(\\d+)$");

  @TempDir Path dir;

  /** What bench itself said (stderr may hold a target's log as well). */
  private static String said(BenchCli.Run r) {
    return String.join("\n", r.err().lines().filter(l -> l.startsWith("fiucx bench: ")).toList());
  }

  @Test
  void aServerWithASecretRefusesClientsWithoutItAndRunsWithTheOneThatHasIt() throws Exception {
    Path right = Files.writeString(dir.resolve("right"), SECRET + "\n");
    Path wrong = Files.writeString(dir.resolve("wrong"), "another shared secret");
    Path json = dir.resolve("run.json");
    try (ServerProcess server =
        new ServerProcess(
            "shm",
            true,
            List.of(),
            new PrintStream(System.err),
            SECRET.getBytes(StandardCharsets.US_ASCII))) {
      String target = server.host() + ":" + server.port();
      BenchCli.Run r =
          BenchCli.run("bench", "--connect", target, "--secret-file", wrong.toString(), "-n", "10");
      assertEquals(1, r.exit(), r.err());
      assertEquals(
          "fiucx bench: "
              + target
              + " refused: wrong shared secret (the answer to the challenge is not right)",
          said(r));
      assertEquals("", r.out(), "no run, so no header and no figures");
      r = BenchCli.run("bench", "--connect", target, "-n", "10");
      assertEquals(1, r.exit(), r.err());
      assertEquals(
          "fiucx bench: "
              + target
              + ": the bench server asks for a shared secret and none was given (--secret-file"
              + " FILE or FIUCX_SECRET)",
          said(r));
      assertEquals("", r.out(), "no run, so no header and no figures");
      // the server serves one client and then exits: that this run gets it shows that neither
      // refused client had a session
      r =
          BenchCli.run(
              "bench",
              "--connect",
              target,
              "--secret-file",
              right.toString(),
              "-n",
              "200",
              "-w",
              "0",
              "--json",
              json.toString());
      assertEquals(0, r.exit(), r.err());
    }
    var root = new ObjectMapper().readTree(json.toFile());
    assertEquals(200, root.get("results").get("ops").asLong(), root.toString());
    assertTrue(root.get("target_check").get("ok").asBoolean(), root.toString());
  }

  @Test
  void aClientWithASecretRefusesAServerThatAsksForNone() throws Exception {
    Path right = Files.writeString(dir.resolve("right"), SECRET);
    try (ServerProcess server =
        new ServerProcess("shm", true, List.of(), new PrintStream(System.err))) {
      String target = server.host() + ":" + server.port();
      BenchCli.Run r =
          BenchCli.run("bench", "--connect", target, "--secret-file", right.toString(), "-n", "10");
      assertEquals(1, r.exit(), r.err());
      assertEquals(
          "fiucx bench: "
              + target
              + ": the bench server asked for no shared secret, so it cannot prove it is the bench"
              + " server meant",
          said(r));
      assertEquals("", r.out());
    }
  }

  @Test
  void withoutASecretTheServerListensBeyondLoopbackOnlyWithInsecure() throws Exception {
    BenchCli.Run r = BenchCli.run("bench", "--server", "--bind", "0.0.0.0", "--port", "0");
    assertEquals(2, r.exit(), r.err());
    assertEquals(
        "fiucx bench: --bind 0.0.0.0 reaches beyond this host: give a shared secret (--secret-file"
            + " FILE or FIUCX_SECRET), or --insecure to hand the region's key to anyone who"
            + " connects",
        r.err().strip());
    assertEquals("", r.out());
    r = BenchCli.run("bench", "-n", "10", "--insecure");
    assertEquals(2, r.exit(), r.err());
    assertEquals("fiucx bench: --insecure is --server's", said(r));

    Path log = dir.resolve("insecure.log");
    assertEquals(
        0,
        serveOneRunBeyondLoopback(log, Map.of(), List.of("--insecure"), List.of()),
        "the --insecure server's exit status");
    assertTrue(
        Files.readString(log)
            .contains(
                "fiucx bench server: no secret: the region's key to anyone who connects"
                    + " (--insecure)"),
        Files.readString(log));

    Path secretLog = dir.resolve("secret.log");
    Path right = Files.writeString(dir.resolve("right"), SECRET);
    assertEquals(
        0,
        serveOneRunBeyondLoopback(
            secretLog,
            Map.of(BootstrapSecurity.SECRET_ENV, SECRET),
            List.of(),
            List.of("--secret-file", right.toString())),
        "the server with a secret's exit status");
    assertTrue(
        Files.readString(secretLog)
            .contains("fiucx bench server: clients must prove the shared secret"),
        Files.readString(secretLog));
  }

  /**
   * Starts {@code bench --server --bind 0.0.0.0} in a child JVM (its secret, if any, from {@code
   * env}), runs one bench against it over loopback with {@code clientOptions}, and returns the
   * child's exit status; its stderr goes to {@code log}.
   */
  private static int serveOneRunBeyondLoopback(
      Path log, Map<String, String> env, List<String> serverOptions, List<String> clientOptions)
      throws Exception {
    List<String> args = new ArrayList<>(List.of("--server", "--bind", "0.0.0.0", "--port", "0"));
    args.addAll(serverOptions);
    ProcessBuilder builder =
        new ProcessBuilder(
                JavaCommand.of(List.of(), BenchCommand.class, args.toArray(String[]::new)))
            .redirectError(log.toFile());
    builder.environment().put("UCX_LOG_FILE", "stderr");
    builder.environment().remove(BootstrapSecurity.SECRET_ENV);
    builder.environment().putAll(env);
    Process child = builder.start();
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      String line = out.readLine();
      Matcher m = line == null ? null : LISTENING.matcher(line.trim());
      assertTrue(m != null && m.matches(), "the server said '" + line + "'");
      assertEquals("0.0.0.0", m.group(1));
      List<String> run = new ArrayList<>(List.of("bench", "--connect", "127.0.0.1:" + m.group(2)));
      run.addAll(clientOptions);
      run.addAll(List.of("-n", "100", "-w", "0"));
      BenchCli.Run r = BenchCli.run(run.toArray(String[]::new));
      assertEquals(0, r.exit(), r.err());
      assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the server exits after its one client");
      return child.exitValue();
    } finally {
      child.destroyForcibly();
      child.waitFor(10, TimeUnit.SECONDS);
    }
  }
}
