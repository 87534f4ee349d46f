package dev.fiucx.examples.spark;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@link CounterServe} child JVM (same Java, same class path) that the test starts and always
 * ends: {@link #stop} asks it to stop and returns its counter; {@link #close} kills it if it is
 * still alive and removes the /dev/shm/ucx_shm_posix_* files UCX leaves behind a killed process.
 */
final class CounterServeProcess implements AutoCloseable {
  private static final long WAIT_SECONDS = 20;

  private final Process process;
  private final PrintStream stdin;
  private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final List<String> seen = new ArrayList<>();
  private final Thread reader;
  private final int port;

  private CounterServeProcess(String transport, int port) throws IOException {
    List<String> command =
        List.of(
            ProcessHandle.current().info().command().orElse("java"),
            "--enable-native-access=ALL-UNNAMED",
            "-Xmx256m",
            "-cp",
            System.getProperty("java.class.path"),
            CounterServe.class.getName(),
            transport,
            Integer.toString(port));
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
    // UCX logs to stdout by default, which would break the line protocol
    builder.environment().put("UCX_LOG_FILE", "stderr");
    process = builder.start();
    stdin = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
    BufferedReader out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    reader =
        Thread.ofPlatform()
            .daemon()
            .name("counter-serve-stdout")
            .start(
                () -> {
                  try {
                    for (String line = out.readLine(); line != null; line = out.readLine()) {
                      lines.add(line);
                    }
                  } catch (IOException e) {
                    // the process is gone
                  }
                });
    String ready = next("PORT ");
    this.port = Integer.parseInt(ready.substring(5));
  }

  static CounterServeProcess start(String transport) {
    return start(transport, 0);
  }

  /** A serve on {@code port} (0: one the system picks). */
  static CounterServeProcess start(String transport, int port) {
    try {
      return new CounterServeProcess(transport, port);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the counter serve", e);
    }
  }

  int port() {
    return port;
  }

  /** {@code 127.0.0.1:port} of its bootstrap. */
  String target() {
    return "127.0.0.1:" + port;
  }

  /**
   * Asks it to stop; returns the counter it held then and checks that it closed its server and
   * exited 0.
   */
  long stop() throws InterruptedException {
    stdin.println("stop");
    long counter = Long.parseLong(next("COUNTER ").substring(8));
    next("STOPPED");
    if (!process.waitFor(WAIT_SECONDS, TimeUnit.SECONDS)) {
      throw new AssertionError("the counter serve did not exit within " + WAIT_SECONDS + " s");
    }
    if (process.exitValue() != 0) {
      throw new AssertionError("the counter serve exited " + process.exitValue());
    }
    return counter;
  }

  /**
   * Waits until it has printed {@code n} lines that start with {@code prefix} in all (counting
   * those seen before); fails after the wait bound.
   */
  void awaitLines(String prefix, int n) {
    while (seen.stream().filter(l -> l.startsWith(prefix)).count() < n) {
      next(prefix);
    }
  }

  /** Every line it printed so far, in order. */
  List<String> lines() {
    lines.drainTo(seen);
    return List.copyOf(seen);
  }

  /** Waits for its next line that starts with {@code prefix}, keeping the lines before it. */
  private String next(String prefix) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    try {
      while (true) {
        String line = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (line == null) {
          throw new AssertionError(
              "the counter serve said no '" + prefix + "' line within " + WAIT_SECONDS + " s");
        }
        seen.add(line);
        if (line.startsWith(prefix)) {
          return line;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted waiting for the counter serve", e);
    }
  }

  @Override
  public void close() throws IOException {
    try {
      if (process.isAlive()) {
        Set<String> leftovers = shmFiles(process.pid());
        leftovers.removeAll(shmFiles(ProcessHandle.current().pid()));
        process.destroyForcibly();
        if (!process.waitFor(WAIT_SECONDS, TimeUnit.SECONDS)) {
          throw new AssertionError("the counter serve " + process.pid() + " did not die");
        }
        for (String f : leftovers) {
          Files.deleteIfExists(Path.of(f));
        }
      }
      reader.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while ending the counter serve", e);
    }
  }

  /** The ucx_shm_posix files a process maps. */
  static Set<String> shmFiles(long pid) {
    Set<String> files = new HashSet<>();
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "maps"))) {
        int at = line.indexOf("/dev/shm/ucx_shm_posix_");
        if (at >= 0) {
          files.add(line.substring(at).replace(" (deleted)", "").trim());
        }
      }
    } catch (IOException e) {
      // gone already
    }
    return files;
  }
}
