package dev.fiucx.completion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import java.lang.ref.WeakReference;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CompletionRingTest {
  private static CqEntry[] entries(int n) {
    CqEntry[] e = new CqEntry[n];
    for (int i = 0; i < n; i++) {
      e[i] = new CqEntry();
    }
    return e;
  }

  @Test
  void completionsComeOutInOrderWithTheirContexts() {
    CompletionRing cq = new CompletionRing(4, () -> 0);
    Object a = "a";
    Object b = "b";
    assertTrue(cq.reserve());
    assertTrue(cq.reserve());
    cq.complete(a, FiFlags.ATOMIC | FiFlags.READ, 8);
    cq.complete(b, FiFlags.ATOMIC | FiFlags.WRITE, 16);
    CqEntry[] out = entries(4);
    assertEquals(2, cq.read(out, 4));
    assertSame(a, out[0].opContext);
    assertEquals(FiFlags.ATOMIC | FiFlags.READ, out[0].flags);
    assertEquals(8, out[0].len);
    assertSame(b, out[1].opContext);
    assertEquals(16, out[1].len);
    assertEquals(-FiErrno.EAGAIN, cq.read(out, 4));
  }

  @Test
  void reservationsNeverExceedTheCapacityAndReadsFreeThem() {
    CompletionRing cq = new CompletionRing(3, () -> 0); // rounds up to 4
    for (int i = 0; i < 4; i++) {
      assertTrue(cq.reserve());
    }
    assertFalse(cq.reserve());
    cq.complete(1, 0, 0);
    assertFalse(cq.reserve());
    assertEquals(1, cq.read(entries(1), 1));
    assertTrue(cq.reserve());
    cq.release();
    assertTrue(cq.reserve());
  }

  @Test
  void oneEntryReadsOfAOneThreadQueueComeInOrderFreeTheirRoomAndProgressEvery64th() {
    AtomicInteger progressed = new AtomicInteger();
    CompletionRing cq =
        new CompletionRing(
            4, () -> progressed.incrementAndGet(), CompletionRing.Producers.ONE_THREAD);
    CqEntry[] one = entries(1);
    for (int i = 0; i < 200; i++) {
      assertTrue(cq.reserve());
      assertTrue(cq.reserve());
      cq.complete("call " + i, FiFlags.ATOMIC | FiFlags.READ, i);
      cq.complete(null, FiFlags.ATOMIC | FiFlags.WRITE, 0);
      assertEquals(1, cq.read(one, 1));
      assertEquals("call " + i, one[0].opContext);
      assertEquals(FiFlags.ATOMIC | FiFlags.READ, one[0].flags);
      assertEquals(i, one[0].len);
      assertEquals(1, cq.read(one, 1));
      assertEquals(null, one[0].opContext);
      assertEquals(FiFlags.ATOMIC | FiFlags.WRITE, one[0].flags);
      assertEquals(0, one[0].len);
    }
    // 400 reads, each finding an entry: the 64th, 128th, ... 384th progressed all the same
    assertEquals(6, progressed.get());
    for (int i = 0; i < 4; i++) {
      assertTrue(cq.reserve(), "every read gave its room back");
    }
    assertFalse(cq.reserve());
    assertEquals(-FiErrno.EAGAIN, cq.read(new CqEntry[0], 1), "no entry to fill: nothing taken");
  }

  @Test
  void aReadEntryLeavesNoReferenceToItsContextInTheQueue() throws InterruptedException {
    for (CompletionRing.Producers p : CompletionRing.Producers.values()) {
      CompletionRing cq = new CompletionRing(4, () -> 0, p);
      WeakReference<Object> context = completeAndReadOne(cq, 1);
      WeakReference<Object> second = completeAndReadOne(cq, 4);
      for (int i = 0; i < 50 && (context.get() != null || second.get() != null); i++) {
        System.gc();
        Thread.sleep(10);
      }
      assertNull(context.get(), p + ": one-entry read");
      assertNull(second.get(), p + ": read of up to four");
      assertFalse(cq.isClosed()); // the queue itself is still reachable here
    }
  }

  /** Completes one call with a fresh context and reads it with room for {@code max}. */
  private static WeakReference<Object> completeAndReadOne(CompletionRing cq, int max) {
    Object context = new Object();
    assertTrue(cq.reserve());
    cq.complete(context, FiFlags.ATOMIC | FiFlags.READ, 8);
    CqEntry[] out = entries(max);
    assertEquals(1, cq.read(out, max));
    assertSame(context, out[0].opContext);
    return new WeakReference<>(context);
  }

  @Test
  void anErrorIsSignalledByEavailAndReadWithReadErr() {
    CompletionRing cq = new CompletionRing(4, () -> 0);
    assertTrue(cq.reserve());
    CqErrEntry err = new CqErrEntry();
    err.opContext = "ctx";
    err.err = FiErrno.ECONNRESET;
    err.errData = "peer went away";
    cq.fail(err);
    assertEquals(-FiErrno.EAVAIL, cq.read(entries(1), 1));
    CqErrEntry got = new CqErrEntry();
    assertEquals(1, cq.readErr(got));
    assertEquals("ctx", got.opContext);
    assertEquals(FiErrno.ECONNRESET, got.err);
    assertEquals("peer went away", got.errData);
    assertEquals(-FiErrno.EAGAIN, cq.readErr(got));
    assertEquals(-FiErrno.EAGAIN, cq.read(entries(1), 1));
  }

  @Test
  void anEmptyReadProgressesAndSreadTimesOut() {
    AtomicInteger calls = new AtomicInteger();
    CompletionRing cq = new CompletionRing(4, calls::incrementAndGet);
    assertEquals(-FiErrno.EAGAIN, cq.read(entries(1), 1));
    assertEquals(1, calls.get());
    assertEquals(-FiErrno.EAGAIN, cq.sread(entries(1), 1, 20));
    assertTrue(calls.get() > 1);
  }

  @Test
  void aProgressCallThatCompletesIsSeenBySread() {
    CompletionRing[] self = new CompletionRing[1];
    self[0] =
        new CompletionRing(
            4,
            () -> {
              self[0].complete("late", 0, 4);
              return 1;
            });
    assertTrue(self[0].reserve());
    CqEntry[] out = entries(1);
    assertEquals(1, self[0].sread(out, 1, 1000));
    assertEquals("late", out[0].opContext);
  }

  @Test
  void counterWaitsProgressesAndReportsErrors() {
    CompletionCounter[] self = new CompletionCounter[1];
    AtomicInteger ticks = new AtomicInteger();
    self[0] =
        new CompletionCounter(
            () -> {
              if (ticks.incrementAndGet() <= 3) {
                self[0].increment();
              }
              return 1;
            });
    assertEquals(0, self[0].waitFor(3, 1000));
    assertEquals(3, self[0].read());
    assertEquals(-FiErrno.ETIMEDOUT, self[0].waitFor(4, 20));
    self[0].add(10);
    assertEquals(13, self[0].read());
    self[0].set(0);
    assertEquals(0, self[0].read());
    self[0].incrementErrors();
    assertEquals(1, self[0].readErr());
  }

  @Test
  void twoProducersLoseNothingAndTheReaderSeesWholeEntries() throws Exception {
    CompletionRing cq = new CompletionRing(1024, () -> 0);
    int perProducer = 100_000;
    Runnable produce =
        () -> {
          for (int i = 0; i < perProducer; i++) {
            while (!cq.reserve()) {
              Thread.onSpinWait();
            }
            long v = ((long) Thread.currentThread().threadId() << 32) | i;
            cq.complete(v, v, v);
          }
        };
    Thread a = new Thread(produce);
    Thread b = new Thread(produce);
    a.start();
    b.start();
    CqEntry[] out = entries(64);
    java.util.Map<Long, Integer> next = new java.util.HashMap<>();
    int seen = 0;
    while (seen < 2 * perProducer) {
      int n = cq.read(out, 64);
      for (int k = 0; k < n; k++) {
        long v = (Long) out[k].opContext;
        assertEquals(v, out[k].flags);
        assertEquals(v, out[k].len);
        int expected = next.getOrDefault(v >>> 32, 0);
        assertEquals(expected, (int) v, "each producer's entries arrive in its order");
        next.put(v >>> 32, expected + 1);
      }
      seen += Math.max(n, 0);
    }
    a.join();
    b.join();
    assertEquals(2, next.size());
  }

  /**
   * One posting endpoint beside a progress thread (automatic progress): the poster reserves for
   * both, writes its own completions, progress writes the rest, and the reader sees every entry
   * once, each writer's in its order, with the reservations coming back as it reads.
   */
  @Test
  void onePosterAndProgressLoseNothingAndReservationsComeBack() throws Exception {
    CompletionRing cq = new CompletionRing(256, () -> 0, CompletionRing.Producers.ONE_POSTER);
    int calls = 200_000;
    java.util.concurrent.ArrayBlockingQueue<Long> toProgress =
        new java.util.concurrent.ArrayBlockingQueue<>(1024);
    Thread poster =
        new Thread(
            () -> {
              for (long i = 0; i < calls; i++) {
                while (!cq.reserve()) {
                  Thread.onSpinWait();
                }
                if ((i & 1) == 0) {
                  cq.complete(i, i, i); // done at once, by the poster
                } else {
                  try {
                    toProgress.put(i); // pending: progress writes it later
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              }
            });
    Thread progress =
        new Thread(
            () -> {
              for (long n = 0; n < calls / 2; n++) {
                try {
                  long v = toProgress.take();
                  cq.completeFromProgress(v, v, v);
                } catch (InterruptedException e) {
                  return;
                }
              }
            });
    poster.start();
    progress.start();
    CqEntry[] out = entries(64);
    long nextEven = 0;
    long nextOdd = 1;
    int seen = 0;
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (seen < calls) {
      assertTrue(System.nanoTime() < deadline, "only " + seen + " entries within 30 s");
      int n = cq.read(out, 64);
      for (int k = 0; k < n; k++) {
        long v = (Long) out[k].opContext;
        assertEquals(v, out[k].flags);
        assertEquals(v, out[k].len);
        if ((v & 1) == 0) {
          assertEquals(nextEven, v, "the poster's entries in its order");
          nextEven += 2;
        } else {
          assertEquals(nextOdd, v, "progress's entries in its order");
          nextOdd += 2;
        }
      }
      seen += Math.max(n, 0);
    }
    poster.join();
    progress.join();
    for (int i = 0; i < 256; i++) {
      assertTrue(cq.reserve(), "every reservation came back: " + i);
    }
    assertFalse(cq.reserve(), "and no more than the queue holds");
  }

  @Test
  void aSecondEndpointMakesAnIdleOnePosterQueueShared() {
    CompletionRing cq = new CompletionRing(4, () -> 0, CompletionRing.Producers.ONE_POSTER);
    cq.bindEndpoint();
    assertEquals(CompletionRing.Producers.ONE_POSTER, cq.producers());
    assertTrue(cq.reserve());
    cq.complete("a", 0, 0);
    assertThrows(IllegalStateException.class, cq::bindEndpoint, "not while an entry is unread");
    assertEquals(1, cq.read(entries(1), 1));
    cq.bindEndpoint();
    assertEquals(CompletionRing.Producers.MANY, cq.producers());
    for (int i = 0; i < 4; i++) {
      assertTrue(cq.reserve());
    }
    assertFalse(cq.reserve());
  }

  @Test
  void anErrorFromProgressGivesItsReservationBack() {
    CompletionRing cq = new CompletionRing(2, () -> 0, CompletionRing.Producers.ONE_POSTER);
    assertTrue(cq.reserve());
    assertTrue(cq.reserve());
    assertFalse(cq.reserve());
    CqErrEntry err = new CqErrEntry();
    err.err = FiErrno.ECONNRESET;
    cq.failFromProgress(err);
    assertEquals(-FiErrno.EAVAIL, cq.read(entries(1), 1));
    assertTrue(cq.reserve(), "the failed operation's room is free again");
  }
}
