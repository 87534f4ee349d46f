package dev.fiucx.emulation;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import dev.fiucx.semantics.AtomicCell;
import dev.fiucx.semantics.AtomicTable;
import dev.fiucx.spi.RemoteAtomicOp;
import dev.fiucx.spi.RemoteRegion;
import dev.fiucx.spi.TransportPeer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The redo records of the remote lock ({@link LockRedo}) against a peer whose region and lock
 * region are mapped into this process (as over shared memory): a holder that died mid-copy of a
 * DOUBLE_COMPLEX left the element half old, half new, and its record armed; the next holder, on the
 * mapped path ({@link MappedLock}) or the step machine's ({@link LockSteps}), after the target's
 * reclaim or a waiter's takeover, completes the write before it reads. Every value is exact.
 */
class RemoteLockRedoTest {
  private static final int SLOT = 3;
  private static final int OWNER = 0x1234;
  private static final int DEAD = 0x7777;
  private static final long TOKENS = (2L << 32) | RemoteLock.TOKEN_BIT;
  private static final long AT = 16; // the element's offset in the region
  private static final byte GUARD = 0x5A;

  private static final AtomicCell FETCH_SUM =
      AtomicTable.reference().cell(AtomicFamily.FETCH, FiOp.SUM, FiDatatype.DOUBLE_COMPLEX);

  @SuppressWarnings("restricted")
  private static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

  private final Arena arena = Arena.ofShared();
  // the region's 64 bytes, and 64 guard bytes after it that nothing may write
  private final MemorySegment backing = arena.allocate(128, 16);
  private final MemorySegment memory = backing.asSlice(0, 64);
  private final MemorySegment lockWords = arena.allocate(LockWords.REGION_BYTES, 64);
  private final MemorySegment operand = arena.allocate(32, 16);
  private final MemorySegment result = arena.allocate(32, 16);
  private final EmulationCounters counters = new EmulationCounters();
  private final List<String> reported = new ArrayList<>();
  private final SegmentRegion data = new SegmentRegion(memory);
  private final SegmentRegion locks = new SegmentRegion(lockWords);
  private final MappedPeer peer = new MappedPeer();
  private final int stripe = LockWords.stripe(memory.address() + AT);
  private RemoteLock lock = newLock(TimeUnit.SECONDS.toNanos(10));

  private RemoteLock newLock(long leaseNanos) {
    return new RemoteLock(
        8,
        arena,
        TOKENS,
        OWNER,
        leaseNanos,
        counters,
        (slot, status, mayHaveApplied) -> reported.add(slot + ":" + status));
  }

  @AfterEach
  void close() {
    arena.close();
  }

  // the element before the dead holder's write, and what it wrote
  private static final double OLD_RE = 1.0;
  private static final double OLD_IM = 2.0;
  private static final double N_RE = 10.5;
  private static final double N_IM = -3.25;

  /**
   * The dead holder's state: it held the stripe as {@code word}, armed its record with (N_RE, N_IM)
   * for the element at {@code address}, and died after the first 8 bytes of its copy.
   */
  private void deadMidCopy(long word, long address) {
    setWord(word);
    memory.set(JAVA_DOUBLE, AT, N_RE); // written
    memory.set(JAVA_DOUBLE, AT + 8, OLD_IM); // not yet
    arm(word, address, 16);
  }

  private void arm(long tag, long address, long size) {
    lockWords.set(JAVA_LONG, LockWords.recordAddress(stripe), address);
    lockWords.set(JAVA_LONG, LockWords.recordSize(stripe), size);
    lockWords.set(JAVA_DOUBLE, LockWords.recordValue(stripe), N_RE);
    lockWords.set(JAVA_DOUBLE, LockWords.recordValue(stripe) + 8, N_IM);
    lockWords.set(JAVA_LONG, LockWords.recordTag(stripe), tag);
  }

  private void setWord(long word) {
    lockWords.set(JAVA_LONG, LockWords.offset(stripe), word);
  }

  private long word() {
    return lockWords.get(JAVA_LONG, LockWords.offset(stripe));
  }

  private long tag() {
    return lockWords.get(JAVA_LONG, LockWords.recordTag(stripe));
  }

  private void operand(double re, double im) {
    operand.set(JAVA_DOUBLE, 0, re);
    operand.set(JAVA_DOUBLE, 8, im);
  }

  private int runMapped() {
    return lock.runMapped(FETCH_SUM, data, memory, AT, lockWords, operand, null, result);
  }

  private int start() {
    assertTrue(lock.reserve(1));
    return lock.start(FETCH_SUM, peer, data, AT, locks, operand, 0, null, 0, result, 0, SLOT);
  }

  /** Drains until the element is reported, at most {@code nanos}. */
  private void settleWithin(long nanos) {
    long deadline = System.nanoTime() + nanos;
    while (reported.isEmpty() && System.nanoTime() - deadline < 0) {
      lock.drain();
    }
  }

  private void assertElement(double re, double im) {
    assertEquals(re, memory.get(JAVA_DOUBLE, AT), "real part");
    assertEquals(im, memory.get(JAVA_DOUBLE, AT + 8), "imaginary part");
  }

  private void assertResult(double re, double im) {
    assertEquals(re, result.get(JAVA_DOUBLE, 0), "fetched real part");
    assertEquals(im, result.get(JAVA_DOUBLE, 8), "fetched imaginary part");
  }

  private void assertGuardUntouched() {
    for (long i = 64; i < 128; i++) {
      assertEquals(GUARD, backing.get(JAVA_BYTE, i), "guard byte " + i);
    }
  }

  /** An address of another region whose elements share this element's stripe. */
  private long foreignAddressOfTheStripe(long step) {
    for (long a = memory.address() + AT + step; ; a += step) {
      boolean outside = a < memory.address() || a >= backing.address() + 128;
      if (LockWords.stripe(a) == stripe && outside) {
        return a;
      }
    }
  }

  {
    backing.asSlice(64).fill(GUARD);
  }

  /** A target that holds none of the records' elements: they stay for a mapped holder. */
  private static final LockWords.RedoTarget NOWHERE = (address, from, fromOffset, size) -> false;

  /** The target's own memory: this test's region. */
  private boolean intoTheRegion(long address, MemorySegment from, long fromOffset, int size) {
    long offset = address - memory.address();
    if (offset < 0 || offset > memory.byteSize() - size) {
      return false;
    }
    MemorySegment.copy(from, fromOffset, memory, offset, size);
    return true;
  }

  @Test
  void theTargetCompletesADeadHoldersArmedWriteWhenItReclaimsTheTurn() {
    long dead = LockWords.taken(LockWords.word(7, 7, 0), DEAD);
    deadMidCopy(dead, memory.address() + AT);
    // a ticket taken since the holder armed: the turn is still the same
    lockWords.set(JAVA_LONG, LockWords.offset(stripe), dead + LockWords.TICKET);
    assertEquals(1, LockWords.reclaim(lockWords, DEAD, this::intoTheRegion, counters));
    assertElement(N_RE, N_IM); // before anyone enters: a holder that maps nothing reads it whole
    assertEquals(0, tag());
    assertEquals(1, counters.writesRedone());
    assertEquals(LockWords.word(9, 8, 0), word());
    assertGuardUntouched();
  }

  @Test
  void theTargetLeavesARecordOfAnotherTurnOrOfMemoryItDoesNotHold() {
    long dead = LockWords.taken(LockWords.word(7, 7, 0), DEAD);
    deadMidCopy(dead, memory.address() + AT);
    lockWords.set(JAVA_LONG, LockWords.recordTag(stripe), dead - (1L << 32)); // an earlier turn's
    LockWords.reclaim(lockWords, DEAD, this::intoTheRegion, counters);
    assertEquals(OLD_IM, memory.get(JAVA_DOUBLE, AT + 8), "half written, as the holder left it");
    assertEquals(0, counters.writesRedone());

    lockWords.set(JAVA_LONG, LockWords.offset(stripe), dead);
    lockWords.set(JAVA_LONG, LockWords.recordTag(stripe), dead);
    LockWords.reclaim(lockWords, DEAD, NOWHERE, counters);
    assertEquals(dead, tag(), "left armed for a mapped holder of the element");
    assertEquals(0, counters.writesRedone());
  }

  @Test
  void onMappingsAReclaimedDeadHoldersWriteIsCompletedBeforeTheRead() {
    long dead = LockWords.taken(LockWords.word(7, 7, 0), DEAD);
    deadMidCopy(dead, memory.address() + AT);
    assertEquals(
        1, LockWords.reclaim(lockWords, DEAD, NOWHERE, counters), "the target frees its turn");
    assertEquals(LockWords.word(8, 8, 0), word());
    operand(1, 2);
    assertEquals(TransportPeer.DONE, runMapped());
    assertResult(N_RE, N_IM);
    assertElement(11.5, -1.25);
    assertEquals(0, tag(), "completed, and the new write disarmed");
    assertEquals(LockWords.word(9, 9, 0), word());
    assertEquals(1, counters.writesRedone());
    assertGuardUntouched();
  }

  @Test
  void throughTheStepsAReclaimedDeadHoldersWriteIsCompletedAndThePutIsArmed() {
    long dead = LockWords.taken(LockWords.word(7, 7, 0), DEAD);
    deadMidCopy(dead, memory.address() + AT);
    assertEquals(1, LockWords.reclaim(lockWords, DEAD, NOWHERE, counters));
    operand(1, 2);
    assertEquals(TransportPeer.DONE, start());
    assertResult(N_RE, N_IM);
    assertElement(11.5, -1.25);
    assertEquals(0, tag());
    assertEquals(LockWords.word(9, 9, 0), word());
    // a wrong guess of the free word, the take, the get, the put (with the record armed by then:
    // this element's held word as its tag), the release
    long mine = LockWords.taken(LockWords.word(8, 8, 0), OWNER);
    assertEquals(
        List.of("CAS lock", "CAS lock", "GET 16/16", "PUT 16/16 tag " + mine, "CAS lock"),
        peer.log);
    assertEquals(1, counters.writesRedone());
    // the put was armed: the record holds the new write, its tag cleared after the copy
    assertEquals(memory.address() + AT, lockWords.get(JAVA_LONG, LockWords.recordAddress(stripe)));
    assertEquals(16, lockWords.get(JAVA_LONG, LockWords.recordSize(stripe)));
    assertEquals(11.5, lockWords.get(JAVA_DOUBLE, LockWords.recordValue(stripe)));
    assertEquals(-1.25, lockWords.get(JAVA_DOUBLE, LockWords.recordValue(stripe) + 8));
  }

  @Test
  void aWaiterThatTakesOverADeadHoldersTurnCompletesItsWrite() {
    lock = newLock(TimeUnit.MILLISECONDS.toNanos(20));
    long dead = LockWords.word(6, 5, DEAD); // ticket 5 inside, nobody waiting
    deadMidCopy(dead, memory.address() + AT);
    operand(1, 2);
    assertEquals(TransportPeer.PENDING, start());
    settleWithin(TimeUnit.SECONDS.toNanos(5));
    assertEquals(List.of(SLOT + ":0"), reported);
    assertEquals(1, counters.locksTakenOver());
    assertResult(N_RE, N_IM);
    assertElement(11.5, -1.25);
    assertEquals(0, tag());
    assertEquals(LockWords.word(7, 7, 0), word());
    assertEquals(1, counters.writesRedone());
  }

  @Test
  void anotherRegionsArmedRecordIsLeftForItsElementAndNotOverwritten() {
    long dead = LockWords.taken(LockWords.word(7, 7, 0), DEAD);
    long elsewhere = foreignAddressOfTheStripe(16);
    setWord(dead);
    memory.set(JAVA_DOUBLE, AT, OLD_RE);
    memory.set(JAVA_DOUBLE, AT + 8, OLD_IM);
    arm(dead, elsewhere, 16);
    LockWords.reclaim(lockWords, DEAD, NOWHERE, counters);
    operand(1, 2);
    assertEquals(TransportPeer.DONE, runMapped());
    assertResult(OLD_RE, OLD_IM);
    assertElement(2.0, 4.0);
    assertEquals(dead, tag(), "still armed for its own element");
    assertEquals(elsewhere, lockWords.get(JAVA_LONG, LockWords.recordAddress(stripe)));
    assertEquals(N_RE, lockWords.get(JAVA_DOUBLE, LockWords.recordValue(stripe)));
    assertEquals(N_IM, lockWords.get(JAVA_DOUBLE, LockWords.recordValue(stripe) + 8));
    assertEquals(0, counters.writesRedone());
    // the step machine alike: put without a record, the foreign one kept
    assertEquals(TransportPeer.DONE, start());
    assertEquals("PUT 16/16 tag " + dead, peer.log.get(peer.log.size() - 2));
    assertElement(3.0, 6.0);
    assertEquals(dead, tag());
    assertEquals(N_RE, lockWords.get(JAVA_DOUBLE, LockWords.recordValue(stripe)));
    assertGuardUntouched();
  }

  @Test
  void aRecordOfASizeNoHolderWritesIsClearedUnapplied() {
    long dead = LockWords.taken(LockWords.word(7, 7, 0), DEAD);
    setWord(dead);
    memory.set(JAVA_DOUBLE, AT, OLD_RE);
    memory.set(JAVA_DOUBLE, AT + 8, OLD_IM);
    arm(dead, memory.address() + AT, 1L << 40); // garbage a peer wrote into the lock region
    LockWords.reclaim(lockWords, DEAD, NOWHERE, counters);
    operand(1, 2);
    assertEquals(TransportPeer.DONE, runMapped());
    assertResult(OLD_RE, OLD_IM);
    assertElement(2.0, 4.0);
    assertEquals(0, tag(), "cleared: no element of this stripe could be that");
    assertEquals(0, counters.writesRedone());
    assertGuardUntouched();
  }

  @Test
  void aRecordBeforeTheMappingIsNeverApplied() {
    long dead = LockWords.taken(LockWords.word(7, 7, 0), DEAD);
    long before = foreignAddressOfTheStripe(-8); // below the mapping, of this stripe
    setWord(dead);
    memory.set(JAVA_DOUBLE, AT, OLD_RE);
    memory.set(JAVA_DOUBLE, AT + 8, OLD_IM);
    arm(dead, before, 32);
    LockWords.reclaim(lockWords, DEAD, NOWHERE, counters);
    operand(1, 2);
    assertEquals(TransportPeer.DONE, runMapped());
    assertResult(OLD_RE, OLD_IM);
    assertElement(2.0, 4.0);
    assertEquals(dead, tag(), "not this mapping's: left armed");
    assertEquals(0, counters.writesRedone());
    assertGuardUntouched();
  }

  /** A record at the mapping's last element that claims 32 bytes: 16 of them past its end. */
  @Test
  void aRecordReachingPastTheMappingsEndIsNeverApplied() {
    long last = 48;
    int lastStripe = LockWords.stripe(memory.address() + last);
    long dead = LockWords.taken(0, DEAD);
    lockWords.set(JAVA_LONG, LockWords.offset(lastStripe), dead);
    MemorySegment record = lockWords.asSlice(LockWords.recordTag(lastStripe), 64);
    record.fill((byte) 0x11); // the value: 32 bytes of 0x11
    record.set(JAVA_LONG, 8, memory.address() + last);
    record.set(JAVA_LONG, 16, 32);
    record.set(JAVA_LONG, 0, dead);
    LockWords.reclaim(lockWords, DEAD, NOWHERE, counters);
    memory.set(JAVA_DOUBLE, last, 4.0);
    memory.set(JAVA_DOUBLE, last + 8, 8.0);
    operand(1, 2);
    assertEquals(
        TransportPeer.DONE,
        lock.runMapped(FETCH_SUM, data, memory, last, lockWords, operand, null, result));
    assertResult(4.0, 8.0);
    assertEquals(5.0, memory.get(JAVA_DOUBLE, last));
    assertEquals(10.0, memory.get(JAVA_DOUBLE, last + 8));
    assertEquals(dead, record.get(JAVA_LONG, 0), "not applicable here: left armed");
    assertEquals(0, counters.writesRedone());
    assertGuardUntouched();
  }

  @Test
  void aNormalElementLeavesItsRecordDisarmed() {
    memory.set(JAVA_DOUBLE, AT, OLD_RE);
    memory.set(JAVA_DOUBLE, AT + 8, OLD_IM);
    operand(1, 2);
    assertEquals(TransportPeer.DONE, runMapped());
    assertResult(OLD_RE, OLD_IM);
    assertElement(2.0, 4.0);
    assertEquals(0, tag());
    assertEquals(LockWords.word(1, 1, 0), word());
    assertEquals(TransportPeer.DONE, start());
    assertResult(2.0, 4.0);
    assertElement(3.0, 6.0);
    assertEquals(0, tag());
    assertEquals(LockWords.word(2, 2, 0), word());
    assertEquals(0, counters.writesRedone());
    assertGuardUntouched();
  }

  @Test
  void aPendingPutKeepsTheRecordArmedUntilItCompletes() {
    memory.set(JAVA_DOUBLE, AT, OLD_RE);
    memory.set(JAVA_DOUBLE, AT + 8, OLD_IM);
    peer.putPends = true;
    operand(1, 2);
    assertEquals(TransportPeer.PENDING, start());
    long mine = LockWords.taken(0, OWNER);
    assertEquals(mine, tag(), "armed while the put is out");
    assertEquals(2.0, lockWords.get(JAVA_DOUBLE, LockWords.recordValue(stripe)));
    assertEquals(4.0, lockWords.get(JAVA_DOUBLE, LockWords.recordValue(stripe) + 8));
    peer.pendingPut.run();
    settleWithin(TimeUnit.SECONDS.toNanos(5));
    assertEquals(List.of(SLOT + ":0"), reported);
    assertEquals(0, tag());
    assertElement(2.0, 4.0);
    assertEquals(LockWords.word(1, 1, 0), word());
  }

  @Test
  void aPutTheTransportRefusedLeavesNoRecordArmed() {
    memory.set(JAVA_DOUBLE, AT, OLD_RE);
    memory.set(JAVA_DOUBLE, AT + 8, OLD_IM);
    peer.refusePutWith = -dev.fiucx.FiErrno.EIO;
    operand(1, 2);
    assertEquals(-dev.fiucx.FiErrno.EIO, start());
    assertEquals(0, tag(), "nothing was written: nothing for the next holder to complete");
    assertElement(OLD_RE, OLD_IM);
    assertEquals(LockWords.word(1, 1, 0), word(), "released");
  }

  @Test
  void theLockRegionLaysOutWordsThenOneRecordPerStripe() {
    assertEquals(LockWords.STRIPES * 8L + LockWords.STRIPES * 64L, LockWords.REGION_BYTES);
    assertEquals(32768, LockWords.recordTag(0));
    assertEquals(32768 + 64 * 4095 + 32, LockWords.recordValue(4095));
    assertEquals(LockWords.REGION_BYTES, LockWords.recordValue(4095) + 32);
    assertEquals(32768 + 64 + 8, LockWords.recordAddress(1));
    assertEquals(32768 + 64 + 16, LockWords.recordSize(1));
  }

  /** A peer whose regions are mapped here: every op is done at once on their memory. */
  private final class MappedPeer implements TransportPeer {
    final List<String> log = new ArrayList<>();

    @Override
    public MemorySegment mapped(RemoteRegion remote) {
      return ((SegmentRegion) remote).segment;
    }

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
      assertEquals(locks, remote);
      log.add(value == 0 ? "LOOK lock" : "TICKET lock");
      long old = lockWords.get(JAVA_LONG, offset);
      lockWords.set(JAVA_LONG, offset, old + value);
      ALL.set(JAVA_LONG, r, old);
      return DONE;
    }

    @Override
    public int postCompareSwap(
        RemoteRegion remote, long offset, int size, long compare, long swap, long r, long t) {
      assertEquals(locks, remote);
      log.add("CAS lock");
      long old = lockWords.get(JAVA_LONG, offset);
      if (old == compare) {
        lockWords.set(JAVA_LONG, offset, swap);
      }
      ALL.set(JAVA_LONG, r, old);
      return DONE;
    }

    @Override
    public int postGet(RemoteRegion remote, long offset, int length, long local, long token) {
      log.add("GET " + offset + "/" + length);
      MemorySegment.copy(memory, offset, ALL, local, length);
      return DONE;
    }

    /** What a put returns without writing, when not 0 (a refusal). */
    int refusePutWith;

    /** Whether a put stays pending until {@link #pendingPut} runs. */
    boolean putPends;

    Runnable pendingPut;

    @Override
    public int postPut(RemoteRegion remote, long offset, int length, long local, long token) {
      log.add("PUT " + offset + "/" + length + " tag " + tag()); // armed while it writes
      if (refusePutWith != 0) {
        return refusePutWith;
      }
      if (putPends) {
        pendingPut =
            () -> {
              MemorySegment.copy(ALL, local, memory, offset, length);
              lock.completed((int) token, 0);
            };
        return PENDING;
      }
      MemorySegment.copy(ALL, local, memory, offset, length);
      return DONE;
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
