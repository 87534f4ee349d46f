package dev.fiucx.completion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import org.junit.jupiter.api.Test;

class PendingOperationsTest {
  private final CompletionRing cq = new CompletionRing(8, () -> 0);
  private final CompletionCounter counter = new CompletionCounter(() -> 0);
  private final CqEntry[] out = {new CqEntry()};

  @Test
  void anOperationCompletesOnceItsLastElementAndItsGuardAreDone() {
    PendingOperations p = new PendingOperations(4);
    cq.reserve();
    int slot = p.open("ctx", cq, true, counter, FiFlags.ATOMIC | FiFlags.READ);
    p.completed(slot, 0); // a pending element may complete before posting is over
    p.posted(slot, 2);
    assertEquals(-FiErrno.EAGAIN, cq.read(out, 1), "one element still pending");
    assertEquals(1, p.inFlight());
    p.completed(slot, 0);
    assertEquals(1, cq.read(out, 1));
    assertSame("ctx", out[0].opContext);
    assertEquals(FiFlags.ATOMIC | FiFlags.READ, out[0].flags);
    assertEquals(1, counter.read());
    assertEquals(0, p.inFlight());
  }

  @Test
  void theFirstFailureBecomesTheErrorEntryEvenWithoutACompletion() {
    PendingOperations p = new PendingOperations(4);
    int slot = p.open("quiet", cq, false, counter, FiFlags.ATOMIC | FiFlags.WRITE);
    p.posted(slot, 2);
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

  @Test
  void anOperationWhoseElementsAllCompletedAtOnceFinishesWhenPosted() {
    PendingOperations p = new PendingOperations(4);
    cq.reserve();
    int slot = p.open("now", cq, true, counter, FiFlags.ATOMIC | FiFlags.WRITE);
    p.posted(slot, 0);
    assertEquals(1, cq.read(out, 1));
    assertSame("now", out[0].opContext);
    assertEquals(0, p.inFlight());
  }

  @Test
  void slotsRunOutAndComeBack() {
    PendingOperations p = new PendingOperations(2);
    int a = p.open(null, null, false, null, 0);
    int b = p.open(null, null, false, null, 0);
    assertEquals(-FiErrno.EAGAIN, p.open(null, null, false, null, 0));
    p.posted(a, 0);
    assertEquals(a, p.open(null, null, false, null, 0));
    p.cancel(b);
    assertEquals(1, p.inFlight());
  }
}
