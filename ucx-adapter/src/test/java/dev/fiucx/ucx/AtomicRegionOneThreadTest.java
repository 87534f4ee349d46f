package dev.fiucx.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.AtomicRegion;
import dev.fiucx.Connection;
import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.conformance.remote.JavaCommand;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * AtomicRegion's one-thread rule, with a call held open for certain: the serve runs in a child JVM
 * over tcp (software atomics, which only the serve's progress carries out) and is frozen with
 * SIGSTOP, so a first thread's fetchAddLong waits for its completion for as long as the test likes.
 */
@RequiresUcx
class AtomicRegionOneThreadTest {
  /** The bound on every wait: a child JVM's start, a signal taking effect, a call's completion. */
  private static final long WAIT_SECONDS = 30;

  @Test
  void aSecondThreadGetsEbusyWhileAFirstWaitsAndCallsOnceItIsDone() throws Exception {
    Process child =
        new ProcessBuilder(JavaCommand.of(List.of(), ServingProcess.class, "tcp"))
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    Connection connection = null;
    AtomicRegion cells = null;
    Thread first = null;
    ExecutorService second = Executors.newSingleThreadExecutor(r -> new Thread(r, "second caller"));
    try {
      BufferedReader out =
          new BufferedReader(
              new InputStreamReader(child.getInputStream(), StandardCharsets.US_ASCII));
      String line = out.readLine();
      assertTrue(line != null && line.startsWith("PORT "), "child said: " + line);
      connection =
          Fabric.connect(
              "127.0.0.1:" + line.substring(5),
              new DomainAttr("tcp", DomainAttr.Progress.AUTO, false, Map.of()));
      cells = connection.openAtomicRegion("cells");
      // the key resolved and the peer reached while the serve still answers
      assertEquals(0, cells.fetchAddLong(0, 40));

      signal("STOP", child.pid());
      awaitStopped(child.pid());
      AtomicRegion region = cells;
      CompletableFuture<Long> firstCall = new CompletableFuture<>();
      first =
          Thread.ofPlatform()
              .name("first caller")
              .start(
                  () -> {
                    try {
                      firstCall.complete(region.fetchAddLong(0, 2));
                    } catch (Throwable e) {
                      firstCall.completeExceptionally(e);
                    }
                  });
      awaitWaitingForCompletion(first);

      // the second thread's call must be refused at once; were it let in, it would wait on the
      // frozen serve too, and the bounded get would fail the test
      Future<Long> refused = second.submit(() -> region.fetchAddLong(0, 1000));
      ExecutionException thrown =
          assertThrows(ExecutionException.class, () -> refused.get(WAIT_SECONDS, TimeUnit.SECONDS));
      FiException busy = assertInstanceOf(FiException.class, thrown.getCause());
      assertEquals(FiErrno.EBUSY, busy.errno(), busy.getMessage());
      assertFalse(firstCall.isDone(), "the frozen serve answered nothing");

      signal("CONT", child.pid());
      assertEquals(40, firstCall.get(WAIT_SECONDS, TimeUnit.SECONDS));
      // the refused call added nothing: the first call's 2 is all that came after the 40
      assertEquals(
          42, second.submit(() -> region.fetchAddLong(0, 7)).get(WAIT_SECONDS, TimeUnit.SECONDS));
      assertEquals(49, cells.getLong(0));
    } finally {
      // killing the serve fails a call still waiting on it, so the region can close
      child.destroyForcibly();
      second.shutdownNow();
      child.waitFor(WAIT_SECONDS, TimeUnit.SECONDS);
      if (first != null) {
        first.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
      }
      second.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS);
      if ((first == null || !first.isAlive()) && second.isTerminated()) {
        if (cells != null) {
          cells.close();
        }
        if (connection != null) {
          connection.close();
        }
      }
    }
  }

  /**
   * Waits until {@code caller} is inside its call's wait for the completion: past the guard and the
   * post, so any other thread's call now meets the guard taken.
   */
  private static void awaitWaitingForCompletion(Thread caller) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (Arrays.stream(caller.getStackTrace())
        .noneMatch(
            f ->
                f.getClassName().equals("dev.fiucx.BlockingCalls")
                    && f.getMethodName().equals("awaitCompletion"))) {
      assertTrue(caller.isAlive(), "the first call ended while the serve was frozen");
      assertTrue(System.nanoTime() - deadline < 0, "the first call never waited");
      Thread.sleep(1);
    }
  }

  /** kill returns once the signal is queued: waits until every thread of the child is stopped. */
  private static void awaitStopped(long pid) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    Path tasks = Path.of("/proc", Long.toString(pid), "task");
    while (true) {
      boolean all;
      try (var threads = Files.list(tasks)) {
        all =
            threads.allMatch(
                t -> {
                  try {
                    String stat = Files.readString(t.resolve("stat"));
                    char state = stat.charAt(stat.lastIndexOf(')') + 2); // after "(comm) "
                    return state == 'T' || state == 't';
                  } catch (java.io.IOException e) {
                    return true; // the thread is gone
                  }
                });
      }
      if (all) {
        return;
      }
      assertTrue(System.nanoTime() - deadline < 0, "the child did not stop");
      Thread.sleep(1);
    }
  }

  private static void signal(String signal, long pid) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start();
    assertTrue(kill.waitFor(WAIT_SECONDS, TimeUnit.SECONDS), "kill did not return");
    assertEquals(0, kill.exitValue());
  }
}
