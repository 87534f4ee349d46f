package dev.fiucx.completion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.spi.TransportPeer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every case runs on a concurrent instance and on a single-threaded one: they must agree. */
class PendingOperationsTest {
  private final CompletionCounter counter = new CompletionCounter(() -> 0);
  private final CqEntry[] out = {new CqEntry()};

  @ParameterizedTest(name = "concurrent={0}")
  @ValueSource(booleans = {true, false})
  void anOperationCompletesOnceItsLastElementAndItsGuardAreDone(boolean concurrent) {
    CompletionRing cq = new CompletionRing(8, () -> 0, concurrent);
    PendingOperations p = new PendingOperations(4, concurrent);
    cq.reserve();
    int slot = p.open("ctx", cq, true, counter, FiFlags.ATOMIC | FiFlags.READ, 3, true, null);
    p.completed(slot, 0); // a pending element may complete before posting is over
    p.posted(slot, 3, 2);
    assertEquals(-FiErrno.EAGAIN, cq.read(out, 1), "one element still pending");
    assertEquals(1, p.inFlight());
    p.completed(slot, 0);
    assertEquals(1, cq.read(out, 1));
    assertSame("ctx", out[0].opContext);
    assertEquals(FiFlags.ATOMIC | FiFlags.READ, out[0].flags);
    assertEquals(1, counter.read());
    assertEquals(0, p.inFlight());
  }

  @ParameterizedTest(name = "concurrent={0}")
  @ValueSource(booleans = {true, false})
  void theFirstFailureBecomesTheErrorEntryEvenWithoutACompletion(boolean concurrent) {
    CompletionRing cq = new CompletionRing(8, () -> 0, concurrent);
    PendingOperations p = new PendingOperations(4, concurrent);
    int slot = p.open("quiet", cq, false, counter, FiFlags.ATOMIC | FiFlags.WRITE, 2, true, null);
    p.posted(slot, 2, 2);
    p.completed(slot, -FiErrno.ECONNRESET);
    p.completed(slot, -FiErrno.EIO);
    assertEquals(-FiErrno.EAVAIL, cq.read(out, 1));
    CqErrEntry e = new CqErrEntry();
    assertEquals(1, cq.readErr(e));
    assertSame("quiet", e.opContext);
    assertEquals(FiErrno.ECONNRESET, e.err);
    assertEquals(0, counter.read());
    assertEquals(1, counter.readErr());
  }

  @ParameterizedTest(name = "concurrent={0}")
  @ValueSource(booleans = {true, false})
  void anOperationWhoseElementsAllCompletedAtOnceFinishesWhenPosted(boolean concurrent) {
    CompletionRing cq = new CompletionRing(8, () -> 0, concurrent);
    PendingOperations p = new PendingOperations(4, concurrent);
    cq.reserve();
    int slot = p.open("now", cq, true, counter, FiFlags.ATOMIC | FiFlags.WRITE, 2, true, null);
    p.posted(slot, 2, 0);
    assertEquals(1, cq.read(out, 1));
    assertSame("now", out[0].opContext);
    assertEquals(0, p.inFlight());
  }

  @ParameterizedTest(name = "concurrent={0}")
  @ValueSource(booleans = {true, false})
  void aSingleElementDoneAtOnceFinishesWhenPostedAndOnlyThen(boolean concurrent) {
    CompletionRing cq = new CompletionRing(8, () -> 0, concurrent);
    PendingOperations p = new PendingOperations(4, concurrent);
    cq.reserve();
    int slot = p.open("one", cq, true, counter, FiFlags.ATOMIC | FiFlags.READ, 1, true, null);
    assertEquals(-FiErrno.EAGAIN, cq.read(out, 1));
    p.posted(slot, 1, 0);
    assertEquals(1, cq.read(out, 1));
    assertSame("one", out[0].opContext);
    assertEquals(-FiErrno.EAGAIN, cq.read(out, 1), "exactly one completion");
    assertEquals(0, p.inFlight());
    assertEquals(1, counter.read());
  }

  @ParameterizedTest(name = "concurrent={0}")
  @ValueSource(booleans = {true, false})
  void aSingleElementLeftPendingFinishesWhenItCompletesEvenBeforePostedReturns(boolean concurrent) {
    CompletionRing cq = new CompletionRing(8, () -> 0, concurrent);
    PendingOperations p = new PendingOperations(4, concurrent);
    cq.reserve();
    int slot = p.open("later", cq, true, counter, FiFlags.ATOMIC | FiFlags.READ, 1, true, null);
    p.completed(slot, 0); // the progress thread may report it before the poster says "posted"
    p.posted(slot, 1, 1);
    assertEquals(1, cq.read(out, 1));
    assertSame("later", out[0].opContext);
    assertEquals(-FiErrno.EAGAIN, cq.read(out, 1), "exactly one completion");
    assertEquals(0, p.inFlight());
  }

  @ParameterizedTest(name = "concurrent={0}")
  @ValueSource(booleans = {true, false})
  void slotsRunOutAndComeBack(boolean concurrent) {
    PendingOperations p = new PendingOperations(2, concurrent);
    int a = p.open(null, null, false, null, 0, 2, true, null);
    int b = p.open(null, null, false, null, 0, 2, true, null);
    assertEquals(-FiErrno.EAGAIN, p.open(null, null, false, null, 0, 2, true, null));
    p.posted(a, 2, 0);
    assertEquals(a, p.open(null, null, false, null, 0, 2, true, null));
    p.cancel(b);
    assertEquals(1, p.inFlight());
  }

  @org.junit.jupiter.api.Test
  void aSingleThreadedPosterOpensASlotOnlyWhenItsElementWentPending() {
    CompletionRing cq = new CompletionRing(8, () -> 0, false);
    PendingOperations p = new PendingOperations(2, false);
    int first = p.peek();
    assertEquals(first, p.peek(), "peeking takes nothing");
    assertEquals(0, p.inFlight());
    cq.reserve();
    p.openAt(first, "pending", cq, true, counter, FiFlags.ATOMIC | FiFlags.READ, null, true, null);
    assertEquals(1, p.inFlight());
    int second = p.peek();
    assertEquals(1 - first, second, "the next free slot");
    p.completed(first, 0);
    assertEquals(1, cq.read(out, 1));
    assertSame("pending", out[0].opContext);
    assertEquals(0, p.inFlight());
    p.openAt(first, null, null, false, null, 0, null, true, null);
    p.openAt(second, null, null, false, null, 0, null, true, null);
    assertEquals(-FiErrno.EAGAIN, p.peek(), "every slot in flight");
  }

  @org.junit.jupiter.api.Test
  void aCompletionThatComesBeforeItsSlotIsOpenedIsFinishedByTheOpen() {
    CompletionRing cq = new CompletionRing(8, () -> 0, CompletionRing.Producers.ONE_POSTER);
    PendingOperations p = new PendingOperations(4, true);
    cq.reserve();
    int slot = p.peek();
    p.completed(slot, -FiErrno.ECONNRESET); // another thread's progress, before openAt
    assertEquals(1, p.inFlight(), "completed early, not finished");
    assertEquals(-FiErrno.EAGAIN, cq.read(out, 1), "nothing yet");
    p.openAt(slot, "early", cq, true, counter, FiFlags.ATOMIC | FiFlags.READ, null, true, null);
    assertEquals(0, p.inFlight());
    assertEquals(-FiErrno.EAVAIL, cq.read(out, 1));
    CqErrEntry e = new CqErrEntry();
    assertEquals(1, cq.readErr(e));
    assertSame("early", e.opContext);
    assertEquals(FiErrno.ECONNRESET, e.err);
    // the slot comes back clean: its next use succeeds
    cq.reserve();
    int again = p.peek();
    p.openAt(again, "next", cq, true, counter, FiFlags.ATOMIC | FiFlags.READ, null, true, null);
    p.completed(again, 0);
    assertEquals(1, cq.read(out, 1));
    assertSame("next", out[0].opContext);
  }

  @org.junit.jupiter.api.Test
  void earlyCompletionsRacingTheirOpensEachFinishOnce() throws Exception {
    CompletionRing cq = new CompletionRing(1024, () -> 0, CompletionRing.Producers.ONE_POSTER);
    PendingOperations p = new PendingOperations(64, true);
    int calls = 100_000;
    java.util.concurrent.ArrayBlockingQueue<Integer> posted =
        new java.util.concurrent.ArrayBlockingQueue<>(64);
    Thread progress =
        new Thread(
            () -> {
              for (int i = 0; i < calls; i++) {
                try {
                  p.completed(posted.take(), 0);
                } catch (InterruptedException e) {
                  return;
                }
              }
            });
    progress.start();
    CqEntry[] batch = new CqEntry[64];
    for (int i = 0; i < batch.length; i++) {
      batch[i] = new CqEntry();
    }
    long seen = 0;
    long sum = 0;
    for (int i = 0; i < calls; i++) {
      while (!cq.reserve()) { // the queue is full: read
        int n = cq.read(batch, 64);
        for (int k = 0; k < n; k++) {
          sum += (Integer) batch[k].opContext;
        }
        seen += Math.max(0, n);
      }
      int slot;
      while ((slot = p.peek()) < 0) { // every slot in flight: wait for the other thread
        Thread.onSpinWait();
      }
      posted.put(slot); // "pending": the other thread may complete it before openAt
      p.openAt(slot, i, cq, true, null, 0, null, true, null);
    }
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (seen < calls) {
      assertTrue(System.nanoTime() < deadline, "only " + seen + " completions");
      int n = cq.read(batch, 64);
      for (int k = 0; k < n; k++) {
        sum += (Integer) batch[k].opContext;
      }
      seen += Math.max(0, n);
    }
    progress.join();
    assertEquals(calls, seen);
    assertEquals((long) calls * (calls - 1) / 2, sum, "every call's completion exactly once");
    assertEquals(0, p.inFlight());
  }

  /** Ends one slot as the arguments say and returns its error entry. */
  private static CqErrEntry errorOf(
      boolean concurrent,
      boolean writes,
      java.util.function.ObjIntConsumer<PendingOperations> end) {
    CompletionRing cq = new CompletionRing(8, () -> 0, concurrent);
    PendingOperations p = new PendingOperations(4, concurrent);
    cq.reserve();
    int slot = p.open("op", cq, true, null, FiFlags.ATOMIC | FiFlags.WRITE, 2, writes, null);
    end.accept(p, slot);
    CqErrEntry e = new CqErrEntry();
    assertEquals(1, cq.readErr(e));
    assertEquals(0, p.inFlight());
    return e;
  }

  @ParameterizedTest(name = "concurrent={0}")
  @ValueSource(booleans = {true, false})
  void aNativeElementThatFailedAfterLeavingIsUncertainUnlessTheOpOnlyReads(boolean concurrent) {
    java.util.function.ObjIntConsumer<PendingOperations> failedAfterPost =
        (p, slot) -> {
          p.posted(slot, 2, 2);
          p.completed(slot, 0);
          p.completed(slot, -FiErrno.ECONNRESET);
        };
    CqErrEntry writing = errorOf(concurrent, true, failedAfterPost);
    assertEquals(FiErrno.ECONNRESET, writing.err);
    assertTrue(writing.uncertain, "a request that left may have been applied");
    CqErrEntry reading = errorOf(concurrent, false, failedAfterPost);
    assertEquals(FiErrno.ECONNRESET, reading.err);
    assertEquals(false, reading.uncertain, "FI_ATOMIC_READ changes nothing");
  }

  @ParameterizedTest(name = "concurrent={0}")
  @ValueSource(booleans = {true, false})
  void anEmulatedElementSaysWhetherItsFailedStepMayHaveApplied(boolean concurrent) {
    CqErrEntry before =
        errorOf(
            concurrent,
            true,
            (p, slot) -> {
              p.posted(slot, 2, 2);
              p.completed(slot, -FiErrno.ECONNRESET, false);
              p.completed(slot, 0, false);
            });
    assertEquals(FiErrno.ECONNRESET, before.err);
    assertEquals(false, before.uncertain, "a failed read or lock step left the target untouched");
    CqErrEntry during =
        errorOf(
            concurrent,
            true,
            (p, slot) -> {
              p.posted(slot, 2, 2);
              p.completed(slot, -FiErrno.ECONNRESET, false);
              p.completed(slot, -FiErrno.ECONNRESET, true);
            });
    assertTrue(during.uncertain, "one element's swap or put may have applied");
  }

  @ParameterizedTest(name = "concurrent={0}")
  @ValueSource(booleans = {true, false})
  void aVectorCutShortAfterPostingIsUncertainAndOneRefusedAtItsFirstElementIsNot(
      boolean concurrent) {
    CqErrEntry cut =
        errorOf(
            concurrent,
            true,
            (p, slot) -> {
              p.failAfterPosting(slot, -FiErrno.ECONNRESET); // element 2 refused, 1 posted
              p.posted(slot, 2, 1);
              p.completed(slot, 0);
            });
    assertEquals(FiErrno.ECONNRESET, cut.err);
    assertTrue(cut.uncertain, "its first element was applied");
    CqErrEntry refused =
        errorOf(
            concurrent,
            true,
            (p, slot) -> {
              p.fail(slot, -FiErrno.EKEYREJECTED);
              p.posted(slot, 2, 0);
            });
    assertEquals(false, refused.uncertain);
  }

  @ParameterizedTest(name = "concurrent={0}")
  @ValueSource(booleans = {true, false})
  void aSlotReusedAfterAnUncertainFailureStartsCertain(boolean concurrent) {
    CompletionRing cq = new CompletionRing(8, () -> 0, concurrent);
    PendingOperations p = new PendingOperations(2, concurrent);
    for (int round = 0; round < 2; round++) {
      cq.reserve();
      int slot = p.open(round, cq, true, null, FiFlags.ATOMIC | FiFlags.WRITE, 1, true, null);
      p.posted(slot, 1, 1);
      p.completed(slot, round == 0 ? -FiErrno.ECONNRESET : -FiErrno.EKEYREJECTED, round == 0);
      CqErrEntry e = new CqErrEntry();
      assertEquals(1, cq.readErr(e));
      assertEquals(round == 0, e.uncertain, "round " + round);
    }
    assertEquals(1, p.counts().uncertain());
  }

  @ParameterizedTest(name = "concurrent={0}")
  @ValueSource(booleans = {true, false})
  void aLateOperationNamesItsPeerOnceAndEveryOperationToItEndsTimedOut(boolean concurrent) {
    CompletionRing cq = new CompletionRing(8, () -> 0, concurrent);
    PendingOperations p = new PendingOperations(4, concurrent);
    TransportPeer late = new NamedPeer();
    TransportPeer other = new NamedPeer();
    int now = OperationClock.ticks();
    cq.reserve();
    int old = p.open("old", cq, true, counter, FiFlags.ATOMIC | FiFlags.WRITE, 1, true, late);
    p.posted(old, 1, 1);
    cq.reserve();
    int read = p.open("read", cq, true, counter, FiFlags.ATOMIC | FiFlags.READ, 1, false, late);
    p.posted(read, 1, 1);
    cq.reserve();
    int elsewhere =
        p.open("elsewhere", cq, true, counter, FiFlags.ATOMIC | FiFlags.WRITE, 1, true, other);
    p.posted(elsewhere, 1, 1);
    assertEquals(null, p.overdue(now + 5, 10), "nothing is late yet");
    assertSame(late, p.overdue(now + 11, 10));
    assertSame(other, p.overdue(now + 11, 10), "the other peer's op is as late");
    assertEquals(null, p.overdue(now + 12, 10), "each named once");
    // abandoning the peer ends what it held: one op's answer came just in time, one was cancelled
    p.completed(old, 0);
    p.completed(read, -FiErrno.ECANCELED);
    CqErrEntry e = new CqErrEntry();
    assertEquals(1, cq.readErr(e));
    assertEquals("old", e.opContext);
    assertEquals(FiErrno.ETIMEDOUT, e.err);
    assertTrue(e.uncertain, "it applied, as uncertain allows");
    assertEquals(1, cq.readErr(e));
    assertEquals("read", e.opContext);
    assertEquals(FiErrno.ETIMEDOUT, e.err);
    assertEquals(false, e.uncertain, "a read changes nothing");
    p.completed(elsewhere, -FiErrno.ECANCELED);
    assertEquals(1, cq.readErr(e));
    assertEquals("elsewhere", e.opContext);
    assertEquals(FiErrno.ETIMEDOUT, e.err);
    assertTrue(e.uncertain, "a native request cancelled after it left");
    assertEquals(0, p.inFlight());
  }

  /** A peer only told apart from another: {@link PendingOperations#overdue} compares references. */
  private static final class NamedPeer implements TransportPeer {
    @Override
    public dev.fiucx.spi.RemoteRegion cached(long key) {
      return null;
    }

    @Override
    public int resolve(long key) {
      return -FiErrno.ENOENT;
    }

    @Override
    public int postAtomic(
        dev.fiucx.spi.RemoteRegion remote,
        long offset,
        dev.fiucx.spi.RemoteAtomicOp op,
        int size,
        long value,
        long resultAddress,
        long token) {
      return -FiErrno.EIO;
    }

    @Override
    public int postCompareSwap(
        dev.fiucx.spi.RemoteRegion remote,
        long offset,
        int size,
        long compare,
        long swap,
        long resultAddress,
        long token) {
      return -FiErrno.EIO;
    }

    @Override
    public int postGet(
        dev.fiucx.spi.RemoteRegion remote, long offset, int length, long localAddress, long t) {
      return -FiErrno.EIO;
    }

    @Override
    public int postPut(
        dev.fiucx.spi.RemoteRegion remote, long offset, int length, long localAddress, long t) {
      return -FiErrno.EIO;
    }

    @Override
    public void abandon(int errno, String why) {}

    @Override
    public boolean failed() {
      return false;
    }

    @Override
    public void close() {}
  }
}
