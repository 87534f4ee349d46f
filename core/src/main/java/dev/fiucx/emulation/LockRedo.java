package dev.fiucx.emulation;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.fiucx.semantics.ElementSemantics;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/**
 * The redo record of a stripe ({@link LockWords}), as a holder of a wide element on a mapping uses
 * it: an element wider than 8 bytes that a holder writes through a mapping of the target's memory
 * is several stores, and a holder killed in the middle must leave either the old value or the new
 * one, never a mix.
 *
 * <p>A holder about to write such an element, after its lease check, {@link #arm}s its stripe's
 * record (the element's address, size and new bytes, then the tag, its held word, with a release
 * store), copies the element (or has the transport put it), and {@link #disarm}s the record once
 * that completed (the tag 0, a release store) before it releases the lock. Once armed, the write is
 * committed: the holder never gives the stripe back to start over after that. Whoever enters a
 * stripe on a mapped wide element first calls {@link #enter}: a tag that is set and not its own
 * held word belongs to a turn that ended unfinished (its holder died, or was taken over while
 * paused for a lease). When the record's element lies in the mapping of the region being entered,
 * its bytes are copied in and the tag cleared: the dead holder's write is completed before anyone
 * reads the element. When it lies elsewhere (another region whose elements share the stripe), the
 * record stays armed for that element's next holder, and this element is written without one
 * ({@link #FOREIGN}: a foreign armed record is never overwritten). A record whose element a correct
 * holder could not have written (a size of 8 bytes or less or over 32, an address whose stripe is
 * another) is garbage a peer wrote into the lock region: it is cleared, and nothing is copied. The
 * record's address is never trusted beyond the mapping held: nothing is stored outside {@code [0,
 * mapping.byteSize())}.
 *
 * <p>Limits. Two failures on one stripe can still tear: a holder that writes without a record (a
 * foreign one was armed) and dies mid-copy leaves its element torn. A holder that does not map the
 * region (over TCP or RC, or over shared memory without the direct path) neither completes nor arms
 * records: after a mapped holder died mid-copy it reads the torn element, and a record it left
 * armed is applied later by the element's next mapped holder, over what that holder wrote. The
 * records protect a target whose initiators of an element all map it. Nothing here allocates or
 * locks.
 */
final class LockRedo {
  /** What {@link #enter} returns when the record is free (or was repaired): arm it to write. */
  static final int ARM = 1;

  /** What {@link #enter} returns when another element's record is armed: write without one. */
  static final int FOREIGN = 2;

  /** The widest element one aligned store writes whole: narrower ones never use a record. */
  static final int ATOMIC_BYTES = 8;

  private static final VarHandle LONG = JAVA_LONG.varHandle();

  private LockRedo() {}

  /**
   * Whether an element of {@code size} bytes on a mapping uses the records of the lock region
   * mapped as {@code locks}: it is wider than one store, and the region has records (one of a build
   * without them is only words long, and its elements go without).
   */
  static boolean applies(int size, MemorySegment locks) {
    return size > ATOMIC_BYTES && locks.byteSize() >= LockWords.REGION_BYTES;
  }

  /**
   * Entering {@code stripe}, held as {@code held}, on a wide element of the region at target
   * virtual address {@code base}, mapped as {@code mapping}: completes a write a dead turn left
   * armed in this mapping, before the element is read.
   *
   * @param locks the lock region's mapping
   * @param counters where a completed write is counted
   * @return {@link #ARM}, or {@link #FOREIGN} when another element's record stays armed
   */
  static int enter(
      MemorySegment locks,
      int stripe,
      long held,
      MemorySegment mapping,
      long base,
      EmulationCounters counters) {
    long tag = (long) LONG.getAcquire(locks, LockWords.recordTag(stripe));
    return tag == 0 || tag == held ? ARM : complete(locks, stripe, mapping, base, counters);
  }

  /** {@link #enter} when a turn that ended unfinished left the record armed: kept off its path. */
  private static int complete(
      MemorySegment locks,
      int stripe,
      MemorySegment mapping,
      long base,
      EmulationCounters counters) {
    long at = LockWords.recordTag(stripe);
    long address = (long) LONG.get(locks, LockWords.recordAddress(stripe));
    long size = (long) LONG.get(locks, LockWords.recordSize(stripe));
    if (size <= ATOMIC_BYTES || size > LockWords.RECORD_VALUE_BYTES) {
      LONG.setRelease(locks, at, 0L); // garbage: no holder arms a record for such a size
      return ARM;
    }
    if (LockWords.stripe(address) != stripe) {
      LONG.setRelease(locks, at, 0L); // garbage: that element is another stripe's
      return ARM;
    }
    long offset = address - base; // modulo 2^64: in range only for an address in the mapping
    if (offset < 0 || offset > mapping.byteSize() - size) {
      return FOREIGN; // another region's element: its next holder completes it
    }
    ElementSemantics.copy(locks, LockWords.recordValue(stripe), mapping, offset, (int) size);
    LONG.setRelease(locks, at, 0L); // the copy is in place before the record says so
    counters.writeRedone();
    return ARM;
  }

  /**
   * At the target, reclaiming a dead owner's turn {@code word} of {@code stripe} ({@link
   * LockWords#reclaim}): completes the record that turn armed (the same served ticket and owner as
   * its tag) into {@code memory}, and clears it. A garbage record is cleared; one whose element
   * {@code memory} does not hold stays armed.
   *
   * @return whether it completed a write
   */
  static boolean reclaimed(
      MemorySegment locks, int stripe, long word, LockWords.RedoTarget memory) {
    if (locks.byteSize() < LockWords.REGION_BYTES) {
      return false;
    }
    long at = LockWords.recordTag(stripe);
    long tag = (long) LONG.getAcquire(locks, at);
    if (tag == 0 || LockWords.head(tag) != LockWords.head(word)) {
      return false; // nothing armed in this turn (tickets taken since change only the next half)
    }
    long address = (long) LONG.get(locks, LockWords.recordAddress(stripe));
    long size = (long) LONG.get(locks, LockWords.recordSize(stripe));
    if (size <= ATOMIC_BYTES
        || size > LockWords.RECORD_VALUE_BYTES
        || LockWords.stripe(address) != stripe) {
      LONG.setRelease(locks, at, 0L); // garbage: no holder arms such a record
      return false;
    }
    if (!memory.write(address, locks, LockWords.recordValue(stripe), (int) size)) {
      return false; // not this domain's open memory: left for a mapped holder of the element
    }
    LONG.setRelease(locks, at, 0L);
    return true;
  }

  /**
   * Arms {@code stripe}'s record for a write of {@code size} bytes at target virtual address {@code
   * address}, whose new bytes are {@code from[fromOffset]}: from here the write is committed. The
   * element's stores that follow cannot become visible before the tag.
   */
  static void arm(
      MemorySegment locks,
      int stripe,
      long held,
      long address,
      int size,
      MemorySegment from,
      long fromOffset) {
    LONG.set(locks, LockWords.recordAddress(stripe), address);
    LONG.set(locks, LockWords.recordSize(stripe), (long) size);
    ElementSemantics.copy(from, fromOffset, locks, LockWords.recordValue(stripe), size);
    LONG.setRelease(locks, LockWords.recordTag(stripe), held); // the record before the tag
    VarHandle.storeStoreFence(); // the tag before the element's stores
  }

  /** Clears {@code stripe}'s record after the element's copy: release, so the copy comes first. */
  static void disarm(MemorySegment locks, int stripe) {
    LONG.setRelease(locks, LockWords.recordTag(stripe), 0L);
  }
}
