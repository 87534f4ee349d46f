package dev.fiucx.completion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
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
    int slot = p.open("ctx", cq, true, counter, FiFlags.ATOMIC | FiFlags.READ, 3);
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
    int slot = p.open("quiet", cq, false, counter, FiFlags.ATOMIC | FiFlags.WRITE, 2);
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
    int slot = p.open("now", cq, true, counter, FiFlags.ATOMIC | FiFlags.WRITE, 2);
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
    int slot = p.open("one", cq, true, counter, FiFlags.ATOMIC | FiFlags.READ, 1);
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
    int slot = p.open("later", cq, true, counter, FiFlags.ATOMIC | FiFlags.READ, 1);
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
    int a = p.open(null, null, false, null, 0, 2);
    int b = p.open(null, null, false, null, 0, 2);
    assertEquals(-FiErrno.EAGAIN, p.open(null, null, false, null, 0, 2));
    p.posted(a, 2, 0);
    assertEquals(a, p.open(null, null, false, null, 0, 2));
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
    p.openAt(first, "pending", cq, true, counter, FiFlags.ATOMIC | FiFlags.READ);
    assertEquals(1, p.inFlight());
    int second = p.peek();
    assertEquals(1 - first, second, "the next free slot");
    p.completed(first, 0);
    assertEquals(1, cq.read(out, 1));
    assertSame("pending", out[0].opContext);
    assertEquals(0, p.inFlight());
    p.openAt(first, null, null, false, null, 0);
    p.openAt(second, null, null, false, null, 0);
    assertEquals(-FiErrno.EAGAIN, p.peek(), "every slot in flight");
  }
}
