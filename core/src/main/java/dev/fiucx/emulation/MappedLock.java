package dev.fiucx.emulation;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.fiucx.FiErrno;
import dev.fiucx.FiOp;
import dev.fiucx.semantics.AtomicCell;
import dev.fiucx.semantics.ElementScratch;
import dev.fiucx.semantics.ElementSemantics;
import dev.fiucx.spi.RemoteRegion;
import dev.fiucx.spi.TransportPeer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/**
 * One element under the remote lock run in place, when the transport mapped the element's region
 * and the peer's lock region into this process ({@link TransportPeer#mapped}) and the element's
 * stripe is free: the steps of the uncontended case (a compare-and-swap that takes the free word, a
 * copy out, the compute, a copy back, a compare-and-swap that releases) as this CPU's loads, stores
 * and compare-and-exchanges on the mappings, the transport's own atomics there. No element is
 * claimed and no state machine runs: the element holds its stripe for this call only, some tens of
 * nanoseconds, so it reads no clock, like an element of the step machine whose steps all completed
 * in the call. A held stripe is left alone before anything is taken ({@link #CONTENDED}), and the
 * element then queues up with a ticket the ordinary way.
 *
 * <p>An element wider than 8 bytes is several stores, so it goes through its stripe's redo record
 * ({@link LockRedo}): on entry, a write a dead turn left armed is completed first; the copy back is
 * armed in the record first and disarmed after, so a holder killed mid-copy leaves a write the next
 * holder completes, never a torn element.
 *
 * <p>Runs on the posting thread only, and only while the endpoint's remote lock has nothing in
 * flight (so it never overtakes an element that started before it): its scratch and working
 * registers are its own.
 */
final class MappedLock {
  /** What {@link #run} returns when the element's stripe was not free: nothing was done. */
  static final int CONTENDED = 2;

  private static final VarHandle LONG = JAVA_LONG.varHandle();

  // the element's old and new bytes in scratch, 32 each: the widest element
  private static final long OLD = 0;
  private static final long NEW = 32;

  private final int owner;
  private final EmulationCounters counters;

  /** The last word seen per stripe, shared with the step machine (see {@link RemoteLock}). */
  private final long[] lastSeen;

  private final MemorySegment scratch;
  private final ElementScratch registers = new ElementScratch();

  MappedLock(Arena arena, int owner, long[] lastSeen, EmulationCounters counters) {
    this.owner = owner;
    this.counters = counters;
    this.lastSeen = lastSeen;
    this.scratch = arena.allocate(NEW + 32, 16);
  }

  /**
   * @param offset the element's byte offset in {@code region} (checked: in range, aligned)
   * @param operand the operand's bytes at offset 0 (ignored by ATOMIC_READ)
   * @param compare the compare value's bytes at offset 0 (compare family), or null
   * @param result where the element's old value goes (fetch and compare families), or null
   * @return {@link TransportPeer#DONE}, a negative {@code fi_errno} (the target unchanged), or
   *     {@link #CONTENDED} (nothing done)
   */
  int run(
      AtomicCell cell,
      RemoteRegion region,
      MemorySegment mapping,
      long offset,
      MemorySegment lockMapping,
      MemorySegment operand,
      MemorySegment compare,
      MemorySegment result) {
    int stripe = LockWords.stripe(region.base() + offset);
    long at = LockWords.offset(stripe);
    long from = lastSeen[stripe];
    if (!LockWords.isFree(from)) {
      from = (long) LONG.getVolatile(lockMapping, at);
    }
    long held;
    while (true) {
      if (!LockWords.isFree(from)) {
        lastSeen[stripe] = from;
        return CONTENDED;
      }
      held = LockWords.taken(from, owner);
      long seen = (long) LONG.compareAndExchange(lockMapping, at, from, held);
      if (seen == from) {
        break;
      }
      from = seen; // another free generation: take it at once, as the step machine does
    }
    counters.lockAcquired();
    int size = cell.size();
    // a wide element: complete what a dead turn left armed before reading (0: no record used)
    int redo =
        LockRedo.applies(size, lockMapping)
            ? LockRedo.enter(lockMapping, stripe, held, mapping, region.base(), counters)
            : 0;
    ElementSemantics.copy(mapping, offset, scratch, OLD, size);
    int status = 0;
    if (cell.op() != FiOp.ATOMIC_READ) {
      ElementSemantics.copy(scratch, OLD, scratch, NEW, size);
      ElementSemantics.apply(
          cell.op(), cell.datatype(), scratch, NEW, operand, 0, compare, 0, null, 0, registers);
      if (ElementSemantics.sameBytes(scratch, OLD, scratch, NEW, size)) {
        counters.lockPutSkipped();
      } else if (region.revoked()) {
        status = -FiErrno.EKEYREJECTED;
      } else if (redo == LockRedo.ARM) {
        LockRedo.arm(lockMapping, stripe, held, region.base() + offset, size, scratch, NEW);
        ElementSemantics.copy(scratch, NEW, mapping, offset, size);
        LockRedo.disarm(lockMapping, stripe);
      } else {
        ElementSemantics.copy(scratch, NEW, mapping, offset, size);
      }
    }
    // the release's compare-and-exchange orders the copy back before it, as a put's completion does
    while (true) {
      long released = LockWords.released(held);
      long seen = (long) LONG.compareAndExchange(lockMapping, at, held, released);
      if (seen == held) {
        lastSeen[stripe] = released;
        break;
      }
      if (LockWords.head(seen) != LockWords.head(held)) {
        counters.lockLost(); // taken while held: only by a holder's reclaim after a lease
        break;
      }
      held = seen; // tickets were taken meanwhile: still inside, give back from this word
    }
    if (status == 0 && result != null) {
      ElementSemantics.copy(scratch, OLD, result, 0, size);
    }
    counters.lockElement(false, 0);
    return status == 0 ? TransportPeer.DONE : status;
  }
}
