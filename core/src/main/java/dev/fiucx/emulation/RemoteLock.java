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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The remote-lock engine of one endpoint: carries out an element wider than any remote atomic
 * (DOUBLE_COMPLEX, LONG_DOUBLE, LONG_DOUBLE_COMPLEX) under a lock word in the target's lock region
 * ({@link LockWords}). Per element: take the element's stripe with a compare-and-swap, get the
 * element, compute it with the reference semantics, put it back (a put completes once the bytes are
 * in place at the target), release the stripe with a compare-and-swap. An op that changes nothing
 * puts nothing.
 *
 * <p>A held stripe that does not change for a whole lease is taken over: its holder is dead (or
 * hung, which is the same to its peers). So that a live holder is never overtaken, a holder that
 * has held its stripe for half a lease by the time it would put gives the stripe back and starts
 * over instead: its put lands at least half a lease before anyone may take over.
 *
 * <p>Each element is a small state machine over preallocated arrays and native scratch, driven by
 * transport completions exactly as in {@link CasLoop}: steps carry tokens {@code tokenBase |
 * element} (bit 30 of the low word), a completion only pushes the element on a ready stack, and
 * {@link #drain} (the domain's progress, after the transport's) takes the next step. A waiting
 * element is pushed again until its backoff has passed. All elements of a call are started before
 * any is waited for. Nothing allocates, nothing locks in the JVM.
 */
public final class RemoteLock {
  /** The low-word token bit that marks a remote-lock step (the CAS loop's is bit 31). */
  public static final long TOKEN_BIT = 0x4000_0000L;

  private static final int FREE = 0;
  private static final int ACQUIRING = 1;
  private static final int WAITING = 2;
  private static final int GETTING = 3;
  private static final int PUTTING = 4;
  private static final int RELEASING = 5;

  /** The longest pause between two tries of a held stripe. */
  private static final long MAX_BACKOFF_NANOS = 50_000;

  /** Per element: the lock word a CAS returns, then old, new, operand and compare (32 each). */
  private static final long WORD = 0;

  private static final long OLD = 16;
  private static final long NEW = OLD + 32;
  private static final long OPERAND = NEW + 32;
  private static final long COMPARE = OPERAND + 32;
  private static final long STRIDE = COMPARE + 32;

  /** Where results are written: the caller's native result buffers, by address. */
  @SuppressWarnings("restricted")
  private static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

  private final int mask;
  private final long tokenBase;
  private final int owner;
  private final long leaseNanos;
  private final EmulationCounters counters;
  private final CasLoop.ElementCompletions completions;
  private final MemorySegment scratch;
  private final long scratchBase;
  private final ReadyStack ready;
  private final AtomicIntegerArray phases;
  private final AtomicInteger available;

  /** Whether elements may finish on another thread than the poster's (automatic progress). */
  private final boolean concurrent;

  private int cursor;

  /**
   * The last free word seen per stripe, the first guess of the next acquire (a wrong guess costs
   * one more compare-and-swap). Written by the posting and the draining thread without ordering, on
   * purpose: any value is a valid guess.
   */
  private final long[] freeGuess = new long[LockWords.STRIPES];

  // one element each
  private final AtomicCell[] cells;
  private final TransportPeer[] peers;
  private final RemoteRegion[] regions;
  private final RemoteRegion[] lockRegions;
  private final long[] offsets;
  private final int[] stripes;
  private final long[] results;
  private final int[] slots;
  private final int[] statuses;
  private final int[] errors;
  private final long[] expected;
  private final long[] held;
  private final long[] watched;
  private final long[] watchedSince;

  /**
   * When an element's hold started to count against the lease: when a step after the acquire went
   * pending, else {@link #NOT_TIMED} (acquire, get and compute ran in one call, some hundred
   * nanoseconds, so the clock, 34 ns a read on some machines, is not read at all).
   */
  private final long[] acquiredAt;

  private static final long NOT_TIMED = Long.MIN_VALUE;
  private final long[] notBefore;
  private final int[] tries;
  private final boolean[] waited;
  private final boolean[] takingOver;
  private final boolean[] restarting;

  /**
   * The long-double working registers of each element: only the thread that holds the element
   * computes it, so under automatic progress the poster and the progress thread never share one.
   */
  private final ElementScratch[] elementScratch;

  /**
   * @param capacity elements in flight at most (rounded up to a power of two)
   * @param arena where the scratch the transport reads and writes lives; it must outlive every
   *     element
   * @param tokenBase the high bits of every step's token; {@link #TOKEN_BIT} must be set
   * @param owner this domain's owner id ({@link LockWords#ownerOf}), never 0
   * @param leaseNanos how long a stripe may stay held, unchanged, before a waiter takes it over
   */
  public RemoteLock(
      int capacity,
      Arena arena,
      long tokenBase,
      int owner,
      long leaseNanos,
      EmulationCounters counters,
      CasLoop.ElementCompletions completions) {
    if ((tokenBase & TOKEN_BIT) == 0 || (tokenBase & CasLoop.TOKEN_BIT) != 0) {
      throw new IllegalArgumentException("tokenBase must carry TOKEN_BIT and not the CAS loop's");
    }
    if (owner == 0 || leaseNanos <= 0) {
      throw new IllegalArgumentException("owner must be non-zero, the lease positive");
    }
    int n = Integer.highestOneBit(Math.max(2, capacity) - 1) << 1;
    this.mask = n - 1;
    this.tokenBase = tokenBase;
    this.owner = owner;
    this.leaseNanos = leaseNanos;
    this.counters = counters;
    this.completions = completions;
    this.scratch = arena.allocate(n * STRIDE, 16);
    this.scratchBase = scratch.address();
    this.ready = new ReadyStack(n);
    this.phases = new AtomicIntegerArray(n);
    this.available = new AtomicInteger(n);
    this.concurrent = counters.concurrent(); // the domain's thread model
    cells = new AtomicCell[n];
    peers = new TransportPeer[n];
    regions = new RemoteRegion[n];
    lockRegions = new RemoteRegion[n];
    offsets = new long[n];
    stripes = new int[n];
    results = new long[n];
    slots = new int[n];
    statuses = new int[n];
    errors = new int[n];
    expected = new long[n];
    held = new long[n];
    watched = new long[n];
    watchedSince = new long[n];
    acquiredAt = new long[n];
    notBefore = new long[n];
    tries = new int[n];
    waited = new boolean[n];
    takingOver = new boolean[n];
    restarting = new boolean[n];
    elementScratch = new ElementScratch[n];
    for (int i = 0; i < n; i++) {
      elementScratch[i] = new ElementScratch();
    }
  }

  /** Whether {@code low} (a token's low 32 bits) names a remote-lock step. */
  public static boolean owns(int low) {
    return (low & (TOKEN_BIT | CasLoop.TOKEN_BIT)) == TOKEN_BIT;
  }

  /** Sets aside room for a call's elements before any starts; false when they do not fit now. */
  public boolean reserve(long elements) {
    if (available.getPlain() < elements) {
      return false;
    }
    if (concurrent) {
      available.addAndGet((int) -elements);
    } else {
      available.setPlain(available.getPlain() - (int) elements);
    }
    return true;
  }

  /** Gives back reserved room that no element used. */
  public void unreserve(long elements) {
    if (elements > 0) {
      if (concurrent) {
        available.addAndGet((int) elements);
      } else {
        available.setPlain(available.getPlain() + (int) elements);
      }
    }
  }

  /**
   * Starts one element: copies its operand and compare bytes (so FI_INJECT and buffer reuse are
   * safe) and posts the acquire of its stripe.
   *
   * @param offset the element's byte offset in {@code region} (checked: in range, aligned)
   * @param locks the peer's lock region, resolved
   * @param operand the operand's bytes (ignored by ATOMIC_READ)
   * @param compare the compare value's bytes (compare family), or null
   * @param resultAddress where the element's old value goes (fetch and compare families), or 0
   * @return {@link TransportPeer#DONE}, {@link TransportPeer#PENDING} (then reported with {@code
   *     slot}), or a negative {@code fi_errno} when it failed here, the target unchanged
   */
  public int start(
      AtomicCell cell,
      TransportPeer peer,
      RemoteRegion region,
      long offset,
      RemoteRegion locks,
      MemorySegment operand,
      long operandOffset,
      MemorySegment compare,
      long compareOffset,
      long resultAddress,
      int slot) {
    int e = claim();
    int size = cell.size();
    long base = (long) e * STRIDE;
    if (cell.op() != FiOp.ATOMIC_READ) {
      MemorySegment.copy(operand, operandOffset, scratch, base + OPERAND, size);
    }
    if (compare != null) {
      MemorySegment.copy(compare, compareOffset, scratch, base + COMPARE, size);
    }
    cells[e] = cell;
    peers[e] = peer;
    regions[e] = region;
    lockRegions[e] = locks;
    offsets[e] = offset;
    stripes[e] = LockWords.stripe(region.base() + offset);
    results[e] = resultAddress;
    slots[e] = slot;
    statuses[e] = 0;
    errors[e] = 0;
    tries[e] = 0;
    watched[e] = 0;
    waited[e] = false;
    takingOver[e] = false;
    restarting[e] = false;
    return acquire(e, false);
  }

  /**
   * A transport completion of a step (token's low 32 bits): the next step runs at {@link #drain}.
   */
  public void completed(int low, int status) {
    int e = low & mask;
    statuses[e] = status;
    ready.push(e);
  }

  /** Takes the next step of every ready element; returns how many it stepped. */
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
    statuses[e] = 0;
    if (status != 0) {
      failed(e, phase, status);
      return;
    }
    switch (phase) {
      case ACQUIRING -> acquired(e, true);
      case WAITING -> {
        if (System.nanoTime() - notBefore[e] < 0) {
          ready.push(e); // not yet: look again at the next progress
        } else {
          acquire(e, true);
        }
      }
      case GETTING -> compute(e, true);
      case PUTTING -> release(e, true);
      case RELEASING -> released(e, true);
      default -> throw new IllegalStateException("element " + e + " stepped while free");
    }
  }

  /** Posts a compare-and-swap from the stripe's last free word seen to this owner's hold. */
  private int acquire(int e, boolean reported) {
    long guess = freeGuess[stripes[e]];
    return tryTake(e, guess, LockWords.taken(guess, owner), reported);
  }

  private int tryTake(int e, long from, long to, boolean reported) {
    expected[e] = from;
    held[e] = to;
    tries[e]++;
    phases.setRelease(e, ACQUIRING);
    int rc =
        peers[e].postCompareSwap(
            lockRegions[e],
            LockWords.offset(stripes[e]),
            8,
            from,
            to,
            scratchBase + (long) e * STRIDE + WORD,
            tokenBase | e);
    if (rc == TransportPeer.PENDING) {
      return rc;
    }
    if (rc < 0) {
      return finish(e, rc, reported);
    }
    return acquired(e, reported);
  }

  /** The acquire's compare-and-swap came back with the word it found. */
  private int acquired(int e, boolean reported) {
    long seen = scratch.get(JAVA_LONG, (long) e * STRIDE + WORD);
    int stripe = stripes[e];
    if (seen == expected[e]) {
      acquiredAt[e] = NOT_TIMED; // timed only if a step after this one goes pending
      counters.lockAcquired(takingOver[e]);
      takingOver[e] = false;
      return get(e, reported);
    }
    takingOver[e] = false;
    if (LockWords.isFree(seen)) {
      freeGuess[stripe] = seen; // another generation: try again from it at once
      return tryTake(e, seen, LockWords.taken(seen, owner), reported);
    }
    waited[e] = true;
    long now = System.nanoTime();
    if (seen != watched[e]) {
      watched[e] = seen; // a new holding: its lease starts now, as far as this element knows
      watchedSince[e] = now;
    } else if (LockWords.owner(seen) != owner && now - watchedSince[e] >= leaseNanos) {
      takingOver[e] = true; // unchanged for a whole lease: its holder is gone
      return tryTake(e, seen, LockWords.taken(seen, owner), reported);
    }
    notBefore[e] = now + Math.min(MAX_BACKOFF_NANOS, 100L << Math.min(tries[e], 10));
    phases.setRelease(e, WAITING);
    ready.push(e);
    return TransportPeer.PENDING;
  }

  private int get(int e, boolean reported) {
    if (regions[e].revoked()) {
      errors[e] = -FiErrno.EKEYREJECTED; // the target is releasing the memory
      return release(e, reported);
    }
    phases.setRelease(e, GETTING);
    int rc =
        peers[e].postGet(
            regions[e],
            offsets[e],
            cells[e].size(),
            scratchBase + (long) e * STRIDE + OLD,
            tokenBase | e);
    if (rc == TransportPeer.PENDING) {
      // the hold may now last as long as the transport takes: from here its lease counts
      acquiredAt[e] = System.nanoTime();
      return rc;
    }
    if (rc < 0) {
      errors[e] = rc;
      return release(e, reported);
    }
    return compute(e, reported);
  }

  /** The element is in OLD: compute NEW and put it, unless it equals OLD. */
  private int compute(int e, boolean reported) {
    AtomicCell cell = cells[e];
    if (cell.op() == FiOp.ATOMIC_READ) {
      return release(e, reported);
    }
    int size = cell.size();
    long base = (long) e * STRIDE;
    MemorySegment.copy(scratch, base + OLD, scratch, base + NEW, size);
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
    if (MemorySegment.mismatch(
            scratch, base + OLD, base + OLD + size, scratch, base + NEW, base + NEW + size)
        == -1) {
      counters.lockPutSkipped();
      return release(e, reported);
    }
    if (acquiredAt[e] != NOT_TIMED && System.nanoTime() - acquiredAt[e] > leaseNanos / 2) {
      restarting[e] = true; // a put now might land after a waiter took over: give back, retry
      return release(e, reported);
    }
    if (regions[e].revoked()) {
      errors[e] = -FiErrno.EKEYREJECTED;
      return release(e, reported);
    }
    phases.setRelease(e, PUTTING);
    int rc =
        peers[e].postPut(regions[e], offsets[e], size, scratchBase + base + NEW, tokenBase | e);
    if (rc == TransportPeer.PENDING) {
      return rc;
    }
    if (rc < 0) {
      errors[e] = rc;
    }
    return release(e, reported);
  }

  /** Posts the release: the hold back to the free word of the same generation. */
  private int release(int e, boolean reported) {
    phases.setRelease(e, RELEASING);
    int rc =
        peers[e].postCompareSwap(
            lockRegions[e],
            LockWords.offset(stripes[e]),
            8,
            held[e],
            LockWords.released(held[e]),
            scratchBase + (long) e * STRIDE + WORD,
            tokenBase | e);
    if (rc == TransportPeer.PENDING) {
      return rc;
    }
    if (rc < 0) {
      return finish(e, errors[e] != 0 ? errors[e] : rc, reported);
    }
    return released(e, reported);
  }

  private int released(int e, boolean reported) {
    long seen = scratch.get(JAVA_LONG, (long) e * STRIDE + WORD);
    if (seen == held[e]) {
      freeGuess[stripes[e]] = LockWords.released(held[e]);
    } else {
      counters.lockLost(); // taken over while held: only a holder stalled for a lease gets here
    }
    if (restarting[e] && errors[e] == 0) {
      restarting[e] = false;
      counters.lockRestarted();
      return acquire(e, reported);
    }
    return finish(e, errors[e], reported);
  }

  /**
   * A step failed in the transport. While the stripe is held and the peer is still reachable, the
   * stripe is released before the element ends with the error; otherwise the lease (or the target's
   * failure detection) frees it.
   */
  private void failed(int e, int phase, int status) {
    if ((phase == GETTING || phase == PUTTING) && !peers[e].failed()) {
      errors[e] = status;
      release(e, true);
      return;
    }
    finish(e, errors[e] != 0 ? errors[e] : status, true);
  }

  /** Ends an element: its old value to the result buffer when it succeeded, then frees it. */
  private int finish(int e, int status, boolean reported) {
    AtomicCell cell = cells[e];
    if (status == 0 && results[e] != 0) {
      MemorySegment.copy(scratch, (long) e * STRIDE + OLD, ALL, results[e], cell.size());
    }
    counters.lockElement(waited[e]);
    int slot = slots[e];
    cells[e] = null;
    peers[e] = null;
    regions[e] = null;
    lockRegions[e] = null;
    phases.setRelease(e, FREE);
    if (concurrent) {
      available.incrementAndGet();
    } else {
      available.setPlain(available.getPlain() + 1);
    }
    if (reported) {
      completions.completed(slot, status);
    }
    return status == 0 ? TransportPeer.DONE : status;
  }

  private int claim() {
    while (true) {
      int e = cursor;
      cursor = (e + 1) & mask;
      if (phases.get(e) == FREE) {
        return e;
      }
    }
  }
}
