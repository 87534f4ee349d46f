package dev.fiucx.emulation;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.fiucx.FiOp;
import dev.fiucx.semantics.AtomicCell;
import dev.fiucx.semantics.ElementScratch;
import dev.fiucx.semantics.ElementSemantics;
import dev.fiucx.spi.RemoteRegion;
import dev.fiucx.spi.TransportPeer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * What the remote lock keeps of each element in flight: one slot of every array below and one
 * stride of native scratch (the lock word an atomic returns, and the element's old, new, operand
 * and compare bytes, which the transport reads and writes by address), all indexed by element. A
 * call's elements claim slots here instead of objects, so that nothing is allocated per call.
 *
 * <p>The step machine ({@link LockSteps}) is the one subclass, so that its steps read these arrays
 * as fields of their own: a step touches several of them, and reaching them through a field of
 * another object would cost a load more each time (JCTools lays out its queues' fields in a chain
 * of classes for the same reason).
 *
 * <p>Threads: the thread that starts an element fills its slots, and after that only the thread
 * that takes the element's next step touches them. The phase is the hand-over: its release store
 * precedes every post, its acquire load begins every step ({@link LockSteps}).
 */
abstract sealed class LockElements permits LockSteps {
  /** The phase of an element that no call uses: {@link #claim} may hand it out. */
  static final int FREE = 0;

  // the scratch of one element: the lock word an atomic returns, then old, new, operand and
  // compare (32 bytes each: the widest element, LONG_DOUBLE_COMPLEX)
  private static final long WORD = 0;
  private static final long OLD = 16;
  private static final long NEW = OLD + 32;
  private static final long OPERAND = NEW + 32;
  private static final long COMPARE = OPERAND + 32;
  private static final long STRIDE = COMPARE + 32;

  /** Elements in flight at most, less one: a power of two less one. */
  final int mask;

  final MemorySegment scratch;
  private final long scratchBase;

  /** Each element's step (its phase): the one field several threads hand each other. */
  final AtomicIntegerArray phases;

  private int cursor;

  // one element each
  final AtomicCell[] cells;
  final TransportPeer[] peers;
  final RemoteRegion[] regions;
  final RemoteRegion[] lockRegions;
  final long[] offsets;
  final int[] stripes;
  final MemorySegment[] results;
  final long[] resultOffsets;
  final int[] slots;

  /** The status of the step that completed last, 0 once its step has read it. */
  final int[] statuses;

  /** The error an element ends with once its stripe is given back; 0 while there is none. */
  final int[] errors;

  /** The word a posted compare-and-swap expects, and the one it writes. */
  final long[] expected;

  final long[] swap;

  /** The word as this element last knew it while inside: what its release expects. */
  final long[] held;

  final int[] tickets;

  /** Turns waited: the tickets ahead of each ticket this element took, added up. */
  final int[] turns;

  /** The (served ticket, owner) pair a waiter saw last, and since when it has seen it. */
  final long[] watched;

  final long[] watchedSince;

  /**
   * When an element's hold started to count against the lease: when a step after entering went
   * pending, else {@link LockSteps#NOT_TIMED} (entering, get and compute ran in one call, some
   * hundred nanoseconds, so the clock, 34 ns a read on some machines, is not read at all).
   */
  final long[] acquiredAt;

  /** A waiter's next look; while a look is out, when it left. */
  final long[] notBefore;

  final boolean[] waited;
  final boolean[] restarting;

  /**
   * Whether the element's put was handed to the transport: from then on a failure may have applied
   * it (the bytes may be in place at the target).
   */
  final boolean[] putSent;

  /**
   * Whether a wide element on mappings arms its stripe's redo record around its put ({@link
   * LockRedo#ARM}) or not (0, {@link LockRedo#FOREIGN}), set on entering its stripe.
   */
  final int[] redo;

  /** The step an element in {@link LockSteps#AGAIN} posts again. */
  final int[] againOf;

  /**
   * The long-double working registers of each element: only the thread that holds the element
   * computes it, so under automatic progress the poster and the progress thread never share one.
   */
  final ElementScratch[] elementScratch;

  /**
   * @param n elements in flight at most: a power of two
   * @param arena where the scratch lives; it must outlive every element
   */
  LockElements(int n, Arena arena) {
    this.mask = n - 1;
    this.scratch = arena.allocate(n * STRIDE, 16);
    this.scratchBase = scratch.address();
    this.phases = new AtomicIntegerArray(n);
    cells = new AtomicCell[n];
    peers = new TransportPeer[n];
    regions = new RemoteRegion[n];
    lockRegions = new RemoteRegion[n];
    offsets = new long[n];
    stripes = new int[n];
    results = new MemorySegment[n];
    resultOffsets = new long[n];
    slots = new int[n];
    statuses = new int[n];
    errors = new int[n];
    expected = new long[n];
    swap = new long[n];
    held = new long[n];
    tickets = new int[n];
    turns = new int[n];
    watched = new long[n];
    watchedSince = new long[n];
    acquiredAt = new long[n];
    notBefore = new long[n];
    waited = new boolean[n];
    restarting = new boolean[n];
    putSent = new boolean[n];
    againOf = new int[n];
    redo = new int[n];
    elementScratch = new ElementScratch[n];
    for (int i = 0; i < n; i++) {
      elementScratch[i] = new ElementScratch();
    }
  }

  /**
   * Claims a free element for one element of a call and fills its slots: copies its operand and
   * compare bytes (so FI_INJECT and buffer reuse are safe) and resets what a previous element left.
   * Its phase is still {@link #FREE}: the first step sets it.
   */
  final int claim(
      AtomicCell cell,
      TransportPeer peer,
      RemoteRegion region,
      long offset,
      RemoteRegion locks,
      MemorySegment operand,
      long operandOffset,
      MemorySegment compare,
      long compareOffset,
      MemorySegment result,
      long resultOffset,
      int slot) {
    int e = nextFree();
    int size = cell.size();
    long base = (long) e * STRIDE;
    if (cell.op() != FiOp.ATOMIC_READ) {
      ElementSemantics.copy(operand, operandOffset, scratch, base + OPERAND, size);
    }
    if (compare != null) {
      ElementSemantics.copy(compare, compareOffset, scratch, base + COMPARE, size);
    }
    cells[e] = cell;
    peers[e] = peer;
    regions[e] = region;
    lockRegions[e] = locks;
    offsets[e] = offset;
    stripes[e] = LockWords.stripe(region.base() + offset);
    results[e] = result;
    resultOffsets[e] = resultOffset;
    slots[e] = slot;
    statuses[e] = 0;
    errors[e] = 0;
    turns[e] = 0;
    waited[e] = false;
    restarting[e] = false;
    putSent[e] = false;
    redo[e] = 0;
    return e;
  }

  /**
   * A free element: the one claimed last when it is free again (an element that finished inside its
   * call, as every element does on a mapped region), else the next free one after it. Reusing it
   * keeps one element's slots of every array in this core's cache; moving on at every claim walked
   * the whole engine's arrays, a cache miss per array and element.
   */
  private int nextFree() {
    while (true) {
      int e = cursor;
      if (phases.get(e) == FREE) {
        return e;
      }
      cursor = (e + 1) & mask;
    }
  }

  /**
   * Drops what an ended element referred to and makes it {@link #FREE}: the release store that lets
   * {@link #claim} hand it out again.
   */
  final void free(int e) {
    results[e] = null;
    cells[e] = null;
    peers[e] = null;
    regions[e] = null;
    lockRegions[e] = null;
    phases.setRelease(e, FREE);
  }

  /** The lock word the element's last atomic returned. */
  final long word(int e) {
    return scratch.get(JAVA_LONG, (long) e * STRIDE + WORD);
  }

  /** Where the transport writes the lock word an atomic of the element returns. */
  final long wordAddress(int e) {
    return scratchBase + (long) e * STRIDE + WORD;
  }

  /** Where the element's old bytes are: what a get fetched, and the element's result. */
  final long oldOffset(int e) {
    return (long) e * STRIDE + OLD;
  }

  final long oldAddress(int e) {
    return scratchBase + oldOffset(e);
  }

  /** Where the element's new bytes are: what a put writes, and a redo record holds. */
  final long newOffset(int e) {
    return (long) e * STRIDE + NEW;
  }

  final long newAddress(int e) {
    return scratchBase + newOffset(e);
  }

  /**
   * Computes the element's new bytes from its old ones, its operand and compare bytes; true when
   * they differ from the old ones (a put is needed).
   */
  final boolean computeChanges(int e) {
    AtomicCell cell = cells[e];
    int size = cell.size();
    long base = (long) e * STRIDE;
    ElementSemantics.copy(scratch, base + OLD, scratch, base + NEW, size);
    ElementSemantics.apply(
        cell.op(),
        cell.datatype(),
        scratch,
        base + NEW,
        scratch,
        base + OPERAND,
        scratch,
        base + COMPARE,
        null,
        0,
        elementScratch[e]);
    return !ElementSemantics.sameBytes(scratch, base + OLD, scratch, base + NEW, size);
  }
}
