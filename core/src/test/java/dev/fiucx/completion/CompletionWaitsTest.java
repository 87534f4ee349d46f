package dev.fiucx.completion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.validation.CallGuard;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Blocking reads with any timeout, and reads with bad arguments: errnos, never exceptions. */
class CompletionWaitsTest {
  private static CqEntry[] entries(int n) {
    CqEntry[] e = new CqEntry[n];
    for (int i = 0; i < n; i++) {
      e[i] = new CqEntry();
    }
    return e;
  }

  /**
   * A ring whose progress writes one completion on its {@code n}th call: a waiting reader gets it
   * only by waiting that long.
   */
  private static CompletionRing completingOnProgress(int n, Object context) {
    AtomicInteger calls = new AtomicInteger();
    CompletionRing[] ring = new CompletionRing[1];
    ring[0] =
        new CompletionRing(
            4,
            () -> {
              if (calls.incrementAndGet() == n) {
                ring[0].completeFromProgress(context, FiFlags.ATOMIC, 0);
                return 1;
              }
              return 0;
            },
            CompletionRing.Producers.ONE_THREAD);
    ring[0].reserve();
    return ring[0];
  }

  @Test
  void hugeTimeoutsWaitInsteadOfOverflowing() {
    for (long timeout : new long[] {Long.MAX_VALUE, Long.MAX_VALUE / 1_000_000 + 1, -1, -5}) {
      CompletionRing cq = completingOnProgress(10_000, "late");
      CqEntry[] out = entries(1);
      assertEquals(1, cq.sread(out, 1, timeout), "timeout " + timeout);
      assertSame("late", out[0].opContext);
    }
  }

  @Test
  void aZeroTimeoutReadsOnceAndReturnsAtOnce() {
    CompletionRing cq = completingOnProgress(1_000_000, "never");
    assertEquals(-FiErrno.EAGAIN, cq.sread(entries(1), 1, 0));
  }

  @Test
  void badArgumentsAreInvalidAndAClosedQueueIsInTheWrongState() {
    CompletionRing cq = new CompletionRing(4, () -> 0, CompletionRing.Producers.ONE_THREAD);
    assertEquals(-FiErrno.EINVAL, cq.read(null, 1));
    assertEquals(-FiErrno.EINVAL, cq.read(entries(1), -1));
    assertEquals(-FiErrno.EINVAL, cq.read(new CqEntry[2], 2));
    assertEquals(-FiErrno.EINVAL, cq.sread(null, 1, Long.MAX_VALUE));
    assertEquals(-FiErrno.EINVAL, cq.readErr(null));
    // an entry stays in the queue when the array has no room for it
    cq.reserve();
    cq.complete("kept", FiFlags.ATOMIC, 0);
    CqEntry[] gap = {new CqEntry(), null};
    assertEquals(-FiErrno.EAGAIN, cq.read(gap, 0));
    assertEquals(1, cq.read(gap, 2));
    assertSame("kept", gap[0].opContext);
    cq.close();
    assertEquals(-FiErrno.EOPBADSTATE, cq.read(entries(1), 1));
    assertEquals(-FiErrno.EOPBADSTATE, cq.sread(entries(1), 1, Long.MAX_VALUE));
    assertEquals(-FiErrno.EOPBADSTATE, cq.readErr(new CqErrEntry()));
  }

  @Test
  void aGuardedQueueRefusesAReaderWhileAnotherThreadIsInside() throws Exception {
    CallGuard guard = CallGuard.refusing();
    CompletionRing cq = new CompletionRing(4, () -> 0, CompletionRing.Producers.ONE_THREAD, guard);
    assertEquals(0, guard.enter()); // another thread posts on the domain
    int rc = CompletableFuture.supplyAsync(() -> cq.read(entries(1), 1)).get(5, TimeUnit.SECONDS);
    assertEquals(-FiErrno.EBUSY, rc);
    guard.exit();
    assertEquals(-FiErrno.EAGAIN, cq.read(entries(1), 1));
  }

  @Test
  void aCounterWaitsWithAnyTimeoutAndRefusesOnceClosed() {
    for (long timeout : new long[] {Long.MAX_VALUE, -1}) {
      AtomicInteger calls = new AtomicInteger();
      CompletionCounter[] c = new CompletionCounter[1];
      c[0] =
          new CompletionCounter(
              () -> {
                if (calls.incrementAndGet() == 10_000) {
                  c[0].increment();
                  return 1;
                }
                return 0;
              });
      assertEquals(0, c[0].waitFor(1, timeout), "timeout " + timeout);
      assertEquals(1, c[0].read());
    }
    CompletionCounter closed = new CompletionCounter(() -> 0);
    closed.close();
    assertEquals(-FiErrno.EOPBADSTATE, closed.waitFor(1, Long.MAX_VALUE));
    assertFalse(closed.read() != 0);
  }
}
