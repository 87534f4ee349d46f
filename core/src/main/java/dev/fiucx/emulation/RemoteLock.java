package dev.fiucx.emulation;

import dev.fiucx.semantics.AtomicCell;
import dev.fiucx.spi.RemoteRegion;
import dev.fiucx.spi.TransportPeer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

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
 * <p><b>Torn elements.</b> An element wider than 8 bytes that its holder writes through a mapping
 * of the target's memory (the mapped path, and the put of a peer whose region and lock region are
 * both mapped: over shared memory the transport's put is this process's own copy) is several
 * stores: a holder killed in the middle would leave it torn for the next holder to compute on and
 * fetch. So such a write goes through the stripe's redo record in the lock region ({@link
 * LockWords}, {@link LockRedo}): armed with the new bytes before the copy (or the put), cleared
 * once it completed; and whoever enters the stripe on a mapped element completes a write that a
 * turn which ended unfinished left armed, before it reads. The target's reclaim of a dead owner's
 * stripes leaves the records alone: every later holder of the element repairs it on entry. A put
 * the target process writes itself (TCP, RC) arrives whole and needs no record.
 *
 * <p>The engine is made of parts, each with one job: {@link LockSteps}, the state machine that
 * carries each element through its steps, driven by transport completions exactly as in {@link
 * CasLoop} (steps carry tokens {@code tokenBase | element}, bit 30 of the low word; a completion
 * only queues the element, and {@link #drain} takes its next step), over the per-element arrays and
 * native scratch of {@link LockElements}; {@link StepQueue}, which elements step at the next drain
 * and when a waiter is due; {@link TurnPacing}, how long waiters pause and how long a turn may stay
 * unclaimed; {@link MappedLock}, the element run in place on mappings ({@link #runMapped}). All
 * elements of a call are started before any is waited for. Nothing allocates, nothing locks in the
 * JVM.
 */
public final class RemoteLock {
  /** The low-word token bit that marks a remote-lock step (the CAS loop's is bit 31). */
  public static final long TOKEN_BIT = 0x4000_0000L;

  /**
   * What {@link #runMapped} returns when the element's stripe was not free: the caller starts the
   * element the ordinary way (a ticket, and its turn).
   */
  public static final int CONTENDED = MappedLock.CONTENDED;

  private final ElementRoom room;
  private final LockSteps steps;
  private final MappedLock mapped;

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
    // The last word seen per stripe, which the step machine and the mapped path share: when it was
    // free, the next element starts with a compare-and-swap from it (a wrong guess costs one more);
    // else with a ticket. Written by the posting and the draining thread without ordering, on
    // purpose: any value is a valid guess.
    long[] lastSeen = new long[LockWords.STRIPES];
    this.room = new ElementRoom(n, counters.concurrent()); // the domain's thread model
    this.steps =
        new LockSteps(
            n, arena, tokenBase, owner, leaseNanos, lastSeen, room, counters, completions);
    this.mapped = new MappedLock(arena, owner, lastSeen, counters);
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
    int e =
        steps.claim(
            cell,
            peer,
            region,
            offset,
            locks,
            operand,
            operandOffset,
            compare,
            compareOffset,
            result,
            resultOffset,
            slot);
    return steps.begin(e);
  }

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
    steps.completed(low, status);
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
    return steps.quietNanos(now);
  }

  /** Takes the next step of every ready element; returns how many it stepped. */
  public int drain() {
    return steps.drain();
  }
}
