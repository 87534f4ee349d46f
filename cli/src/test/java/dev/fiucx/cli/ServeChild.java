package dev.fiucx.cli;

import dev.fiucx.conformance.remote.JavaCommand;
import dev.fiucx.conformance.remote.ShmFiles;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code fiucx serve} (or another {@code fiucx} command) in a child JVM, as a user starts it: its
 * stdout lines as they come, its exit, and what it leaves in shared memory. Closing kills it if it
 * still runs and removes the UCX shared-memory files it left.
 */
final class ServeChild implements AutoCloseable {
  static final Pattern LISTENING = Pattern.compile("^fiucx serve: listening on (\\S+):(\\d+)$");

  private final Process process;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final List<String> seen = new ArrayList<>();
  private final Set<String> shmBefore;

  /**
   * @param prefix what to run the JVM under ({@code ip netns exec NS}), or empty
   */
  ServeChild(List<String> prefix, String... args) throws IOException {
    this(prefix, Map.of(), args);
  }

  /**
   * @param environment added to this JVM's for the child ({@code FIUCX_SECRET}, say)
   */
  ServeChild(List<String> prefix, Map<String, String> environment, String... args)
      throws IOException {
    shmBefore = ShmFiles.ucxPosixNames();
    ProcessBuilder b =
        new ProcessBuilder(JavaCommand.of(prefix, FiucxCli.class, args))
            .redirectError(ProcessBuilder.Redirect.INHERIT);
    b.environment().put("UCX_LOG_FILE", "stderr");
    b.environment().putAll(environment);
    process = b.start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    Thread.ofPlatform()
        .daemon()
        .name("serve-child-out")
        .start(
            () -> {
              try {
                String l;
                while ((l = out.readLine()) != null) {
                  System.err.println("child: " + l);
                  lines.add(l);
                }
              } catch (IOException e) {
                // the child is gone
              }
            });
  }

  long pid() {
    return process.pid();
  }

  Process process() {
    return process;
  }

  /** The next line that matches {@code regex} (lines before it are kept in {@link #seen}). */
  Matcher awaitLine(String regex, long seconds) throws InterruptedException {
    Pattern p = Pattern.compile(regex);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (true) {
      long left = deadline - System.nanoTime();
      String l = left > 0 ? lines.poll(left, TimeUnit.NANOSECONDS) : null;
      if (l == null) {
        throw new AssertionError(
            "no line matching '" + regex + "' within " + seconds + " s; lines: " + seen);
      }
      seen.add(l);
      Matcher m = p.matcher(l);
      if (m.matches()) {
        return m;
      }
    }
  }

  /** The first line, which must be the listening line; returns the port. */
  int awaitListening() throws InterruptedException {
    String first;
    first = lines.poll(60, TimeUnit.SECONDS);
    if (first == null) {
      throw new AssertionError("the serve printed nothing within 60 s");
    }
    seen.add(first);
    Matcher m = LISTENING.matcher(first);
    if (!m.matches()) {
      throw new AssertionError("first line is not the listening line: '" + first + "'");
    }
    return Integer.parseInt(m.group(2));
  }

  List<String> seen() {
    return seen;
  }

  /** Sends a signal ({@code TERM}, {@code INT}) to the child. */
  void signal(String name) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).start();
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new AssertionError("kill -" + name + " failed");
    }
  }

  /** Waits for the child's exit; its status, or -1 when it still runs after {@code seconds}. */
  int awaitExit(long seconds) throws InterruptedException {
    return process.waitFor(seconds, TimeUnit.SECONDS) ? process.exitValue() : -1;
  }

  /** SysV shared-memory segments the child created that still exist. */
  int sysvSegmentsLeft() throws IOException {
    int n = 0;
    for (String line : Files.readAllLines(Path.of("/proc/sysvipc/shm"))) {
      String[] f = line.trim().split("\\s+");
      if (f.length > 4 && f[4].equals(Long.toString(process.pid()))) {
        n++;
      }
    }
    return n;
  }

  /**
   * UCX posix shared-memory files that appeared since the child started and nobody maps or holds
   * open any more: what a UCX process that died without cleaning up leaves.
   */
  Set<String> posixShmOrphans() throws IOException {
    return ShmFiles.orphans(shmBefore);
  }

  /** Kills the child if it still runs, and removes the shared-memory files it left. */
  @Override
  public void close() throws IOException {
    if (process.isAlive()) {
      process.destroyForcibly();
      try {
        process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    ShmFiles.removeOrphans(shmBefore);
  }
}
