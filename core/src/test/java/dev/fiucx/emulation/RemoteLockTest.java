package dev.fiucx.emulation;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiOp;
import dev.fiucx.semantics.AtomicCell;
import dev.fiucx.semantics.AtomicTable;
import dev.fiucx.spi.RemoteAtomicOp;
import dev.fiucx.spi.RemoteRegion;
import dev.fiucx.spi.TransportPeer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The remote lock against a transport simulated in memory: the steps of an element, a stripe held
 * by another owner, a dead holder's lease, this domain's own holdings, failures. Every value is
 * asserted exactly.
 */
class RemoteLockTest {
  private static final int SLOT = 5;
  private static final int OWNER = 0x1234;
  private static final int OTHER = 0x7777;
  private static final long TOKENS = (2L << 32) | RemoteLock.TOKEN_BIT;

  @SuppressWarnings("restricted")
  private static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

  private final Arena arena = Arena.ofShared();
  private final MemorySegment memory = arena.allocate(64, 16);
  private final MemorySegment lockWords = arena.allocate(LockWords.REGION_BYTES, 8);
  private final MemorySegment operand = arena.allocate(32, 16);
  private final MemorySegment result = arena.allocate(32, 16);
  private final EmulationCounters counters = new EmulationCounters();
  private final List<String> reported = new ArrayList<>();
  private final SegmentRegion data = new SegmentRegion(memory);
  private final SegmentRegion locks = new SegmentRegion(lockWords);
  private final FakePeer peer = new FakePeer();
  private RemoteLock lock = newLock(TimeUnit.SECONDS.toNanos(10));

  private RemoteLock newLock(long leaseNanos) {
    return new RemoteLock(
        8,
        arena,
        TOKENS,
        OWNER,
        leaseNanos,
        counters,
        (slot, status, mayHaveApplied) ->
            reported.add(
                slot + ":" + status + (status != 0 && mayHaveApplied ? " uncertain" : "")));
  }

  @AfterEach
  void close() {
    arena.close();
  }

  private static final AtomicCell FETCH_SUM =
      AtomicTable.reference().cell(AtomicFamily.FETCH, FiOp.SUM, FiDatatype.DOUBLE_COMPLEX);

  private int startSum(double re, double im) {
    operand.set(JAVA_DOUBLE, 0, re);
    operand.set(JAVA_DOUBLE, 8, im);
    return start(FETCH_SUM, 16);
  }

  private int start(AtomicCell cell, long offset) {
    assertTrue(lock.reserve(1));
    return lock.start(
        cell,
        peer,
        data,
        offset,
        locks,
        operand,
        0,
        null,
        0,
        cell.family() == AtomicFamily.BASE ? null : result,
        0,
        SLOT);
  }

  private long stripeWord(long offset) {
    return lockWords.get(JAVA_LONG, LockWords.offset(LockWords.stripe(memory.address() + offset)));
  }

  private void setStripeWord(long offset, long word) {
    lockWords.set(JAVA_LONG, LockWords.offset(LockWords.stripe(memory.address() + offset)), word);
  }

  /** Runs queued transport steps and drains until nothing is left, at most {@code nanos}. */
  private void settleWithin(long nanos) {
    long deadline = System.nanoTime() + nanos;
    while (System.nanoTime() - deadline < 0 && (!peer.queue.isEmpty() || lock.drain() > 0)) {
      while (!peer.queue.isEmpty()) {
        peer.queue.poll().run();
      }
    }
  }

  @Test
  void aResultBufferFreedBeforeTheElementEndsGetsAnErrorInsteadOfAWrite() {
    peer.pending = true;
    Arena caller = Arena.ofShared();
    MemorySegment freed = caller.allocate(16, 16);
    memory.set(JAVA_DOUBLE, 16, 1.5);
    operand.set(JAVA_DOUBLE, 0, 1.0);
    assertTrue(lock.reserve(1));
    assertEquals(
        TransportPeer.PENDING,
        lock.start(FETCH_SUM, peer, data, 16, locks, operand, 0, null, 0, freed, 0, SLOT));
    caller.close(); // against libfabric's rule: buffers live until their completion
    settleWithin(TimeUnit.SECONDS.toNanos(5));
    assertEquals(List.of(SLOT + ":" + -FiErrno.EINVAL + " uncertain"), reported);
    assertEquals(2.5, memory.get(JAVA_DOUBLE, 16), "the op itself was applied");
    assertEquals(LockWords.word(1, 1, 0), stripeWord(16), "the stripe given back");
  }

  // runMapped: the element in place on mappings (memory and lockWords stand for the peer's)

  private int runMapped(AtomicCell cell, long offset) {
    return lock.runMapped(
        cell,
        data,
        memory,
        offset,
        lockWords,
        operand,
        null,
        cell.family() == AtomicFamily.BASE ? null : result);
  }

  @Test
  void onMappingsAFreeStripeIsTakenComputedAndReleasedInPlace() {
    memory.set(JAVA_DOUBLE, 16, 1.5);
    memory.set(JAVA_DOUBLE, 24, -2.0);
    setStripeWord(16, LockWords.word(41, 41, 0)); // free, 41 tickets served
    operand.set(JAVA_DOUBLE, 0, 1.0);
    operand.set(JAVA_DOUBLE, 8, 0.25);
    assertEquals(TransportPeer.DONE, runMapped(FETCH_SUM, 16));
    assertEquals(2.5, memory.get(JAVA_DOUBLE, 16));
    assertEquals(-1.75, memory.get(JAVA_DOUBLE, 24));
    assertEquals(1.5, result.get(JAVA_DOUBLE, 0));
    assertEquals(-2.0, result.get(JAVA_DOUBLE, 8));
    assertEquals(LockWords.word(42, 42, 0), stripeWord(16), "one ticket taken and served");
    assertEquals(List.of(), peer.log, "nothing went through the transport");
    assertEquals(1, counters.lockElements());
    assertEquals(1, counters.lockAcquisitions());
    assertEquals(0, counters.lockWaits());
    assertTrue(lock.nothingInFlight());
  }

  @Test
  void onMappingsAHeldStripeIsLeftAloneForTheOrdinaryPath() {
    memory.set(JAVA_DOUBLE, 16, 1.5);
    long heldByOther = LockWords.word(3, 2, OTHER);
    setStripeWord(16, heldByOther);
    operand.set(JAVA_DOUBLE, 0, 1.0);
    assertEquals(RemoteLock.CONTENDED, runMapped(FETCH_SUM, 16));
    assertEquals(heldByOther, stripeWord(16), "no ticket taken");
    assertEquals(1.5, memory.get(JAVA_DOUBLE, 16));
    assertEquals(0, counters.lockElements());
    assertEquals(0, counters.lockAcquisitions());
  }

  @Test
  void onMappingsAnOpThatChangesNothingPutsNothing() {
    memory.set(JAVA_DOUBLE, 16, 7.0);
    memory.set(JAVA_DOUBLE, 24, 8.0);
    operand.set(JAVA_DOUBLE, 0, 0.0);
    operand.set(JAVA_DOUBLE, 8, 0.0);
    assertEquals(TransportPeer.DONE, runMapped(FETCH_SUM, 16));
    assertEquals(7.0, result.get(JAVA_DOUBLE, 0));
    assertEquals(8.0, result.get(JAVA_DOUBLE, 8));
    assertEquals(1, counters.putsSkipped());
    assertEquals(LockWords.word(1, 1, 0), stripeWord(16));
  }

  @Test
  void onMappingsARevokedRegionIsReleasedUnchangedWithAnError() {
    memory.set(JAVA_DOUBLE, 16, 1.5);
    result.set(JAVA_LONG, 0, 0x5A5A);
    operand.set(JAVA_DOUBLE, 0, 1.0);
    data.revoked = true;
    assertEquals(-FiErrno.EKEYREJECTED, runMapped(FETCH_SUM, 16));
    assertEquals(1.5, memory.get(JAVA_DOUBLE, 16));
    assertEquals(0x5A5A, result.get(JAVA_LONG, 0), "no result on an error");
    assertEquals(LockWords.word(1, 1, 0), stripeWord(16), "the stripe given back");
  }

  @Test
  void anElementIsAcquireGetComputePutRelease() {
    memory.set(JAVA_DOUBLE, 16, 1.5);
    memory.set(JAVA_DOUBLE, 24, -2.0);
    assertEquals(TransportPeer.DONE, startSum(1.0, 0.25));
    assertEquals(List.of("CAS lock", "GET 16/16", "PUT 16/16", "CAS lock"), peer.log);
    assertEquals(2.5, memory.get(JAVA_DOUBLE, 16));
    assertEquals(-1.75, memory.get(JAVA_DOUBLE, 24));
    assertEquals(1.5, result.get(JAVA_DOUBLE, 0));
    assertEquals(-2.0, result.get(JAVA_DOUBLE, 8));
    assertEquals(LockWords.released(LockWords.taken(0, OWNER)), stripeWord(16));
    assertEquals(LockWords.word(1, 1, 0), stripeWord(16), "ticket 0 served and done, free");
    assertEquals(1, counters.lockAcquisitions());
    assertEquals(1, counters.lockElements());
    assertEquals(0, counters.lockWaits());
    assertEquals(List.of(), reported, "a DONE element is not reported");
  }

  @Test
  void theNextAcquireStartsFromTheFreeWordLastSeen() {
    startSum(1, 0);
    startSum(1, 0);
    // one CAS each to take and to give back: the second guessed ticket 1 right
    assertEquals(8, peer.log.size());
    assertEquals(2.0, memory.get(JAVA_DOUBLE, 16));
    assertEquals(LockWords.word(2, 2, 0), stripeWord(16));
    assertEquals(0, counters.lockTurns());
  }

  @Test
  void aWrongGuessCostsOneMoreCompareAndSwap() {
    setStripeWord(16, LockWords.word(41, 41, 0)); // free, 41 tickets served
    assertEquals(TransportPeer.DONE, startSum(1, 0));
    assertEquals(List.of("CAS lock", "CAS lock", "GET 16/16", "PUT 16/16", "CAS lock"), peer.log);
    assertEquals(LockWords.word(42, 42, 0), stripeWord(16));
    assertEquals(0, counters.lockWaits(), "a free stripe is no wait");
  }

  @Test
  void anOpThatChangesNothingPutsNothing() {
    memory.set(JAVA_DOUBLE, 16, 3.0);
    AtomicCell read =
        AtomicTable.reference()
            .cell(AtomicFamily.FETCH, FiOp.ATOMIC_READ, FiDatatype.DOUBLE_COMPLEX);
    assertEquals(TransportPeer.DONE, start(read, 16));
    assertEquals(TransportPeer.DONE, startSum(0.0, 0.0));
    assertEquals(
        List.of("CAS lock", "GET 16/16", "CAS lock", "CAS lock", "GET 16/16", "CAS lock"),
        peer.log);
    assertEquals(1, counters.putsSkipped(), "the zero SUM; a READ never puts");
    assertEquals(3.0, result.get(JAVA_DOUBLE, 0));
  }

  @Test
  void aHeldStripeIsWaitedForUntilItsHolderReleases() {
    setStripeWord(16, LockWords.taken(0, OTHER)); // ticket 0, inside
    assertEquals(TransportPeer.PENDING, startSum(1, 0));
    assertEquals(List.of("CAS lock", "TICKET lock"), peer.log, "a held stripe: queue up");
    settleWithin(TimeUnit.MILLISECONDS.toNanos(20));
    assertEquals(List.of(), reported, "still waiting");
    assertEquals(LockWords.word(2, 0, OTHER), stripeWord(16), "ticket 1 taken");
    setStripeWord(16, LockWords.released(stripeWord(16))); // the holder lets go
    settleWithin(TimeUnit.SECONDS.toNanos(5));
    assertEquals(List.of(SLOT + ":0"), reported);
    assertEquals(1.0, memory.get(JAVA_DOUBLE, 16));
    assertEquals(1, counters.lockWaits());
    assertEquals(0, counters.locksTakenOver());
    assertEquals(1, counters.maxLockTurns(), "one turn ahead");
    assertEquals(LockWords.word(2, 2, 0), stripeWord(16));
  }

  /**
   * A step the transport has no room for (-FI_EAGAIN: request slots full) is posted again at the
   * next drain, every step alike: the element ends exact, and above all its release is never
   * dropped (a live holder would keep the stripe for a lease).
   */
  @Test
  void everyStepRefusedForRoomIsPostedAgain() {
    memory.set(JAVA_DOUBLE, 16, 1.5);
    peer.fullEveryOther = true;
    assertEquals(TransportPeer.PENDING, startSum(1.0, 0.25));
    settleWithin(TimeUnit.SECONDS.toNanos(5));
    assertEquals(
        List.of(
            "CAS lock",
            "full",
            "CAS lock",
            "GET 16/16",
            "full",
            "GET 16/16",
            "PUT 16/16",
            "full",
            "PUT 16/16",
            "CAS lock",
            "full",
            "CAS lock"),
        peer.log);
    assertEquals(List.of(SLOT + ":0"), reported);
    assertEquals(2.5, memory.get(JAVA_DOUBLE, 16));
    assertEquals(0.25, memory.get(JAVA_DOUBLE, 24));
    assertEquals(1.5, result.get(JAVA_DOUBLE, 0));
    assertEquals(LockWords.word(1, 1, 0), stripeWord(16), "released: free");
  }

  /** The same for a waiter's ticket and looks. */
  @Test
  void aWaitersTicketAndLooksRefusedForRoomArePostedAgain() {
    setStripeWord(16, LockWords.taken(0, OTHER)); // ticket 0, inside
    peer.fullEveryOther = true;
    assertEquals(TransportPeer.PENDING, startSum(1, 0));
    settleWithin(TimeUnit.MILLISECONDS.toNanos(20));
    assertEquals(LockWords.word(2, 0, OTHER), stripeWord(16), "exactly one ticket taken");
    assertTrue(peer.log.contains("LOOK lock"), "looked: " + peer.log);
    setStripeWord(16, LockWords.released(stripeWord(16))); // the holder lets go
    settleWithin(TimeUnit.SECONDS.toNanos(5));
    assertEquals(List.of(SLOT + ":0"), reported);
    assertEquals(1.0, memory.get(JAVA_DOUBLE, 16));
    assertEquals(LockWords.word(2, 2, 0), stripeWord(16));
    assertEquals(0, counters.locksTakenOver());
  }

  /** Tickets are served in order: an element enters after every ticket ahead of it, no sooner. */
  @Test
  void everyTicketAheadIsServedFirst() {
    setStripeWord(16, LockWords.word(3, 0, OTHER)); // 0 inside, 1 and 2 waiting
    assertEquals(TransportPeer.PENDING, startSum(1, 0));
    assertEquals(LockWords.word(4, 0, OTHER), stripeWord(16), "ticket 3 is ours");
    for (int served = 1; served <= 2; served++) {
      setStripeWord(16, LockWords.word(4, served, OTHER)); // a ticket ahead: its holder is inside
      settleWithin(TimeUnit.MILLISECONDS.toNanos(5));
      assertEquals(LockWords.word(4, served, OTHER), stripeWord(16), "turn " + served);
      assertEquals(List.of(), reported);
    }
    setStripeWord(16, LockWords.word(4, 3, 0));
    settleWithin(TimeUnit.SECONDS.toNanos(5));
    assertEquals(List.of(SLOT + ":0"), reported);
    assertEquals(LockWords.word(4, 4, 0), stripeWord(16));
    assertEquals(3, counters.maxLockTurns());
    assertEquals(3, counters.lockTurns());
    assertEquals(3, counters.maxTicketTurns());
    assertEquals(1, counters.tickets());
    assertEquals(0, counters.turnsSkipped());
  }

  /**
   * A turn whose ticket nobody claims (its waiter died, or is not looking) is skipped after the
   * claim time, at least 20 us, and the element whose ticket is next enters with the same
   * compare-and-swap.
   */
  @Test
  void aTurnNobodyClaimsIsSkipped() {
    setStripeWord(16, LockWords.word(2, 1, 0)); // ticket 1 served, its waiter gone
    long start = System.nanoTime();
    assertEquals(TransportPeer.PENDING, startSum(1, 0));
    settleWithin(TimeUnit.SECONDS.toNanos(5));
    long waited = System.nanoTime() - start;
    assertTrue(waited >= TimeUnit.MICROSECONDS.toNanos(20), "not before: " + waited);
    assertEquals(List.of(SLOT + ":0"), reported);
    assertEquals(1.0, memory.get(JAVA_DOUBLE, 16));
    assertEquals(1, counters.turnsSkipped());
    assertEquals(0, counters.locksTakenOver());
    assertEquals(LockWords.word(3, 3, 0), stripeWord(16));
  }

  /** A waiter whose turn was skipped while it did not look never enters late: it queues again. */
  @Test
  void aWaiterWhoseTurnPassedTakesANewTicket() {
    setStripeWord(16, LockWords.word(1, 0, OTHER));
    assertEquals(TransportPeer.PENDING, startSum(1, 0)); // ticket 1
    setStripeWord(16, LockWords.word(3, 2, OTHER)); // 1 was skipped, 2 is inside
    settleWithin(TimeUnit.MILLISECONDS.toNanos(20));
    assertEquals(LockWords.word(4, 2, OTHER), stripeWord(16), "ticket 3 taken, 2 left alone");
    assertEquals(List.of(), reported);
    setStripeWord(16, LockWords.word(4, 3, 0));
    settleWithin(TimeUnit.SECONDS.toNanos(5));
    assertEquals(List.of(SLOT + ":0"), reported);
    assertEquals(LockWords.word(4, 4, 0), stripeWord(16));
    assertEquals(2, counters.lockTurns(), "one turn ahead of each ticket");
    assertEquals(2, counters.tickets());
    assertEquals(1, counters.maxTicketTurns());
    assertEquals(1, counters.lockAcquisitions());
  }

  /** Tickets taken while an element is inside cost its release one more compare-and-swap. */
  @Test
  void aReleaseRetriesFromTheWordItFindsWhileItsTurnLasts() {
    peer.pending = true;
    assertEquals(TransportPeer.PENDING, startSum(1, 0));
    peer.queue.poll().run(); // the take lands
    lock.drain(); // the get goes out
    setStripeWord(16, stripeWord(16) + LockWords.TICKET); // someone queues up meanwhile
    settleWithin(TimeUnit.SECONDS.toNanos(5));
    assertEquals(List.of(SLOT + ":0"), reported);
    assertEquals(List.of("CAS lock", "GET 16/16", "PUT 16/16", "CAS lock", "CAS lock"), peer.log);
    assertEquals(LockWords.word(2, 1, 0), stripeWord(16), "ticket 1's turn now");
    assertEquals(0, counters.locksLost());
  }

  /** A release that finds its turn taken (it stalled for a lease) changes nothing and says so. */
  @Test
  void aReleaseThatFindsItsTurnTakenCountsTheLockLost() {
    peer.pending = true;
    assertEquals(TransportPeer.PENDING, startSum(1, 0));
    peer.queue.poll().run();
    lock.drain();
    long takenOver = LockWords.word(2, 1, OTHER); // a waiter skipped our turn and entered
    setStripeWord(16, takenOver);
    settleWithin(TimeUnit.SECONDS.toNanos(5));
    assertEquals(1, counters.locksLost());
    assertEquals(takenOver, stripeWord(16), "the new holder's turn is left alone");
  }

  @Test
  void aStripeUnchangedForALeaseIsTakenOver() {
    lock = newLock(TimeUnit.MILLISECONDS.toNanos(30));
    long dead = LockWords.word(6, 5, OTHER); // ticket 5 inside, nobody waiting
    setStripeWord(16, dead);
    long start = System.nanoTime();
    assertEquals(TransportPeer.PENDING, startSum(1, 0));
    settleWithin(TimeUnit.SECONDS.toNanos(5));
    assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(30), "not before");
    assertEquals(List.of(SLOT + ":0"), reported);
    assertEquals(1.0, memory.get(JAVA_DOUBLE, 16));
    assertEquals(1, counters.locksTakenOver());
    assertEquals(0, counters.turnsSkipped());
    // ticket 6 took the dead holder's turn and entered with one compare-and-swap
    assertEquals(LockWords.word(7, 7, 0), stripeWord(16));
  }

  @Test
  void thisDomainsOwnHoldingIsNeverTakenOver() {
    lock = newLock(TimeUnit.MILLISECONDS.toNanos(1));
    long mine = LockWords.taken(0, OWNER); // another endpoint of this domain holds it: alive
    setStripeWord(16, mine);
    assertEquals(TransportPeer.PENDING, startSum(1, 0));
    settleWithin(TimeUnit.MILLISECONDS.toNanos(30));
    assertEquals(List.of(), reported);
    assertEquals(mine + LockWords.TICKET, stripeWord(16), "waiting with ticket 1");
    setStripeWord(16, LockWords.released(mine + LockWords.TICKET));
    settleWithin(TimeUnit.SECONDS.toNanos(5));
    assertEquals(List.of(SLOT + ":0"), reported);
    assertEquals(0, counters.locksTakenOver());
  }

  /**
   * A hold whose get stayed pending for more than half a lease gives its lock back and starts over
   * instead of putting (a waiter may take it over at any moment); one whose steps all ran in the
   * call is never timed.
   */
  @Test
  void aHoldPendingForHalfALeaseStartsOverAndStillComputesOnce() throws Exception {
    lock = newLock(TimeUnit.MILLISECONDS.toNanos(20));
    assertEquals(TransportPeer.DONE, startSum(1, 0)); // all inline: no clock, no restart
    assertEquals(0, counters.lockRestarts());
    peer.pending = true;
    assertEquals(TransportPeer.PENDING, startSum(1, 0));
    peer.queue.poll().run(); // the acquire's compare-and-swap lands
    lock.drain(); // the element posts its get, which stays pending
    assertEquals("GET 16/16", peer.log.getLast());
    Thread.sleep(15); // more than half the lease
    settleWithin(TimeUnit.SECONDS.toNanos(5));
    assertEquals(1, counters.lockRestarts());
    assertEquals(2.0, memory.get(JAVA_DOUBLE, 16), "1 + 1, the second exactly once");
    assertEquals(List.of(SLOT + ":0"), reported);
    assertTrue(LockWords.isFree(stripeWord(16)));
  }

  @Test
  void stepsThatCompleteLaterCarryTheBaseAndTheElement() {
    peer.pending = true;
    assertEquals(TransportPeer.PENDING, startSum(2, 0));
    assertEquals(TOKENS, peer.lastToken & ~0xFFL);
    assertTrue(RemoteLock.owns((int) peer.lastToken));
    assertFalse(RemoteLock.owns(SLOT));
    assertFalse(RemoteLock.owns((int) CasLoop.TOKEN_BIT));
    settleWithin(TimeUnit.SECONDS.toNanos(5));
    assertEquals(List.of(SLOT + ":0"), reported);
    assertEquals(2.0, memory.get(JAVA_DOUBLE, 16));
    assertTrue(LockWords.isFree(stripeWord(16)));
  }

  @Test
  void aFailedGetReleasesTheLockAndReportsTheError() {
    peer.pending = true;
    peer.failGetWith = -FiErrno.EIO;
    memory.set(JAVA_DOUBLE, 16, 7.0);
    assertEquals(TransportPeer.PENDING, startSum(1, 0));
    settleWithin(TimeUnit.SECONDS.toNanos(5));
    assertEquals(List.of(SLOT + ":" + -FiErrno.EIO), reported);
    assertEquals(7.0, memory.get(JAVA_DOUBLE, 16), "unchanged");
    assertTrue(LockWords.isFree(stripeWord(16)), "released");
    assertEquals(List.of("CAS lock", "GET 16/16", "CAS lock"), peer.log);
  }

  @Test
  void aPutWhoseAnswerIsLostEndsUncertainAndTheElementHoldsTheNewValue() {
    peer.pending = true;
    peer.putAnswerLostWith = -FiErrno.ECONNRESET;
    memory.set(JAVA_DOUBLE, 16, 7.0);
    assertEquals(TransportPeer.PENDING, startSum(1, 0));
    settleWithin(TimeUnit.SECONDS.toNanos(5));
    assertEquals(List.of(SLOT + ":" + -FiErrno.ECONNRESET + " uncertain"), reported);
    assertEquals(8.0, memory.get(JAVA_DOUBLE, 16), "applied: what uncertain allows");
    assertTrue(LockWords.isFree(stripeWord(16)), "the peer still answers: released");
  }

  @Test
  void aReleaseThatFailsAfterThePutCompletedEndsTheElementWithoutError() {
    peer.pending = true;
    peer.releaseAnswerLostWith = -FiErrno.ECONNRESET;
    memory.set(JAVA_DOUBLE, 16, 7.0);
    assertEquals(TransportPeer.PENDING, startSum(1, 0));
    settleWithin(TimeUnit.SECONDS.toNanos(5));
    assertEquals(List.of(SLOT + ":0"), reported, "its effect is in place at the target");
    assertEquals(8.0, memory.get(JAVA_DOUBLE, 16));
    assertEquals(List.of("CAS lock", "GET 16/16", "PUT 16/16", "CAS lock"), peer.log);
  }

  @Test
  void aRevokedRegionIsNeitherReadNorWritten() {
    data.revoked = true;
    assertEquals(-FiErrno.EKEYREJECTED, startSum(1, 0));
    assertEquals(List.of("CAS lock", "CAS lock"), peer.log);
    assertTrue(LockWords.isFree(stripeWord(16)));
  }

  @Test
  void roomIsReservedPerCall() {
    peer.pending = true;
    for (int i = 0; i < 8; i++) {
      assertEquals(TransportPeer.PENDING, startSum(1, 0));
    }
    assertFalse(lock.reserve(1), "eight elements in flight fill it");
    settleWithin(TimeUnit.SECONDS.toNanos(5));
    assertEquals(8.0, memory.get(JAVA_DOUBLE, 16), "eight SUMs on one element, one at a time");
    assertTrue(lock.reserve(8));
  }

  @Test
  void theTargetReclaimsOnlyTheDeadOwnersStripes() {
    lockWords.set(JAVA_LONG, 0, LockWords.word(5, 3, OTHER)); // ticket 4 waits
    lockWords.set(JAVA_LONG, 8, LockWords.taken(0, OWNER));
    lockWords.set(JAVA_LONG, 16, LockWords.word(10, 9, OTHER));
    lockWords.set(JAVA_LONG, 24, LockWords.word(7, 6, 0)); // its ticket 6, unclaimed: not known
    assertEquals(2, LockWords.reclaim(lockWords, OTHER, (a, f, o, n) -> false, counters));
    assertEquals(LockWords.word(5, 4, 0), lockWords.get(JAVA_LONG, 0), "ticket 4's turn");
    assertEquals(LockWords.taken(0, OWNER), lockWords.get(JAVA_LONG, 8));
    assertEquals(LockWords.word(10, 10, 0), lockWords.get(JAVA_LONG, 16), "free");
    assertEquals(LockWords.word(7, 6, 0), lockWords.get(JAVA_LONG, 24));
  }

  @Test
  void stripesSpreadElementsAndOwnersAreNeverZero() {
    java.util.Set<Integer> seen = new java.util.HashSet<>();
    for (long a = 0; a < 4096 * 16; a += 16) {
      int s = LockWords.stripe(0x7f00_0000_0000L + a);
      assertTrue(s >= 0 && s < LockWords.STRIPES);
      seen.add(s);
    }
    assertTrue(seen.size() > LockWords.STRIPES / 2, "used " + seen.size() + " stripes");
    assertEquals(1, LockWords.ownerOf(0x1234_5678_1234_5678L));
    assertEquals(0x1234_5678 ^ 0x9abc_def0, LockWords.ownerOf(0x1234_5678_9abc_def0L));
  }

  /** Executes on the regions' memory at once (DONE) or, when {@link #pending}, when run. */
  private final class FakePeer implements TransportPeer {
    final List<String> log = new ArrayList<>();
    final ArrayDeque<Runnable> queue = new ArrayDeque<>();
    boolean pending;
    int failGetWith;
    long lastToken;

    /** Pending puts are applied, then completed with this status: their answer was lost. */
    int putAnswerLostWith;

    /** The same for the first lock compare-and-swap after a put: the release's answer lost. */
    int releaseAnswerLostWith;

    private boolean afterPut;

    /** Every other post is refused with -FI_EAGAIN (request slots full), the first included. */
    boolean fullEveryOther;

    private boolean refuseNext = true;

    @Override
    public RemoteRegion cached(long key) {
      return data;
    }

    @Override
    public int resolve(long key) {
      return 0;
    }

    @Override
    public int postAtomic(
        RemoteRegion remote, long offset, RemoteAtomicOp op, int size, long value, long r, long t) {
      // tickets and looks are fetch-adds on the lock word; nothing else goes through here
      assertEquals(locks, remote);
      assertEquals(RemoteAtomicOp.ADD, op);
      assertEquals(8, size);
      assertTrue(value == 0 || value == LockWords.TICKET);
      log.add(value == 0 ? "LOOK lock" : "TICKET lock");
      return run(
          t,
          0,
          () -> {
            long old = lockWords.get(JAVA_LONG, offset);
            lockWords.set(JAVA_LONG, offset, old + value);
            ALL.set(JAVA_LONG, r, old);
          });
    }

    @Override
    public int postCompareSwap(
        RemoteRegion remote,
        long offset,
        int size,
        long compare,
        long swap,
        long resultAddress,
        long token) {
      assertEquals(locks, remote);
      assertEquals(8, size);
      log.add("CAS lock");
      int lost = afterPut ? releaseAnswerLostWith : 0;
      afterPut = false;
      return run(
          token,
          0,
          lost,
          () -> {
            long old = lockWords.get(JAVA_LONG, offset);
            if (old == compare) {
              lockWords.set(JAVA_LONG, offset, swap);
            }
            ALL.set(JAVA_LONG, resultAddress, old);
          });
    }

    @Override
    public int postGet(
        RemoteRegion remote, long offset, int length, long localAddress, long token) {
      assertEquals(data, remote);
      log.add("GET " + offset + "/" + length);
      return run(
          token, failGetWith, () -> MemorySegment.copy(memory, offset, ALL, localAddress, length));
    }

    @Override
    public int postPut(
        RemoteRegion remote, long offset, int length, long localAddress, long token) {
      assertEquals(data, remote);
      log.add("PUT " + offset + "/" + length);
      afterPut = true;
      return run(
          token,
          0,
          putAnswerLostWith,
          () -> MemorySegment.copy(ALL, localAddress, memory, offset, length));
    }

    private int run(long token, int status, Runnable op) {
      return run(token, status, 0, op);
    }

    /** As a transport: {@code status} fails the op unapplied, {@code lost} after it applied. */
    private int run(long token, int status, int lost, Runnable op) {
      if (fullEveryOther) {
        refuseNext = !refuseNext;
        if (!refuseNext) {
          log.add("full");
          return -dev.fiucx.FiErrno.EAGAIN;
        }
      }
      lastToken = token;
      if (!pending) {
        if (status != 0) {
          return status;
        }
        op.run();
        return DONE;
      }
      queue.add(
          () -> {
            if (status == 0) {
              op.run();
            }
            lock.completed((int) token, status != 0 ? status : lost);
          });
      return PENDING;
    }

    @Override
    public void abandon(int errno, String why) {}

    @Override
    public boolean failed() {
      return false;
    }

    @Override
    public void close() {}
  }
}
