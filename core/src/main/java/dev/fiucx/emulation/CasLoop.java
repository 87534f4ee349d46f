package dev.fiucx.emulation;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.fiucx.FiErrno;
import dev.fiucx.semantics.AtomicCell;
import dev.fiucx.semantics.ElementSemantics;
import dev.fiucx.semantics.ScalarSemantics;
import dev.fiucx.spi.RemoteAtomicOp;
import dev.fiucx.spi.RemoteRegion;
import dev.fiucx.spi.TransportPeer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The CAS-loop engine of one endpoint: carries out an element of 8 bytes or less that no remote
 * atomic computes, with remote atomics only, so it stays atomic against native ops on the same
 * bytes. Per element: read the word with a fetching ADD of 0, compute the element's new bits with
 * {@link ScalarSemantics}, splice them into the word and compare-and-swap it; when the swap finds
 * another value, compute again from that value; when the op changes nothing, post no swap at all.
 * The fetched result is the element's value in the word that the successful step saw.
 *
 * <p>Each element is a small state machine over preallocated arrays, driven by transport
 * completions: its steps carry tokens {@code tokenBase | element} (the endpoint sets bit 31 of the
 * low word, which its own operation slots never use). A step that completes at once (shared-memory
 * CPU atomics) continues in place; a pending one returns, and its completion, reported inside the
 * transport's progress, only pushes the element on a ready stack. {@link #drain}, called by the
 * domain's progress right after the transport's, takes the next step, so no UCX call is ever made
 * from inside a UCX callback. A call therefore posts the reads of all its elements before waiting
 * for any, then their swaps as the reads come back, then the retries: nothing waits element by
 * element, and nothing ever blocks.
 *
 * <p>Threads: one thread at a time starts elements (the endpoint's caller); one thread at a time
 * drains (the progress thread, or under manual progress the caller); completions may arrive on any
 * thread that progresses the transport. They share only the ready stack, the free count and the
 * phase of each element, whose release store precedes every post and whose acquire load starts
 * every step, so the plain fields of an element are always seen by the thread that takes the next
 * step. Nothing allocates, nothing locks.
 */
public final class CasLoop {
  /** The low-word token bit that marks an emulation step (endpoint slots stay below it). */
  public static final long TOKEN_BIT = 0x8000_0000L;

  /** Reports a finished element of an operation slot whose start returned PENDING. */
  @FunctionalInterface
  public interface ElementCompletions {
    /**
     * @param slot the operation's slot
     * @param status 0 or a negative {@code fi_errno}
     * @param mayHaveApplied on a failure, whether the step that changes the target may have taken
     *     effect (its request had left when the peer failed, or it had completed)
     */
    void completed(int slot, int status, boolean mayHaveApplied);
  }

  private static final int FREE = 0;
  private static final int READING = 1;
  private static final int SWAPPING = 2;
  private static final int RETRY = 3;

  /**
   * The transport had no room for the read ({@code -FI_EAGAIN}: every request slot in flight); it
   * is posted again at the next drain. A swap refused the same way retries as {@link #RETRY}.
   */
  private static final int READ_AGAIN = 4;

  /**
   * What {@link #runMapped} returns when its swaps lost {@link #INLINE_TRIES} times in a row: the
   * caller starts the element the ordinary way, from a fresh read.
   */
  public static final int CONTENDED = 2;

  private static final VarHandle LONG = JAVA_LONG.varHandle();
  private static final VarHandle INT = JAVA_INT.varHandle();

  /** Failed swaps in a row that retry in place (with a spin) before waiting for progress. */
  private static final int INLINE_TRIES = 8;

  /** Per element: the read's word, then the swap's old word. */
  private static final int SCRATCH_STRIDE = 16;

  private final int mask;
  private final long tokenBase;
  private final EmulationCounters counters;
  private final ElementCompletions completions;
  private final MemorySegment scratch;
  private final long scratchBase;
  private final ReadyStack ready;
  private final AtomicIntegerArray phases;
  private final ElementRoom room;

  private int cursor;

  // one element each
  private final AtomicCell[] cells;
  private final TransportPeer[] peers;
  private final RemoteRegion[] regions;
  private final long[] wordOffsets;
  private final int[] shifts;
  private final long[] operands;
  private final long[] compares;
  private final MemorySegment[] results;
  private final long[] resultOffsets;
  private final long[] expected;
  private final long[] observed;
  private final int[] slots;
  private final int[] statuses;
  private final int[] attempts;
  private final int[] failures;

  /**
   * @param capacity elements in flight at most (rounded up to a power of two): the largest count of
   *     a cell, so that any one call fits
   * @param arena where the scratch words the transport writes live; it must outlive every element
   * @param tokenBase the high bits of every step's token; {@link #TOKEN_BIT} must be set
   */
  public CasLoop(
      int capacity,
      Arena arena,
      long tokenBase,
      EmulationCounters counters,
      ElementCompletions completions) {
    if ((tokenBase & TOKEN_BIT) == 0) {
      throw new IllegalArgumentException("tokenBase must carry TOKEN_BIT");
    }
    int n = Integer.highestOneBit(Math.max(2, capacity) - 1) << 1;
    this.mask = n - 1;
    this.tokenBase = tokenBase;
    this.counters = counters;
    this.completions = completions;
    this.scratch = arena.allocate((long) n * SCRATCH_STRIDE, 8);
    this.scratchBase = scratch.address();
    this.ready = new ReadyStack(n);
    this.phases = new AtomicIntegerArray(n);
    this.room = new ElementRoom(n, counters.concurrent()); // the domain's thread model
    cells = new AtomicCell[n];
    peers = new TransportPeer[n];
    regions = new RemoteRegion[n];
    wordOffsets = new long[n];
    shifts = new int[n];
    operands = new long[n];
    compares = new long[n];
    results = new MemorySegment[n];
    resultOffsets = new long[n];
    expected = new long[n];
    observed = new long[n];
    slots = new int[n];
    statuses = new int[n];
    attempts = new int[n];
    failures = new int[n];
  }

  /** Elements that may be in flight at once. */
  public int capacity() {
    return mask + 1;
  }

  /** Whether {@code low} (a token's low 32 bits) names an emulation step. */
  public static boolean owns(int low) {
    return (low & TOKEN_BIT) != 0;
  }

  /**
   * Sets aside room for {@code elements} elements before a call starts any (so a call is never
   * refused half-way); false when they do not fit now. Every element reserved must then be started
   * or given back with {@link #unreserve}.
   */
  public boolean reserve(long elements) {
    return room.reserve(elements);
  }

  /** Gives back reserved room that no element used. */
  public void unreserve(long elements) {
    room.unreserve(elements);
  }

  /**
   * Starts one element of a CAS_LOOP cell: posts its read, and runs on while steps complete at
   * once.
   *
   * @param offset the element's byte offset in {@code region} (checked: in range, aligned)
   * @param operand the operand's bits (ignored by ATOMIC_READ)
   * @param compare the compare value's bits (compare family)
   * @param result the buffer the element's old value goes to (fetch and compare families), or null
   * @param resultOffset where in {@code result}
   * @return {@link TransportPeer#DONE} when the element finished here; {@link
   *     TransportPeer#PENDING} when it will be reported to {@link ElementCompletions} with {@code
   *     slot}; or a negative {@code fi_errno} when it failed here without changing the target (and
   *     is not reported)
   */
  public int start(
      AtomicCell cell,
      TransportPeer peer,
      RemoteRegion region,
      long offset,
      long operand,
      long compare,
      MemorySegment result,
      long resultOffset,
      int slot) {
    int e = claim();
    int size = cell.size();
    cells[e] = cell;
    peers[e] = peer;
    regions[e] = region;
    wordOffsets[e] = WordLane.wordOffset(offset, size);
    shifts[e] = WordLane.shift(offset, size);
    operands[e] = operand;
    compares[e] = compare;
    results[e] = result;
    resultOffsets[e] = resultOffset;
    slots[e] = slot;
    statuses[e] = 0;
    attempts[e] = 0;
    failures[e] = 0;
    return read(e, false);
  }

  /**
   * Whether no element is in flight: then an element may run on a mapping in place ({@link
   * #runMapped}) without overtaking one of this endpoint's that started before it.
   */
  public boolean nothingInFlight() {
    return room.empty();
  }

  /**
   * One element of a one-element call on a region the transport mapped into this process ({@link
   * TransportPeer#mapped}), carried out here and now: the read is a volatile load and each swap a
   * compare-and-exchange on the mapping, the transport's own atomics there, so none of the state
   * machine's bookkeeping is needed (the same steps as {@link #start}, on a transport whose every
   * step completes in the call).
   *
   * @param offset the element's byte offset in {@code region} (checked: in range, aligned)
   * @param result where the element's old value goes (fetch and compare families), or null
   * @return {@link TransportPeer#DONE}, a negative {@code fi_errno} (nothing changed), or {@link
   *     #CONTENDED}
   */
  public int runMapped(
      AtomicCell cell,
      RemoteRegion region,
      MemorySegment mapping,
      long offset,
      long operand,
      long compare,
      MemorySegment result) {
    int size = cell.size();
    boolean wide = WordLane.wordSize(size) == 8;
    long wordOffset = WordLane.wordOffset(offset, size);
    int shift = WordLane.shift(offset, size);
    long elementMask = WordLane.mask(size);
    long word =
        wide
            ? (long) LONG.getVolatile(mapping, wordOffset)
            : (int) INT.getVolatile(mapping, wordOffset) & 0xFFFF_FFFFL;
    int attempts = 0;
    int failures = 0;
    while (true) {
      long old = WordLane.extract(word, shift, elementMask);
      long next = ScalarSemantics.compute(cell.op(), cell.datatype(), old, operand, compare);
      if (next == old) {
        return finishMapped(cell, result, old, attempts, failures, true);
      }
      if (region.revoked()) {
        return -FiErrno.EKEYREJECTED; // as in swap(): the target is releasing the memory
      }
      attempts++;
      long swap = WordLane.splice(word, shift, elementMask, next);
      long seen =
          wide
              ? (long) LONG.compareAndExchange(mapping, wordOffset, word, swap)
              : (int) INT.compareAndExchange(mapping, wordOffset, (int) word, (int) swap)
                  & 0xFFFF_FFFFL;
      if (seen == word) {
        return finishMapped(cell, result, old, attempts, failures, false);
      }
      if (++failures == INLINE_TRIES) {
        counters.steps(attempts, failures); // the element itself is counted where it ends
        return CONTENDED;
      }
      word = seen;
      Backoff.pause(failures);
    }
  }

  private int finishMapped(
      AtomicCell cell, MemorySegment result, long old, int attempts, int failures, boolean skip) {
    if (result != null) {
      ElementSemantics.store(result, 0, cell.size(), old);
    }
    counters.element(attempts, failures, skip);
    return TransportPeer.DONE;
  }

  /** Posts the element's read of its word; then swaps from what it read. */
  private int read(int e, boolean reported) {
    phases.setRelease(e, READING);
    int wordSize = WordLane.wordSize(cells[e].size());
    int rc =
        peers[e].postAtomic(
            regions[e],
            wordOffsets[e],
            RemoteAtomicOp.ADD,
            wordSize,
            0,
            readAddress(e),
            tokenBase | e);
    if (rc == TransportPeer.PENDING) {
      return rc;
    }
    if (rc == -FiErrno.EAGAIN) {
      return again(e, READ_AGAIN);
    }
    if (rc < 0) {
      return finish(e, 0, rc, reported, false, false); // a read changes nothing
    }
    return swap(e, loadWord(readAddress(e), wordSize), reported);
  }

  /**
   * A step the transport had no room for: it runs again at the next drain, once completions have
   * given room back. The element stays pending meanwhile (its caller opens its slot).
   */
  private int again(int e, int phase) {
    phases.setRelease(e, phase);
    ready.push(e);
    return TransportPeer.PENDING;
  }

  /**
   * A transport completion of a step (token's low 32 bits): the next step runs at {@link #drain}.
   */
  public void completed(int low, int status) {
    int e = low & mask;
    statuses[e] = status;
    ready.push(e);
  }

  /** Whether no element has a step to run at the next drain (the drainer's question). */
  public boolean idle() {
    return ready.isEmpty();
  }

  /**
   * Takes the next step of every element that is ready; called by the one thread that drains (the
   * domain's progress, after the transport's). Returns how many elements it stepped.
   */
  public int drain() {
    int e = ready.takeAll();
    int stepped = 0;
    while (e != ReadyStack.EMPTY) {
      int next = ready.next(e); // a step may push e again, which rewrites its link
      step(e);
      stepped++;
      e = next;
    }
    return stepped;
  }

  private void step(int e) {
    int phase = phases.getAcquire(e);
    int status = statuses[e];
    if (status != 0) {
      // a failed swap may have been applied (its answer is what was lost); a failed read changed
      // nothing
      finish(e, 0, status, true, false, phase == SWAPPING);
      return;
    }
    int wordSize = WordLane.wordSize(cells[e].size());
    switch (phase) {
      case READING -> swap(e, loadWord(readAddress(e), wordSize), true);
      case SWAPPING -> {
        long word = expected[e];
        long seen = loadWord(swapAddress(e), wordSize);
        if (seen == word) {
          long elementMask = WordLane.mask(cells[e].size());
          finish(e, WordLane.extract(word, shifts[e], elementMask), 0, true, false, true);
        } else {
          failures[e]++; // the round trip was the pause: retry at once with the value seen
          swap(e, seen, true);
        }
      }
      case RETRY -> swap(e, observed[e], true);
      case READ_AGAIN -> read(e, true);
      default -> throw new IllegalStateException("element " + e + " stepped while free");
    }
  }

  /**
   * From {@code word}, the target's word as last seen: compute, then swap until the swap holds or
   * goes pending. {@code reported} says whether the element's end must be reported (it went pending
   * before).
   */
  private int swap(int e, long word, boolean reported) {
    AtomicCell cell = cells[e];
    int size = cell.size();
    int wordSize = WordLane.wordSize(size);
    long elementMask = WordLane.mask(size);
    int shift = shifts[e];
    while (true) {
      long old = WordLane.extract(word, shift, elementMask);
      long next =
          ScalarSemantics.compute(cell.op(), cell.datatype(), old, operands[e], compares[e]);
      if (next == old) {
        return finish(e, old, 0, reported, true, false);
      }
      RemoteRegion region = regions[e];
      if (region.revoked()) {
        // the target is releasing the memory: a swap now could land after it is gone
        return finish(e, 0, -FiErrno.EKEYREJECTED, reported, false, false);
      }
      expected[e] = word;
      attempts[e]++;
      phases.setRelease(e, SWAPPING);
      int rc =
          peers[e].postCompareSwap(
              region,
              wordOffsets[e],
              wordSize,
              word,
              WordLane.splice(word, shift, elementMask, next),
              swapAddress(e),
              tokenBase | e);
      if (rc == TransportPeer.PENDING) {
        return rc;
      }
      if (rc == -FiErrno.EAGAIN) {
        observed[e] = word;
        return again(e, RETRY);
      }
      if (rc < 0) {
        return finish(e, 0, rc, reported, false, false); // refused: never sent
      }
      long seen = loadWord(swapAddress(e), wordSize);
      if (seen == word) {
        return finish(e, old, 0, reported, false, true);
      }
      word = seen;
      if (++failures[e] % INLINE_TRIES == 0) {
        // lost often in a row: let the transport progress (and others win) before trying again
        observed[e] = word;
        phases.setRelease(e, RETRY);
        ready.push(e);
        return TransportPeer.PENDING;
      }
      Backoff.pause(failures[e]);
    }
  }

  /**
   * Ends an element: writes its old value when it fetches and succeeded, counts, frees it, and
   * reports it when it went pending. Returns what {@link #start} returns for it.
   *
   * @param swapped whether the element's swap may have changed the target: a failure after it (its
   *     result buffer gone) or of it is uncertain
   */
  private int finish(
      int e, long old, int status, boolean reported, boolean skipped, boolean swapped) {
    if (status == 0
        && results[e] != null
        && !ResultBuffers.store(results[e], resultOffsets[e], cells[e].size(), old)) {
      status = -FiErrno.EINVAL; // its arena closed before the operation completed
    }
    results[e] = null;
    counters.element(attempts[e], failures[e], skipped);
    int slot = slots[e];
    cells[e] = null;
    peers[e] = null;
    regions[e] = null;
    phases.setRelease(e, FREE);
    room.release();
    if (reported) {
      completions.completed(slot, status, swapped);
    }
    return status == 0 ? TransportPeer.DONE : status;
  }

  /** A free element; one exists because the caller reserved it. */
  /**
   * A free element: the one claimed last when it is free again (an element that finished inside its
   * call, as every element does on a mapped region), else the next free one after it. Reusing it
   * keeps one element's slots of every array in this core's cache; moving on at every claim walked
   * the whole engine's arrays, a cache miss per array and element.
   */
  private int claim() {
    while (true) {
      int e = cursor;
      if (phases.get(e) == FREE) {
        return e;
      }
      cursor = (e + 1) & mask;
    }
  }

  private long readAddress(int e) {
    return scratchBase + (long) e * SCRATCH_STRIDE;
  }

  private long swapAddress(int e) {
    return scratchBase + (long) e * SCRATCH_STRIDE + 8;
  }

  private long loadWord(long address, int wordSize) {
    long at = address - scratchBase;
    return wordSize == 8 ? scratch.get(JAVA_LONG, at) : scratch.get(JAVA_INT, at) & 0xFFFFFFFFL;
  }
}
