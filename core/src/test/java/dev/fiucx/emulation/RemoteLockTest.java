package dev.fiucx.emulation;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
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
  private final FakeRegion data = new FakeRegion(memory);
  private final FakeRegion locks = new FakeRegion(lockWords);
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
        (slot, status) -> reported.add(slot + ":" + status));
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
        cell.family() == AtomicFamily.BASE ? 0 : result.address(),
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
  void anElementIsAcquireGetComputePutRelease() {
    memory.set(JAVA_DOUBLE, 16, 1.5);
    memory.set(JAVA_DOUBLE, 24, -2.0);
    assertEquals(TransportPeer.DONE, startSum(1.0, 0.25));
    assertEquals(List.of("CAS lock", "GET 16/16", "PUT 16/16", "CAS lock"), peer.log);
    assertEquals(2.5, memory.get(JAVA_DOUBLE, 16));
    assertEquals(-1.75, memory.get(JAVA_DOUBLE, 24));
    assertEquals(1.5, result.get(JAVA_DOUBLE, 0));
    assertEquals(-2.0, result.get(JAVA_DOUBLE, 8));
    assertEquals(LockWords.released(LockWords.taken(0, OWNER)), stripeWord(16), "gen 1, free");
    assertEquals(1, counters.lockAcquisitions());
    assertEquals(1, counters.lockElements());
    assertEquals(0, counters.lockWaits());
    assertEquals(List.of(), reported, "a DONE element is not reported");
  }

  @Test
  void theNextAcquireStartsFromTheFreeWordLastSeen() {
    startSum(1, 0);
    startSum(1, 0);
    // one CAS each to take and to give back: the second guessed generation 1 right
    assertEquals(8, peer.log.size());
    assertEquals(2.0, memory.get(JAVA_DOUBLE, 16));
    assertEquals(LockWords.released(LockWords.taken(1L << 32, OWNER)), stripeWord(16));
  }

  @Test
  void aWrongGuessCostsOneMoreCompareAndSwap() {
    setStripeWord(16, 41L << 32); // free, generation 41
    assertEquals(TransportPeer.DONE, startSum(1, 0));
    assertEquals(List.of("CAS lock", "CAS lock", "GET 16/16", "PUT 16/16", "CAS lock"), peer.log);
    assertEquals(42L << 32, stripeWord(16));
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
    long theirs = LockWords.taken(0, OTHER);
    setStripeWord(16, theirs);
    assertEquals(TransportPeer.PENDING, startSum(1, 0));
    settleWithin(TimeUnit.MILLISECONDS.toNanos(20));
    assertEquals(List.of(), reported, "still waiting");
    assertEquals(theirs, stripeWord(16));
    setStripeWord(16, LockWords.released(theirs)); // the holder lets go
    settleWithin(TimeUnit.SECONDS.toNanos(5));
    assertEquals(List.of(SLOT + ":0"), reported);
    assertEquals(1.0, memory.get(JAVA_DOUBLE, 16));
    assertEquals(1, counters.lockWaits());
    assertEquals(0, counters.locksTakenOver());
    assertEquals(LockWords.released(LockWords.taken(theirs, OWNER)), stripeWord(16));
  }

  @Test
  void aStripeUnchangedForALeaseIsTakenOver() {
    lock = newLock(TimeUnit.MILLISECONDS.toNanos(30));
    long dead = LockWords.taken(5L << 32, OTHER);
    setStripeWord(16, dead);
    long start = System.nanoTime();
    assertEquals(TransportPeer.PENDING, startSum(1, 0));
    settleWithin(TimeUnit.SECONDS.toNanos(5));
    assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(30), "not before");
    assertEquals(List.of(SLOT + ":0"), reported);
    assertEquals(1.0, memory.get(JAVA_DOUBLE, 16));
    assertEquals(1, counters.locksTakenOver());
    assertEquals(LockWords.released(LockWords.taken(dead, OWNER)), stripeWord(16));
  }

  @Test
  void thisDomainsOwnHoldingIsNeverTakenOver() {
    lock = newLock(TimeUnit.MILLISECONDS.toNanos(1));
    long mine = LockWords.taken(0, OWNER); // another endpoint of this domain holds it: alive
    setStripeWord(16, mine);
    assertEquals(TransportPeer.PENDING, startSum(1, 0));
    settleWithin(TimeUnit.MILLISECONDS.toNanos(30));
    assertEquals(List.of(), reported);
    assertEquals(mine, stripeWord(16));
    setStripeWord(16, LockWords.released(mine));
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
    lockWords.set(JAVA_LONG, 0, LockWords.taken(3L << 32, OTHER));
    lockWords.set(JAVA_LONG, 8, LockWords.taken(0, OWNER));
    lockWords.set(JAVA_LONG, 16, LockWords.taken(9L << 32, OTHER));
    assertEquals(2, LockWords.reclaim(lockWords, OTHER));
    assertEquals(5L << 32, lockWords.get(JAVA_LONG, 0), "free, a generation on");
    assertEquals(LockWords.taken(0, OWNER), lockWords.get(JAVA_LONG, 8));
    assertEquals(11L << 32, lockWords.get(JAVA_LONG, 16));
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

  private static final class FakeRegion implements RemoteRegion {
    final MemorySegment segment;
    boolean revoked;

    FakeRegion(MemorySegment segment) {
      this.segment = segment;
    }

    @Override
    public long base() {
      return segment.address();
    }

    @Override
    public long length() {
      return segment.byteSize();
    }

    @Override
    public long access() {
      return FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE;
    }

    @Override
    public boolean revoked() {
      return revoked;
    }

    @Override
    public String path() {
      return "fake";
    }
  }

  /** Executes on the regions' memory at once (DONE) or, when {@link #pending}, when run. */
  private final class FakePeer implements TransportPeer {
    final List<String> log = new ArrayList<>();
    final ArrayDeque<Runnable> queue = new ArrayDeque<>();
    boolean pending;
    int failGetWith;
    long lastToken;

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
      throw new AssertionError("the remote lock takes and gives back with compare-and-swaps");
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
      return run(
          token,
          0,
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
      return run(token, 0, () -> MemorySegment.copy(ALL, localAddress, memory, offset, length));
    }

    private int run(long token, int status, Runnable op) {
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
            lock.completed((int) token, status);
          });
      return PENDING;
    }

    @Override
    public boolean failed() {
      return false;
    }

    @Override
    public void close() {}
  }
}
