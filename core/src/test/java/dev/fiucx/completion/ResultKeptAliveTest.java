package dev.fiucx.completion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.fiucx.FiFlags;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.WeakReference;
import org.junit.jupiter.api.Test;

/**
 * A pending operation's result buffers stay reachable through its slot until it finishes, and no
 * longer: a segment of an automatic arena that the caller dropped is not freed while the transport
 * still writes into it by address.
 */
class ResultKeptAliveTest {
  /** Runs the collector until {@code ref} is cleared, at most ten times. */
  private static void collect(WeakReference<?> ref) {
    for (int i = 0; i < 10 && ref.get() != null; i++) {
      System.gc();
    }
  }

  private static WeakReference<MemorySegment> dropped(PendingOperations p, int slot, int index) {
    MemorySegment s = Arena.ofAuto().allocate(64, 8);
    p.keep(slot, index, s);
    return new WeakReference<>(s);
  }

  @Test
  void aSlotHoldsItsResultBuffersUntilItFinishes() {
    CompletionRing cq = new CompletionRing(8, () -> 0, true);
    PendingOperations p = new PendingOperations(4, true);
    cq.reserve();
    int slot = p.open("vector", cq, true, null, FiFlags.ATOMIC | FiFlags.READ, 2, true, null);
    WeakReference<MemorySegment> first = dropped(p, slot, 0);
    WeakReference<MemorySegment> second = dropped(p, slot, 1);
    p.posted(slot, 2, 2);
    collect(first);
    collect(second);
    assertNotNull(first.get(), "the first result buffer while its operation is pending");
    assertNotNull(second.get(), "the second result buffer while its operation is pending");
    p.completed(slot, 0);
    p.completed(slot, 0);
    assertEquals(0, p.inFlight());
    collect(first);
    collect(second);
    assertNull(first.get(), "the slot let go of the first buffer when the operation finished");
    assertNull(second.get(), "and of the second");
  }

  @Test
  void aOneElementSlotOpenedLateHoldsItsResultToo() {
    CompletionRing cq = new CompletionRing(8, () -> 0, true);
    PendingOperations p = new PendingOperations(4, true);
    cq.reserve();
    int slot = p.peek();
    MemorySegment s = Arena.ofAuto().allocate(8, 8);
    p.openAt(slot, "one", cq, true, null, FiFlags.ATOMIC | FiFlags.READ, s, true, null);
    WeakReference<MemorySegment> ref = new WeakReference<>(s);
    s = null;
    collect(ref);
    assertNotNull(ref.get(), "the result buffer while its element is pending");
    p.completed(slot, 0);
    collect(ref);
    assertNull(ref.get(), "let go once the element completed");
  }
}
