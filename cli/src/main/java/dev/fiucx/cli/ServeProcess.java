package dev.fiucx.cli;

import dev.fiucx.conformance.remote.JavaCommand;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code fiucx serve} in a child JVM (same Java, same class path), started as a user starts one,
 * on loopback with a port of its own choosing. Its stdout lines are kept in order for whoever shows
 * them; it holds the child's stdin, so a serve whose parent dies stops by itself ({@code
 * --parent-watch}). Closing kills it if it still runs.
 */
final class ServeProcess implements AutoCloseable {
  private static final Pattern LISTENING = Pattern.compile("^fiucx serve: listening on (\\S+)$");

  /** What the reader thread puts after the child's last line. */
  private static final String END = new String("end of output");

  private final Process process;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final String hostPort;
  private boolean ended;

  /**
   * Starts {@code fiucx serve --port 0 --bind 127.0.0.1 ARGS} and waits for its listening line.
   *
   * @throws IOException when it cannot start, exits, or does not listen within {@code start}
   */
  ServeProcess(List<String> serveArgs, Duration start) throws IOException {
    List<String> args = new ArrayList<>(List.of("serve", "--port", "0", "--bind", "127.0.0.1"));
    args.addAll(serveArgs);
    args.add("--parent-watch");
    ProcessBuilder builder =
        new ProcessBuilder(JavaCommand.of(List.of(), FiucxCli.class, args.toArray(String[]::new)))
            .redirectError(ProcessBuilder.Redirect.INHERIT);
    // UCX logs to stdout unless told otherwise; the serve's stdout carries its lines
    builder.environment().put("UCX_LOG_FILE", "stderr");
    process = builder.start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    Thread.ofPlatform()
        .daemon()
        .name("fiucx-demo-serve-output")
        .start(
            () -> {
              try {
                String l;
                while ((l = out.readLine()) != null) {
                  lines.add(l);
                }
              } catch (IOException e) {
                // the child is gone
              }
              lines.add(END);
            });
    String first = nextLine(start);
    Matcher m = first == null ? null : LISTENING.matcher(first);
    if (m == null || !m.matches()) {
      String why =
          first != null
              ? "the serve said '" + first + "' instead of where it listens"
              : ended
                  ? "the serve exited before it listened (its reason is on stderr)"
                  : "the serve did not say where it listens within " + start.toSeconds() + " s";
      close();
      throw new IOException(why);
    }
    hostPort = m.group(1);
  }

  /** Where its bootstrap listens: {@code 127.0.0.1:PORT}. */
  String hostPort() {
    return hostPort;
  }

  long pid() {
    return process.pid();
  }

  /** The next line it printed, waiting up to {@code wait}; null at its end or after the wait. */
  String nextLine(Duration wait) {
    if (ended) {
      return null;
    }
    try {
      String l = lines.poll(wait.toNanos(), TimeUnit.NANOSECONDS);
      if (l == END) {
        ended = true;
        return null;
      }
      return l;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /**
   * SIGTERM, then waits up to {@code wait} for its exit and for its last lines.
   *
   * @return its exit status, or -1 when it still ran (then it is killed)
   */
  int stop(Duration wait) {
    // SIGTERM: the serve refuses new connections, revokes its keys, unmaps. Through the handle:
    // Process.destroy() also closes the pipes, and the serve's last lines with them
    process.toHandle().destroy();
    try {
      if (!process.waitFor(wait.toNanos(), TimeUnit.NANOSECONDS)) {
        close();
        return -1;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      close();
      return -1;
    }
    return process.exitValue();
  }

  /** Kills it if it still runs. */
  @Override
  public void close() {
    if (!process.isAlive()) {
      return;
    }
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
