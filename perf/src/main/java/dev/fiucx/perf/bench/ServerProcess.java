package dev.fiucx.perf.bench;

import dev.fiucx.BootstrapSecurity;
import dev.fiucx.conformance.remote.JavaCommand;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A bench target in a child JVM (same Java, same class path): {@code bench --server --port 0} on
 * loopback, which tells its port on its first line of output. The child watches its standard input
 * and exits when this process goes away, so a killed bench leaves no target behind. Given a shared
 * secret, the child takes it from its environment ({@code FIUCX_SECRET}), never from its command
 * line, where {@code ps} would show it.
 */
final class ServerProcess implements AutoCloseable {
  private static final Pattern LISTENING = Pattern.compile("^listening on (\\S+):(\\d+)$");

  private final Process process;
  private final String host;
  private final int port;
  private final byte[] secret;

  /** A fresh random secret for one target, as text (the environment holds text). */
  static byte[] randomSecret() {
    byte[] random = new byte[32];
    new SecureRandom().nextBytes(random);
    return Base64.getEncoder().encode(random);
  }

  /** A target without a shared secret: any process of this host may run against it. */
  ServerProcess(String transport, boolean spins, List<String> jvmOptions, PrintStream log)
      throws IOException {
    this(transport, spins, jvmOptions, log, null);
  }

  /**
   * @param spins the target progresses in a loop of its own while a run is on ({@code
   *     --server-progress spin}), else by its domain's automatic progress
   * @param secret the shared secret clients must prove (ASCII), or null for none
   */
  ServerProcess(
      String transport, boolean spins, List<String> jvmOptions, PrintStream log, byte[] secret)
      throws IOException {
    this.secret = secret == null ? null : secret.clone();
    List<String> args = new ArrayList<>(List.of("--server", "--port", "0", "--bind", "127.0.0.1"));
    args.addAll(List.of("--transport", transport, "--parent-watch"));
    args.addAll(List.of("--server-progress", spins ? "spin" : "auto"));
    List<String> cmd = JavaCommand.of(List.of(), BenchCommand.class, args.toArray(String[]::new));
    cmd.addAll(1, jvmOptions);
    ProcessBuilder builder = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
    // UCX logs to stdout unless told otherwise; the child's stdout carries the listening line
    builder.environment().put("UCX_LOG_FILE", "stderr");
    // the child's secret is this one's choice, never one it happens to inherit
    builder.environment().remove(BootstrapSecurity.SECRET_ENV);
    if (secret != null) {
      builder
          .environment()
          .put(BootstrapSecurity.SECRET_ENV, new String(secret, StandardCharsets.US_ASCII));
    }
    process = builder.start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    String line = out.readLine();
    Matcher m = line == null ? null : LISTENING.matcher(line.trim());
    if (m == null || !m.matches()) {
      process.destroyForcibly();
      throw new IOException("the bench target process said '" + line + "' instead of its port");
    }
    host = m.group(1);
    port = Integer.parseInt(m.group(2));
    // whatever else the child prints must not fill the pipe and stall it
    Thread.ofPlatform()
        .daemon()
        .name("fiucx-bench-target-output")
        .start(
            () -> {
              try {
                String l;
                while ((l = out.readLine()) != null) {
                  log.println("target: " + l);
                }
              } catch (IOException e) {
                // the child is gone
              }
            });
  }

  String host() {
    return host;
  }

  int port() {
    return port;
  }

  /** The secret the child's clients must prove, or null. */
  byte[] secret() {
    return secret == null ? null : secret.clone();
  }

  /** Waits for the child to exit (it does after BYE), killing it after 10 s. */
  @Override
  public void close() {
    try {
      process.getOutputStream().close(); // end of its standard input: the parent is done
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroy(); // SIGTERM: it closes its domain
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      }
    } catch (IOException e) {
      process.destroyForcibly();
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
