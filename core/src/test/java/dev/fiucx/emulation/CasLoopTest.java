package dev.fiucx.emulation;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The CAS loop against a transport simulated in memory: steps that complete at once or later, other
 * writers that slip in between read and swap, failures. Every value asserted exactly.
 */
class CasLoopTest {
  private static final int SLOT = 7;
  private static final long TOKENS = (3L << 32) | CasLoop.TOKEN_BIT;

  @SuppressWarnings("restricted")
  private static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

  private final Arena arena = Arena.ofShared();
  private final MemorySegment memory = arena.allocate(64, 8);
  private final MemorySegment results = arena.allocate(64, 8);
  private final EmulationCounters counters = new EmulationCounters();
  private final List<String> reported = new ArrayList<>();
  private final SegmentRegion region = new SegmentRegion(memory);
  private final FakePeer peer = new FakePeer();
  private CasLoop loop = newLoop(16);

  private CasLoop newLoop(int capacity) {
    return new CasLoop(
        capacity,
        arena,
        TOKENS,
        counters,
        (slot, status, mayHaveApplied) ->
            reported.add(
                slot + ":" + status + (status != 0 && mayHaveApplied ? " uncertain" : "")));
  }

  @AfterEach
  void close() {
    arena.close();
  }

  private static AtomicCell cell(AtomicFamily family, FiOp op, FiDatatype dt) {
    return AtomicTable.reference().cell(family, op, dt);
  }

  private int start(AtomicCell cell, long offset, long operand, long compare, long resultOffset) {
    assertTrue(loop.reserve(1));
    return loop.start(
        cell,
        peer,
        region,
        offset,
        operand,
        compare,
        cell.family() == AtomicFamily.BASE ? null : results,
        resultOffset,
        SLOT);
  }

  /** Runs the simulated transport's queued steps and the loop's drains until nothing is left. */
  private void settle() {
    while (!peer.queue.isEmpty() || loop.drain() > 0) {
      while (!peer.queue.isEmpty()) {
        peer.queue.poll().run();
      }
    }
  }

  @Test
  void aByteIsSwappedInItsLaneAndTheOtherLanesStay() {
    memory.set(JAVA_INT, 0, 0x44332211);
    AtomicCell sum = cell(AtomicFamily.FETCH, FiOp.SUM, FiDatatype.UINT8);
    for (int lane = 0; lane < 4; lane++) {
      assertEquals(TransportPeer.DONE, start(sum, lane, 0xF0, 0, lane));
    }
    assertEquals(0x34231201, memory.get(JAVA_INT, 0));
    assertEquals(0x44332211, results.get(JAVA_INT, 0), "each lane fetched its own old byte");
    assertEquals(List.of("R0", "C0", "R0", "C0", "R0", "C0", "R0", "C0"), peer.log);
    assertEquals(List.of(), reported, "elements finished at once are not reported");
    assertEquals(4, counters.casAttempts());
  }

  @Test
  void aShortInTheUpperHalfOfAnEightByteAlignedWordUsesTheWordAtFour() {
    memory.set(JAVA_LONG, 0, 0x8877665544332211L);
    AtomicCell max = cell(AtomicFamily.FETCH, FiOp.MAX, FiDatatype.INT16);
    assertEquals(TransportPeer.DONE, start(max, 6, 0x7FFF, 0, 0));
    assertEquals(0x7FFF665544332211L, memory.get(JAVA_LONG, 0), "-30601 < 32767");
    assertEquals((short) 0x8877, results.get(JAVA_SHORT, 0));
    assertEquals(List.of("R4", "C4"), peer.log);
  }

  @Test
  void anOpThatChangesNothingPostsNoSwap() {
    memory.set(JAVA_LONG, 8, 5);
    AtomicCell min = cell(AtomicFamily.FETCH, FiOp.MIN, FiDatatype.INT64);
    assertEquals(TransportPeer.DONE, start(min, 8, 9, 0, 0));
    assertEquals(5, memory.get(JAVA_LONG, 8));
    assertEquals(5, results.get(JAVA_LONG, 0));
    assertEquals(List.of("R8"), peer.log);
    assertEquals(1, counters.swapsSkipped());
    assertEquals(0, counters.casAttempts());
  }

  @Test
  void aLostSwapRetriesFromTheValueItSawAndFetchesThatValue() {
    memory.set(JAVA_LONG, 0, 10);
    peer.interfere = 3; // three other writers add 100 between this read or retry and its swap
    AtomicCell prod = cell(AtomicFamily.FETCH, FiOp.PROD, FiDatatype.INT64);
    assertEquals(TransportPeer.DONE, start(prod, 0, 2, 0, 0));
    assertEquals(2 * 310, memory.get(JAVA_LONG, 0));
    assertEquals(310, results.get(JAVA_LONG, 0), "the old value of the step that held");
    assertEquals(List.of("R0", "C0", "C0", "C0", "C0"), peer.log, "one read, no re-reads");
    assertEquals(4, counters.casAttempts());
    assertEquals(3, counters.casRetries());
  }

  @Test
  void stepsTheTransportHasNoRoomForRunAgainAtTheNextDrain() {
    memory.set(JAVA_LONG, 0, 10);
    AtomicCell max = cell(AtomicFamily.FETCH, FiOp.MAX, FiDatatype.INT64);
    peer.refused = java.util.Set.of(0, 2); // the first read, and the swap after the second
    assertEquals(TransportPeer.PENDING, start(max, 0, 42, 0, 0));
    assertEquals(10, memory.get(JAVA_LONG, 0), "nothing happened yet");
    settle();
    assertEquals(42, memory.get(JAVA_LONG, 0));
    assertEquals(10, results.get(JAVA_LONG, 0));
    assertEquals(List.of("R0", "full", "R0", "C0", "full", "C0"), peer.log);
    assertEquals(List.of(SLOT + ":0"), reported, "finished once, as a success");
  }

  @Test
  void aLongLosingStreakWaitsForProgressAndIsReportedOnce() {
    memory.set(JAVA_INT, 0, 1);
    peer.interfere = 20;
    AtomicCell prod = cell(AtomicFamily.BASE, FiOp.PROD, FiDatatype.INT32);
    assertEquals(TransportPeer.PENDING, start(prod, 0, 3, 0, 0));
    assertEquals(List.of(), reported);
    settle();
    assertEquals(List.of(SLOT + ":0"), reported);
    assertEquals(3 * 2001, memory.get(JAVA_INT, 0));
    assertEquals(20, counters.casRetries());
  }

  @Test
  void pendingStepsArePipelinedReadsFirstThenSwaps() {
    peer.pending = true;
    AtomicCell sum = cell(AtomicFamily.FETCH, FiOp.SUM, FiDatatype.INT8);
    for (int i = 0; i < 4; i++) {
      memory.set(JAVA_BYTE, i, (byte) (10 * i));
      assertEquals(TransportPeer.PENDING, start(sum, i, 1, 0, i));
    }
    assertEquals(List.of("R0", "R0", "R0", "R0"), peer.log, "every read is out before any wait");
    settle();
    // the four lanes share one word, so of each round of swaps only the first holds: 4+3+2+1
    assertEquals(List.of("R0", "R0", "R0", "R0"), peer.log.subList(0, 4));
    assertEquals(14, peer.log.size());
    assertEquals(10, peer.log.stream().filter(s -> s.equals("C0")).count());
    assertEquals(0x1F150B01, memory.get(JAVA_INT, 0));
    assertEquals(0x1E140A00, results.get(JAVA_INT, 0), "each fetched its lane's old byte");
    assertEquals(List.of("7:0", "7:0", "7:0", "7:0"), reported);
    assertEquals(6, counters.casRetries());
    assertTrue(loop.reserve(16), "every element was freed");
  }

  @Test
  void aCompareThatDoesNotSwapIsDoneAfterTheRead() {
    memory.set(JAVA_INT, 4, Float.floatToRawIntBits(1.5f));
    AtomicCell lt = cell(AtomicFamily.COMPARE, FiOp.CSWAP_LT, FiDatatype.FLOAT);
    long two = Float.floatToRawIntBits(2f);
    assertEquals(TransportPeer.DONE, start(lt, 4, Float.floatToRawIntBits(9f), two, 0));
    assertEquals(Float.floatToRawIntBits(1.5f), memory.get(JAVA_INT, 4), "2 < 1.5 is false");
    assertEquals(List.of("R4"), peer.log);
    assertEquals(Float.floatToRawIntBits(1.5f), results.get(JAVA_INT, 0));
    long one = Float.floatToRawIntBits(1f);
    assertEquals(TransportPeer.DONE, start(lt, 4, Float.floatToRawIntBits(9f), one, 4));
    assertEquals(Float.floatToRawIntBits(9f), memory.get(JAVA_INT, 4), "1 < 1.5: swapped");
    assertEquals(Float.floatToRawIntBits(1.5f), results.get(JAVA_INT, 4));
  }

  @Test
  void aFailedReadFailsTheElementAtOnceAndFreesIt() {
    loop = newLoop(2);
    peer.failWith = -FiErrno.ECONNRESET;
    AtomicCell sum = cell(AtomicFamily.BASE, FiOp.SUM, FiDatatype.INT8);
    assertEquals(-FiErrno.ECONNRESET, start(sum, 0, 1, 0, 0));
    assertEquals(List.of(), reported);
    assertTrue(loop.reserve(2), "the failed element gave its room back");
  }

  @Test
  void aFailedPendingStepIsReportedWithItsStatusAndWritesNoResult() {
    peer.pending = true;
    peer.completeWith = -FiErrno.ECONNRESET;
    results.set(JAVA_LONG, 0, 0x5A5A);
    AtomicCell max = cell(AtomicFamily.FETCH, FiOp.MAX, FiDatatype.UINT64);
    assertEquals(TransportPeer.PENDING, start(max, 0, 1, 0, 0));
    settle();
    assertEquals(List.of(SLOT + ":" + -FiErrno.ECONNRESET), reported);
    assertEquals(0x5A5A, results.get(JAVA_LONG, 0));
    assertEquals(0, memory.get(JAVA_LONG, 0));
  }

  @Test
  void aSwapWhoseAnswerIsLostEndsUncertainWhereAFailedReadIsCertain() {
    peer.pending = true;
    peer.swapAnswerLostWith = -FiErrno.ECONNRESET;
    memory.set(JAVA_LONG, 0, 5);
    AtomicCell min = cell(AtomicFamily.FETCH, FiOp.MIN, FiDatatype.INT64);
    assertEquals(TransportPeer.PENDING, start(min, 0, 3, 0, 0));
    settle();
    assertEquals(List.of(SLOT + ":" + -FiErrno.ECONNRESET + " uncertain"), reported);
    assertEquals(3, memory.get(JAVA_LONG, 0), "applied: what uncertain allows");
    assertEquals(List.of("R0", "C0"), peer.log);
  }

  @Test
  void aKeyRevokedBetweenReadAndSwapStopsTheElement() {
    peer.pending = true;
    AtomicCell sum = cell(AtomicFamily.BASE, FiOp.SUM, FiDatatype.FLOAT);
    assertEquals(TransportPeer.PENDING, start(sum, 0, Float.floatToRawIntBits(1f), 0, 0));
    region.revoked = true;
    settle();
    assertEquals(List.of(SLOT + ":" + -FiErrno.EKEYREJECTED), reported);
    assertEquals(List.of("R0"), peer.log);
  }

  @Test
  void aResultBufferFreedBeforeTheElementEndsGetsAnErrorInsteadOfAWrite() {
    peer.pending = true;
    Arena caller = Arena.ofShared();
    MemorySegment freed = caller.allocate(8, 8);
    memory.set(JAVA_LONG, 0, 5);
    AtomicCell min = cell(AtomicFamily.FETCH, FiOp.MIN, FiDatatype.INT64);
    assertTrue(loop.reserve(1));
    assertEquals(TransportPeer.PENDING, loop.start(min, peer, region, 0, 3, 0, freed, 0, SLOT));
    caller.close(); // against libfabric's rule: buffers live until their completion
    settle();
    assertEquals(List.of(SLOT + ":" + -FiErrno.EINVAL + " uncertain"), reported);
    assertEquals(3, memory.get(JAVA_LONG, 0), "the op itself was applied");
    assertTrue(loop.nothingInFlight());
  }

  @Test
  void aResultBufferConfinedToThePosterIsWrittenByTheThreadThatFinishes() throws Exception {
    peer.pending = true;
    try (Arena posters = Arena.ofConfined()) {
      MemorySegment confined = posters.allocate(8, 8);
      memory.set(JAVA_LONG, 0, 5);
      AtomicCell min = cell(AtomicFamily.FETCH, FiOp.MIN, FiDatatype.INT64);
      assertTrue(loop.reserve(1));
      assertEquals(
          TransportPeer.PENDING, loop.start(min, peer, region, 0, 3, 0, confined, 0, SLOT));
      Thread progress = Thread.ofPlatform().start(this::settle); // as a progress thread would
      progress.join();
      assertEquals(List.of(SLOT + ":0"), reported);
      assertEquals(5, confined.get(JAVA_LONG, 0), "the old value, written by address");
      assertEquals(3, memory.get(JAVA_LONG, 0));
    }
  }

  // runMapped: the element in place on a mapping (memory stands for the peer's mapped region)

  @Test
  void onAMappingAByteIsSwappedInItsLaneAndTheOtherLanesStay() {
    memory.set(JAVA_INT, 0, 0x44332211);
    AtomicCell max = cell(AtomicFamily.FETCH, FiOp.MAX, FiDatatype.INT8);
    for (int lane = 0; lane < 4; lane++) {
      MemorySegment result = results.asSlice(lane, 1);
      assertEquals(TransportPeer.DONE, loop.runMapped(max, region, memory, lane, 0x30, 0, result));
    }
    assertEquals(0x44333030, memory.get(JAVA_INT, 0), "0x11 and 0x22 below 0x30, 0x33 0x44 above");
    assertEquals(0x44332211, results.get(JAVA_INT, 0), "each lane fetched its own old byte");
    assertEquals(List.of(), peer.log, "nothing went through the transport");
    assertEquals(4, counters.casElements());
    assertEquals(2, counters.casAttempts());
    assertEquals(2, counters.swapsSkipped());
    assertTrue(loop.nothingInFlight());
  }

  @Test
  void onAMappingAShortInTheUpperHalfUsesTheWordAtFour() {
    memory.set(JAVA_LONG, 0, 0x8877665544332211L);
    AtomicCell cswapGt = cell(AtomicFamily.COMPARE, FiOp.CSWAP_GT, FiDatatype.INT16);
    // CSWAP_GT: swaps when compare > target; 0x7000 > -30601
    assertEquals(
        TransportPeer.DONE,
        loop.runMapped(cswapGt, region, memory, 6, 0x1234, 0x7000, results.asSlice(0, 2)));
    assertEquals(0x1234665544332211L, memory.get(JAVA_LONG, 0));
    assertEquals((short) 0x8877, results.get(JAVA_SHORT, 0));
  }

  @Test
  void onAMappingABaseCallWritesNoResult() {
    memory.set(JAVA_LONG, 8, 6);
    results.set(JAVA_LONG, 0, 0x5A5A);
    AtomicCell prod = cell(AtomicFamily.BASE, FiOp.PROD, FiDatatype.UINT64);
    assertEquals(TransportPeer.DONE, loop.runMapped(prod, region, memory, 8, 7, 0, null));
    assertEquals(42, memory.get(JAVA_LONG, 8));
    assertEquals(0x5A5A, results.get(JAVA_LONG, 0));
  }

  @Test
  void onAMappingARevokedRegionIsRefusedAndNothingChanges() {
    memory.set(JAVA_LONG, 0, 10);
    results.set(JAVA_LONG, 0, 0x5A5A);
    region.revoked = true;
    AtomicCell sum = cell(AtomicFamily.FETCH, FiOp.PROD, FiDatatype.INT64);
    assertEquals(
        -FiErrno.EKEYREJECTED, loop.runMapped(sum, region, memory, 0, 3, 0, results.asSlice(0, 8)));
    assertEquals(10, memory.get(JAVA_LONG, 0));
    assertEquals(0x5A5A, results.get(JAVA_LONG, 0));
    assertEquals(0, counters.casElements());
  }

  @Test
  void nothingIsInFlightOnlyWhileNoElementIsStarted() {
    assertTrue(loop.nothingInFlight());
    peer.pending = true;
    AtomicCell min = cell(AtomicFamily.FETCH, FiOp.MIN, FiDatatype.INT64);
    assertEquals(TransportPeer.PENDING, start(min, 0, 1, 0, 0));
    assertFalse(loop.nothingInFlight(), "a pending element must not be overtaken in place");
    settle();
    assertTrue(loop.nothingInFlight());
  }

  @Test
  void roomIsReservedForAWholeCallOrNotAtAll() {
    loop = newLoop(4);
    assertEquals(4, loop.capacity());
    assertFalse(loop.reserve(5));
    assertTrue(loop.reserve(3));
    assertFalse(loop.reserve(2));
    loop.unreserve(3);
    assertTrue(loop.reserve(4));
    loop.unreserve(4);
    peer.pending = true;
    AtomicCell sum = cell(AtomicFamily.BASE, FiOp.SUM, FiDatatype.INT16);
    for (int i = 0; i < 4; i++) {
      assertEquals(TransportPeer.PENDING, start(sum, 2 * i, 1, 0, 0));
    }
    assertFalse(loop.reserve(1), "four elements in flight fill it");
    settle();
    assertTrue(loop.reserve(4));
  }

  @Test
  void tokensCarryTheBaseAndTheElement() {
    peer.pending = true;
    AtomicCell sum = cell(AtomicFamily.BASE, FiOp.SUM, FiDatatype.INT16);
    start(sum, 0, 1, 0, 0);
    assertEquals(TOKENS, peer.lastToken & ~0xFFFFL);
    assertTrue(CasLoop.owns((int) peer.lastToken));
    assertFalse(CasLoop.owns(SLOT));
  }

  /**
   * Executes atomics on {@link #memory} at once (DONE) or, when {@link #pending}, when the test
   * runs its queue, then reports them to the loop as a transport's progress would.
   */
  private final class FakePeer implements TransportPeer {
    final List<String> log = new ArrayList<>();
    final ArrayDeque<Runnable> queue = new ArrayDeque<>();
    boolean pending;
    int interfere;
    int failWith;
    java.util.Set<Integer> refused = java.util.Set.of(); // posts (0, 1, ...) that find no room
    int posts;
    int completeWith;
    long lastToken;

    /** Pending compare-and-swaps are applied, then completed with this status (answer lost). */
    int swapAnswerLostWith;

    @Override
    public RemoteRegion cached(long key) {
      return region;
    }

    @Override
    public int resolve(long key) {
      return 0;
    }

    @Override
    public int postAtomic(
        RemoteRegion remote,
        long offset,
        RemoteAtomicOp op,
        int size,
        long value,
        long resultAddress,
        long token) {
      assertEquals(RemoteAtomicOp.ADD, op);
      assertEquals(0, value);
      log.add("R" + offset);
      return run(
          token,
          () -> {
            long old = load(offset, size);
            store(resultAddress, size, old);
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
      log.add("C" + offset);
      return run(
          token,
          swapAnswerLostWith,
          () -> {
            if (interfere > 0) {
              interfere--;
              long v = load(offset, size) + 100;
              storeTarget(offset, size, v);
            }
            long old = load(offset, size);
            if (old == compare) {
              storeTarget(offset, size, swap);
            }
            store(resultAddress, size, old);
          });
    }

    @Override
    public int postGet(RemoteRegion remote, long offset, int length, long localAddress, long t) {
      throw new AssertionError("the CAS loop never reads with a get");
    }

    @Override
    public int postPut(RemoteRegion remote, long offset, int length, long localAddress, long t) {
      throw new AssertionError("the CAS loop never writes with a put");
    }

    private int run(long token, Runnable op) {
      return run(token, 0, op);
    }

    /** As a transport; a pending op is applied and then completed with {@code lost} if not 0. */
    private int run(long token, int lost, Runnable op) {
      lastToken = token;
      if (refused.contains(posts++)) {
        log.add("full"); // -FI_EAGAIN: every request slot is in flight
        return -dev.fiucx.FiErrno.EAGAIN;
      }
      if (failWith != 0) {
        return failWith;
      }
      if (!pending) {
        op.run();
        return DONE;
      }
      queue.add(
          () -> {
            if (completeWith == 0) {
              op.run();
            }
            loop.completed((int) token, completeWith != 0 ? completeWith : lost);
          });
      return PENDING;
    }

    private long load(long offset, int size) {
      return size == 8 ? memory.get(JAVA_LONG, offset) : memory.get(JAVA_INT, offset) & 0xFFFFFFFFL;
    }

    private void storeTarget(long offset, int size, long v) {
      if (size == 8) {
        memory.set(JAVA_LONG, offset, v);
      } else {
        memory.set(JAVA_INT, offset, (int) v);
      }
    }

    private void store(long address, int size, long v) {
      if (size == 8) {
        ALL.set(JAVA_LONG, address, v);
      } else {
        ALL.set(JAVA_INT, address, (int) v);
      }
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
