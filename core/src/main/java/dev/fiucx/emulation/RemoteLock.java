package dev.fiucx.emulation;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.fiucx.FiErrno;
import dev.fiucx.FiOp;
import dev.fiucx.semantics.AtomicCell;
import dev.fiucx.semantics.ElementScratch;
import dev.fiucx.semantics.ElementSemantics;
import dev.fiucx.spi.RemoteAtomicOp;
import dev.fiucx.spi.RemoteRegion;
import dev.fiucx.spi.TransportPeer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The remote-lock engine of one endpoint: carries out an element wider than any remote atomic
 * (DOUBLE_COMPLEX, LONG_DOUBLE, LONG_DOUBLE_COMPLEX) under a ticket lock word in the target's lock
 * region ({@link LockWords}). Per element: enter the element's stripe, get the element, compute it
 * with the reference semantics, put it back (a put completes once the bytes are in place at the
 * target), release the stripe. An op that changes nothing puts nothing.
 *
 * <p><b>Entering.</b> When the stripe was free the last time this engine looked, one
 * compare-and-swap from that free word takes the next ticket and enters at once (the uncontended
 * case: one compare-and-swap to enter, one to release, as many as a plain spin lock). Otherwise the
 * element takes a ticket with a fetch-add and waits for its turn, looking at the word with a
 * fetch-add of 0 after a pause in proportion to the turns ahead of it; when its ticket is served
 * and nobody is inside, it enters with a compare-and-swap that writes its owner. Tickets are served
 * in order, so an element waits at most for the tickets ahead of it when it took its own: the
 * elements then in flight on that stripe, from every initiator, plus tickets whose holders died
 * (below).
 *
 * <p><b>Dead holders and dead waiters.</b> A waiter that sees the same served ticket and owner for
 * a whole lease takes that turn away from its holder: the holder is dead (or hung, which is the
 * same to its peers). A turn whose ticket nobody claims (its waiter died, gave up on an error, or
 * was not looking: its thread set aside by the scheduler) is skipped after the claim time, 5 us
 * plus sixteen round trips of a look, at most an eighth of the lease: nobody is inside, so nobody's
 * data depends on it, and a live waiter that missed its turn takes a new ticket. So a holder that
 * dies stalls the stripe for one lease (at once over TCP, where the target frees a dead initiator's
 * turns), and each ticket a dead process left behind for a claim time. This domain's own holdings
 * are never taken away (they are alive). A holder that has held its stripe for half a lease by the
 * time it would put gives the stripe back and starts over instead: its put lands at least half a
 * lease before anyone may take its turn.
 *
 * <p><b>Why two holders are never inside at once.</b> (1) An element is inside from its own
 * successful compare-and-swap that set the owner half from 0 to its owner while the word served its
 * ticket, until the word's (served ticket, owner) pair changes. (2) Every change of that pair is a
 * compare-and-swap of the whole word from a value the changer read: entering needs owner 0 and the
 * entrant's ticket served; releasing, skipping and the target's reclaim each need the exact pair
 * they saw, and each moves to the next ticket with owner 0. The fetch-add that hands out tickets
 * only touches the next-ticket half. (3) So from one pair exactly one change succeeds: a holder's
 * release and a waiter's skip of that holding cannot both advance the served ticket (which would
 * let the ticket after next in beside the next one), and an entry and a skip of the same unclaimed
 * turn cannot both succeed (a waiter whose turn was skipped finds the served ticket past its own
 * and takes a new one; it never enters late). A failed compare-and-swap returns the word, and the
 * changer retries only while the pair is still the one it saw (only the next ticket moved). (4)
 * What remains is taking a turn from a holder that is alive: the target reclaims only after the
 * transport saw the holder's connection fail; a waiter skips a held turn only after the pair stayed
 * the same for a whole lease as the waiter saw it, which began after the holder entered; and the
 * holder does not put after half a lease. That is the lease contract: only a holder stalled for
 * more than half a lease between its check and its put can be overtaken, and its release then finds
 * the pair changed and counts the lock lost. Tickets count modulo 2^16; turns ahead compare within
 * plus or minus 32,767.
 *
 * <p>Each element is a small state machine over preallocated arrays and native scratch, driven by
 * transport completions exactly as in {@link CasLoop}: steps carry tokens {@code tokenBase |
 * element} (bit 30 of the low word), a completion only pushes the element on a {@link StepQueue},
 * and {@link #drain} (the domain's progress, after the transport's) takes the next step. A waiting
 * element is pushed again until its pause has passed. All elements of a call are started before any
 * is waited for. Nothing allocates, nothing locks in the JVM.
 */
public final class RemoteLock {
  /** The low-word token bit that marks a remote-lock step (the CAS loop's is bit 31). */
  public static final long TOKEN_BIT = 0x4000_0000L;

  private static final int FREE = 0;
  private static final int TAKING = 1;
  private static final int TICKETING = 2;
  private static final int WAITING = 3;
  private static final int LOOKING = 4;
  private static final int ENTERING = 5;
  private static final int SKIPPING = 6;
  private static final int GETTING = 7;
  private static final int PUTTING = 8;
  private static final int RELEASING = 9;

  /**
   * A step the transport had no room for ({@code -FI_EAGAIN}: every request slot in flight): it is
   * posted again at the next drain, once completions have given room back ({@link #againOf}).
   */
  private static final int AGAIN = 10;

  /** No ticket, and no (served, owner) pair watched: neither is ever -1. */
  private static final int NO_TICKET = -1;

  private static final long NOTHING_WATCHED = -1;

  /** Per element: the lock word an atomic returns, then old, new, operand and compare (32 each). */
  private static final long WORD = 0;

  private static final long OLD = 16;
  private static final long NEW = OLD + 32;
  private static final long OPERAND = NEW + 32;
  private static final long COMPARE = OPERAND + 32;
  private static final long STRIDE = COMPARE + 32;

  private final int mask;
  private final long tokenBase;
  private final int owner;
  private final long leaseNanos;
  private final TurnPacing pacing;
  private final EmulationCounters counters;
  private final CasLoop.ElementCompletions completions;
  private final MemorySegment scratch;
  private final long scratchBase;

  private final StepQueue queue;
  private final AtomicIntegerArray phases;
  private final ElementRoom room;

  /** The one-element path on mappings ({@link #runMapped}); it shares {@link #lastSeen}. */
  private final MappedLock mapped;

  private int cursor;

  /**
   * The last word seen per stripe: when it was free, the next element starts with a
   * compare-and-swap from it (a wrong guess costs one more); else with a ticket. Written by the
   * posting and the draining thread without ordering, on purpose: any value is a valid guess.
   */
  private final long[] lastSeen = new long[LockWords.STRIPES];

  // one element each
  private final AtomicCell[] cells;
  private final TransportPeer[] peers;
  private final RemoteRegion[] regions;
  private final RemoteRegion[] lockRegions;
  private final long[] offsets;
  private final int[] stripes;
  private final MemorySegment[] results;
  private final long[] resultOffsets;
  private final int[] slots;
  private final int[] statuses;
  private final int[] errors;

  /** The word a posted compare-and-swap expects, and the one it writes. */
  private final long[] expected;

  private final long[] swap;

  /** The word as this element last knew it while inside: what its release expects. */
  private final long[] held;

  private final int[] tickets;

  /** Turns waited: the tickets ahead of each ticket this element took, added up. */
  private final int[] turns;

  private final long[] watched;
  private final long[] watchedSince;

  /**
   * When an element's hold started to count against the lease: when a step after entering went
   * pending, else {@link #NOT_TIMED} (entering, get and compute ran in one call, some hundred
   * nanoseconds, so the clock, 34 ns a read on some machines, is not read at all).
   */
  private final long[] acquiredAt;

  private static final long NOT_TIMED = Long.MIN_VALUE;
  private final long[] notBefore;
  private final boolean[] waited;
  private final boolean[] restarting;

  /** The step ({@link #TAKING} .. {@link #RELEASING}) an element in {@link #AGAIN} posts again. */
  private final int[] againOf;

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
   * @param leaseNanos how long a stripe may stay held, unchanged, before a waiter takes the turn
   *     away from its holder (an eighth of it for a turn nobody entered)
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
    this.pacing = new TurnPacing(leaseNanos);
    this.counters = counters;
    this.completions = completions;
    this.scratch = arena.allocate(n * STRIDE, 16);
    this.scratchBase = scratch.address();
    this.queue = new StepQueue(n);
    this.phases = new AtomicIntegerArray(n);
    this.room = new ElementRoom(n, counters.concurrent()); // the domain's thread model
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
    againOf = new int[n];
    this.mapped = new MappedLock(arena, owner, lastSeen, counters);
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
    return room.reserve(elements);
  }

  /** Gives back reserved room that no element used. */
  public void unreserve(long elements) {
    room.unreserve(elements);
  }

  /**
   * Starts one element: copies its operand and compare bytes (so FI_INJECT and buffer reuse are
   * safe) and posts the first step of entering its stripe.
   *
   * @param offset the element's byte offset in {@code region} (checked: in range, aligned)
   * @param locks the peer's lock region, resolved
   * @param operand the operand's bytes (ignored by ATOMIC_READ)
   * @param compare the compare value's bytes (compare family), or null
   * @param result the buffer the element's old value goes to (fetch and compare families), or null
   * @param resultOffset where in {@code result}
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
      MemorySegment result,
      long resultOffset,
      int slot) {
    int e = claim();
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
    return acquire(e, false);
  }

  /**
   * What {@link #runMapped} returns when the element's stripe was not free: the caller starts the
   * element the ordinary way (a ticket, and its turn).
   */
  public static final int CONTENDED = MappedLock.CONTENDED;

  /**
   * Whether no element is in flight: then an element may run on mappings in place ({@link
   * #runMapped}) without overtaking one of this endpoint's that started before it.
   */
  public boolean nothingInFlight() {
    return room.empty();
  }

  /**
   * One element of a one-element call whose region and lock region the transport mapped into this
   * process ({@link TransportPeer#mapped}), when its stripe is free: the steps of {@link #start}'s
   * uncontended case (a compare-and-swap that takes the free word, a copy out, the compute, a copy
   * back, a compare-and-swap that releases) as this CPU's loads, stores and compare-and-exchanges
   * on the mappings, the transport's own atomics there. The element holds its stripe for this call
   * only, some tens of nanoseconds, so like an element of {@link #start} whose steps all completed
   * in the call it reads no clock.
   *
   * @param offset the element's byte offset in {@code region} (checked: in range, aligned)
   * @param operand the operand's bytes at offset 0 (ignored by ATOMIC_READ)
   * @param compare the compare value's bytes at offset 0 (compare family), or null
   * @param result where the element's old value goes (fetch and compare families), or null
   * @return {@link TransportPeer#DONE}, a negative {@code fi_errno} (the target unchanged), or
   *     {@link #CONTENDED} (nothing done)
   */
  public int runMapped(
      AtomicCell cell,
      RemoteRegion region,
      MemorySegment mapping,
      long offset,
      MemorySegment lockMapping,
      MemorySegment operand,
      MemorySegment compare,
      MemorySegment result) {
    return mapped.run(cell, region, mapping, offset, lockMapping, operand, compare, result);
  }

  /**
   * A transport completion of a step (token's low 32 bits): the next step runs at {@link #drain}.
   */
  public void completed(int low, int status) {
    int e = low & mask;
    statuses[e] = status;
    queue.pushNow(e);
  }

  /**
   * How long the drainer may wait before a step of this engine is due, after a {@link #drain}: 0
   * when an element is ready to step now; until the earliest waiter's next look when only waiters
   * pausing between looks are ready; {@link Long#MAX_VALUE} when none is (every element waits for
   * the transport, whose events end a wait by themselves). A waiter pausing for its turn is no
   * reason to spin: on a machine with fewer cores than spinning threads it takes the core its
   * holder needs.
   */
  public long quietNanos(long now) {
    return queue.quietNanos(now);
  }

  /** Takes the next step of every ready element; returns how many it stepped. */
  public int drain() {
    int e = queue.takeAll();
    int stepped = 0;
    while (e != ReadyStack.EMPTY) {
      int next = queue.next(e); // a step may push e again, which rewrites its link
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
      case TAKING -> taken(e, true);
      case TICKETING -> ticketed(e, true);
      case WAITING -> {
        if (System.nanoTime() - notBefore[e] < 0) {
          queue.pushWaiting(e, notBefore[e]); // not yet: look again at the next progress
        } else {
          look(e, true);
        }
      }
      case LOOKING -> {
        pacing.lookTook(System.nanoTime() - notBefore[e]);
        observe(e, word(e), true);
      }
      case ENTERING -> entered(e, true);
      case SKIPPING -> skipped(e, true);
      case GETTING -> compute(e, true);
      case PUTTING -> release(e, true);
      case RELEASING -> released(e, true);
      case AGAIN -> postAgain(e, againOf[e]);
      default -> throw new IllegalStateException("element " + e + " stepped while free");
    }
  }

  /** The lock word the element's last atomic returned. */
  private long word(int e) {
    return scratch.get(JAVA_LONG, (long) e * STRIDE + WORD);
  }

  /**
   * Starts entering: one compare-and-swap from the stripe's last word seen when that was free, else
   * a ticket.
   */
  private int acquire(int e, boolean reported) {
    tickets[e] = NO_TICKET;
    watched[e] = NOTHING_WATCHED;
    long guess = lastSeen[stripes[e]];
    return LockWords.isFree(guess) ? take(e, guess, reported) : takeTicket(e, reported);
  }

  /** Posts the compare-and-swap that takes the free word {@code from}: ticket and entry at once. */
  private int take(int e, long from, boolean reported) {
    return compareSwap(e, TAKING, from, LockWords.taken(from, owner), reported);
  }

  private int taken(int e, boolean reported) {
    long seen = word(e);
    if (seen == expected[e]) {
      tickets[e] = LockWords.serving(swap[e]);
      return inside(e, reported);
    }
    lastSeen[stripes[e]] = seen;
    // another free generation: try again from it at once; else queue up
    return LockWords.isFree(seen) ? take(e, seen, reported) : takeTicket(e, reported);
  }

  private int takeTicket(int e, boolean reported) {
    phases.setRelease(e, TICKETING);
    int rc =
        peers[e].postAtomic(
            lockRegions[e],
            LockWords.offset(stripes[e]),
            RemoteAtomicOp.ADD,
            8,
            LockWords.TICKET,
            scratchBase + (long) e * STRIDE + WORD,
            tokenBase | e);
    if (rc == TransportPeer.PENDING) {
      return rc;
    }
    if (rc == -FiErrno.EAGAIN) {
      return again(e, TICKETING); // no ticket was taken
    }
    if (rc < 0) {
      return finish(e, rc, reported);
    }
    return ticketed(e, reported);
  }

  /** The fetch-add returned the word before it: the next ticket in it is this element's. */
  private int ticketed(int e, boolean reported) {
    long before = word(e);
    int ticket = LockWords.next(before);
    tickets[e] = ticket;
    int ahead = Math.max(0, LockWords.ahead(ticket, before));
    turns[e] += ahead;
    counters.ticketTaken(ahead);
    return observe(e, before + LockWords.TICKET, reported);
  }

  /** Looks at the word again: a fetch-add of 0. */
  private int look(int e, boolean reported) {
    phases.setRelease(e, LOOKING);
    int rc =
        peers[e].postAtomic(
            lockRegions[e],
            LockWords.offset(stripes[e]),
            RemoteAtomicOp.ADD,
            8,
            0,
            scratchBase + (long) e * STRIDE + WORD,
            tokenBase | e);
    if (rc == TransportPeer.PENDING) {
      notBefore[e] = System.nanoTime(); // when the look left, for its round trip
      return rc;
    }
    if (rc == -FiErrno.EAGAIN) {
      return again(e, LOOKING);
    }
    if (rc < 0) {
      return finish(e, rc, reported); // its ticket is skipped once its turn stays unclaimed
    }
    return observe(e, word(e), reported);
  }

  /**
   * A waiting element learned the stripe's word {@code w}: enter when its ticket is served and
   * nobody is inside, take a new ticket when its turn has passed, skip a turn stuck for its lease,
   * else pause for about the time the turns ahead should take (the next in line does not pause).
   */
  private int observe(int e, long w, boolean reported) {
    lastSeen[stripes[e]] = w;
    int ahead = LockWords.ahead(tickets[e], w);
    int inside = LockWords.owner(w);
    if (ahead < 0) {
      return takeTicket(e, reported); // skipped while this element was not looking
    }
    if (ahead == 0 && inside == 0) {
      return compareSwap(e, ENTERING, w, LockWords.entered(w, owner), reported);
    }
    waited[e] = true;
    long now = System.nanoTime();
    long head = LockWords.head(w);
    if (head != watched[e]) {
      if (watched[e] != NOTHING_WATCHED) {
        int moved = (short) (LockWords.serving(w) - (int) (watched[e] >>> 32));
        pacing.turnsPassed(moved, now - watchedSince[e]);
      }
      watched[e] = head; // a new turn: its lease starts now, as far as this element knows
      watchedSince[e] = now;
    } else if (inside == 0
        ? now - watchedSince[e] >= pacing.claimNanos()
        : inside != owner && now - watchedSince[e] >= leaseNanos) {
      // the turn is stuck: end it, and enter at once when this element's ticket is next
      long next = LockWords.released(w);
      return compareSwap(
          e, SKIPPING, w, ahead == 1 ? LockWords.entered(next, owner) : next, reported);
    }
    notBefore[e] = now + pacing.pauseNanos(ahead);
    phases.setRelease(e, WAITING);
    queue.pushWaiting(e, notBefore[e]);
    return TransportPeer.PENDING;
  }

  private int entered(int e, boolean reported) {
    long seen = word(e);
    return seen == expected[e] ? inside(e, reported) : observe(e, seen, reported);
  }

  private int skipped(int e, boolean reported) {
    long seen = word(e);
    if (seen != expected[e]) {
      return observe(e, seen, reported); // the turn moved on, or only the next ticket did
    }
    if (LockWords.owner(seen) != 0) {
      counters.lockTakenOver(); // its holder let a whole lease pass: dead
    } else {
      counters.turnSkipped(); // nobody came for that ticket
    }
    if (LockWords.owner(swap[e]) == owner) {
      return inside(e, reported);
    }
    watched[e] = NOTHING_WATCHED; // the stuck turn says nothing about how long turns take
    return observe(e, swap[e], reported);
  }

  /** Posts a compare-and-swap of the element's lock word; its result comes to {@code phase}. */
  private int compareSwap(int e, int phase, long from, long to, boolean reported) {
    expected[e] = from;
    swap[e] = to;
    phases.setRelease(e, phase);
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
    if (rc == -FiErrno.EAGAIN) {
      // nothing was posted: the same compare-and-swap goes again (a release above all must not
      // fail, or a live holder would keep its stripe for a lease)
      return again(e, phase);
    }
    if (rc < 0) {
      return finish(e, rc, reported);
    }
    return switch (phase) {
      case TAKING -> taken(e, reported);
      case ENTERING -> entered(e, reported);
      case SKIPPING -> skipped(e, reported);
      default -> released(e, reported);
    };
  }

  /** The element's compare-and-swap put it inside: the word is {@link #swap}. */
  private int inside(int e, boolean reported) {
    held[e] = swap[e];
    acquiredAt[e] = NOT_TIMED; // timed only if a step after this one goes pending
    counters.lockAcquired();
    return get(e, reported);
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
    if (rc == -FiErrno.EAGAIN) {
      return again(e, GETTING);
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
    if (ElementSemantics.sameBytes(scratch, base + OLD, scratch, base + NEW, size)) {
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
    return put(e, reported);
  }

  /** Posts the put of NEW. */
  private int put(int e, boolean reported) {
    phases.setRelease(e, PUTTING);
    int rc =
        peers[e].postPut(
            regions[e],
            offsets[e],
            cells[e].size(),
            scratchBase + (long) e * STRIDE + NEW,
            tokenBase | e);
    if (rc == TransportPeer.PENDING) {
      return rc;
    }
    if (rc == -FiErrno.EAGAIN) {
      return again(e, PUTTING);
    }
    if (rc < 0) {
      errors[e] = rc;
    }
    return release(e, reported);
  }

  /** A step the transport had no room for: see {@link #AGAIN}. The element stays pending. */
  private int again(int e, int step) {
    againOf[e] = step;
    phases.setRelease(e, AGAIN);
    queue.pushNow(e);
    return TransportPeer.PENDING;
  }

  /** Posts again the step the transport had no room for. */
  private void postAgain(int e, int step) {
    switch (step) {
      case TAKING, ENTERING, SKIPPING, RELEASING ->
          compareSwap(e, step, expected[e], swap[e], true);
      case TICKETING -> takeTicket(e, true);
      case LOOKING -> look(e, true);
      case GETTING -> get(e, true);
      case PUTTING -> put(e, true);
      default -> throw new IllegalStateException("element " + e + " again in phase " + step);
    }
  }

  /** Posts the release: the next ticket served, nobody inside. */
  private int release(int e, boolean reported) {
    return compareSwap(e, RELEASING, held[e], LockWords.released(held[e]), reported);
  }

  private int released(int e, boolean reported) {
    long seen = word(e);
    if (seen == held[e]) {
      lastSeen[stripes[e]] = swap[e];
    } else if (LockWords.head(seen) == LockWords.head(held[e])) {
      held[e] = seen; // tickets were taken meanwhile: still inside, give back from this word
      return release(e, reported);
    } else {
      counters.lockLost(); // its turn was taken while held: only a holder stalled for a lease
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
    if (status == 0
        && results[e] != null
        && !ResultBuffers.copy(
            scratch, (long) e * STRIDE + OLD, results[e], resultOffsets[e], cell.size())) {
      status = -FiErrno.EINVAL; // its arena closed before the operation completed
    }
    results[e] = null;
    counters.lockElement(waited[e], turns[e]);
    int slot = slots[e];
    cells[e] = null;
    peers[e] = null;
    regions[e] = null;
    lockRegions[e] = null;
    phases.setRelease(e, FREE);
    room.release();
    if (reported) {
      completions.completed(slot, status);
    }
    return status == 0 ? TransportPeer.DONE : status;
  }

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
}
