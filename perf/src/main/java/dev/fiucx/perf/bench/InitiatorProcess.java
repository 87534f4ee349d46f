package dev.fiucx.perf.bench;

import dev.fiucx.BootstrapSecurity;
import dev.fiucx.conformance.remote.JavaCommand;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One initiator of bench -P in a child JVM (same Java, same module and class path, as {@link
 * ServerProcess} starts a target): {@code bench --connect HOST:PORT --region NAME} with the run's
 * options, its elements where the parent put them, {@code --parent-watch} (it holds the child's
 * stdin, so the child ends when this process does) and its figures in a JSON file. It says {@link
 * ParentWatch#WARMED_UP} on stdout after its warm-up and measures on {@link #go}. Its other lines
 * (stdout and stderr) are kept, the last ones, to show when it fails.
 */
final class InitiatorProcess implements AutoCloseable {
  /** Lines kept of what the child printed: enough for its error and what led to it. */
  private static final int KEPT_LINES = 30;

  private final int index;
  private final Process process;
  private final Deque<String> lines = new ArrayDeque<>();
  private final CountDownLatch warmedUp = new CountDownLatch(1);
  private final Thread reader;

  /**
   * @param index the initiator's number, from 0
   * @param args bench's arguments
   * @param secret the target's shared secret, handed over in the environment (never the command
   *     line, where ps shows it), or null
   */
  InitiatorProcess(int index, List<String> args, byte[] secret) throws IOException {
    this.index = index;
    List<String> cmd = JavaCommand.of(List.of(), BenchCommand.class, args.toArray(String[]::new));
    ProcessBuilder builder = new ProcessBuilder(cmd).redirectErrorStream(true);
    // UCX logs to stdout unless told otherwise; the child's stdout carries its warmed-up line
    builder.environment().put("UCX_LOG_FILE", "stderr");
    builder.environment().remove(BootstrapSecurity.SECRET_ENV);
    if (secret != null) {
      builder
          .environment()
          .put(BootstrapSecurity.SECRET_ENV, new String(secret, StandardCharsets.US_ASCII));
    }
    process = builder.start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    reader =
        Thread.ofPlatform()
            .daemon()
            .name("fiucx-bench-initiator-" + index)
            .start(
                () -> {
                  try {
                    String l;
                    while ((l = out.readLine()) != null) {
                      if (l.equals(ParentWatch.WARMED_UP)) {
                        warmedUp.countDown();
                      } else {
                        keep(l);
                      }
                    }
                  } catch (IOException e) {
                    // the child is gone
                  }
                });
  }

  private synchronized void keep(String line) {
    if (lines.size() == KEPT_LINES) {
      lines.removeFirst();
    }
    lines.addLast(line);
  }

  /** The last lines the child printed, each after {@code prefix}. */
  synchronized List<String> lastLines() {
    List<String> l = new ArrayList<>();
    lines.forEach(x -> l.add("initiator " + index + ": " + x));
    return l;
  }

  int index() {
    return index;
  }

  long pid() {
    return process.pid();
  }

  /** What became of a child's warm-up while its parent waited. */
  enum WarmUp {
    /** It said {@link ParentWatch#WARMED_UP}. */
    DONE,
    /** It exited before it said so. */
    EXITED,
    /** It still runs and has not said so: the wait's limit passed. */
    SILENT
  }

  /**
   * Waits until the child has warmed up, it exits, or the host's monotonic clock ({@code
   * System.nanoTime}) reaches {@code deadlineNanos}.
   *
   * @param deadlineNanos when to stop waiting, on {@code System.nanoTime}'s clock
   * @return what became of its warm-up
   */
  WarmUp awaitWarmedUp(long deadlineNanos) throws InterruptedException {
    while (!warmedUp.await(50, TimeUnit.MILLISECONDS)) {
      if (!process.isAlive()) {
        return warmedUp.getCount() == 0 ? WarmUp.DONE : WarmUp.EXITED;
      }
      if (System.nanoTime() - deadlineNanos >= 0) {
        return WarmUp.SILENT;
      }
    }
    return WarmUp.DONE;
  }

  /** Tells the child to measure; one that is gone already shows in its exit status instead. */
  void go() {
    try {
      OutputStream in = process.getOutputStream();
      in.write((ParentWatch.GO + "\n").getBytes(StandardCharsets.US_ASCII));
      in.flush();
    } catch (IOException e) {
      // a broken pipe: the child ended after it warmed up; waitFor() says how
    }
  }

  /** Waits for the child's exit and its last lines; its exit status. */
  int waitFor() throws InterruptedException {
    int status = process.waitFor();
    reader.join(5_000);
    return status;
  }

  /**
   * Ends the child's stdin (it ends itself: its parent is done), then kills it if it still runs.
   */
  @Override
  public void close() {
    try {
      process.getOutputStream().close();
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        kill();
      }
    } catch (IOException e) {
      kill();
    } catch (InterruptedException e) {
      kill();
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Kills the child (SIGKILL, which ends a stopped process too) and whatever it started, and waits
   * up to 5 s for it to be gone.
   */
  void kill() {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    try {
      process.waitFor(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
