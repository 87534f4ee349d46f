package dev.fiucx.ucx;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fiucx.FiErrno;
import dev.fiucx.spi.ExposedRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** CSWAP that succeeds and CSWAP that fails, exact values, over shm and tcp, both memory kinds. */
@RequiresUcx
class UcxCompareSwapTest {
  @ParameterizedTest(name = "{0} {1} {2}-byte")
  @CsvSource({
    "shm, ALLOCATED, 4",
    "shm, ALLOCATED, 8",
    "shm, REGISTERED, 4",
    "shm, REGISTERED, 8",
    "shm-ucp, ALLOCATED, 4",
    "shm-ucp, ALLOCATED, 8",
    "tcp, ALLOCATED, 4",
    "tcp, ALLOCATED, 8",
    "tcp, REGISTERED, 4",
    "tcp, REGISTERED, 8"
  })
  void swapsOnlyWhenEqualAndAlwaysReturnsOld(String transports, Memory m, int size) {
    long old = size == 8 ? 0x8000_0000_0000_0001L : 0x8000_0001L;
    long swap = size == 8 ? 0x7FFF_FFFF_FFFF_FFFEL : 0x7FFF_FFFEL;
    long other = size == 8 ? 0x0123_4567_89AB_CDEFL : 0x89AB_CDEFL;
    long mask = size == 8 ? -1L : 0xFFFF_FFFFL;
    try (TransportPair pair = TransportPair.of(transports);
        Arena arena = Arena.ofConfined()) {
      ExposedRegion region = m.expose(pair.b, arena, 32);
      assertEquals(0, pair.resolve(region.key()));
      MemorySegment target = region.segment();
      MemorySegment result = arena.allocate(8, 8);

      // compare differs from the target: nothing stored, old value returned
      UcxAtomicMatrixTest.put(target, 8, size, old);
      result.set(JAVA_LONG, 0, 0);
      long t1 = pair.token();
      int posted =
          pair.aToB.postCompareSwap(
              pair.aToB.cached(region.key()), 8, size, other, swap, result.address(), t1);
      assertEquals(0, pair.complete(posted, t1));
      assertEquals(old & mask, UcxAtomicMatrixTest.get(result, 0, size) & mask, "old (failure)");
      assertEquals(old & mask, UcxAtomicMatrixTest.get(target, 8, size) & mask, "unchanged");

      // compare equals the target: swap stored, old value returned
      result.set(JAVA_LONG, 0, 0);
      long t2 = pair.token();
      posted =
          pair.aToB.postCompareSwap(
              pair.aToB.cached(region.key()), 8, size, old, swap, result.address(), t2);
      assertEquals(0, pair.complete(posted, t2));
      assertEquals(old & mask, UcxAtomicMatrixTest.get(result, 0, size) & mask, "old (success)");
      assertEquals(swap & mask, UcxAtomicMatrixTest.get(target, 8, size) & mask, "swapped");
      assertEquals(0L, target.get(JAVA_LONG, 0), "neighbour below");
      assertEquals(0L, target.get(JAVA_LONG, 16), "neighbour above");
      pair.revoke((UcxExposedRegion) region);
    }
  }

  @ParameterizedTest
  @CsvSource({
    "shm, ALLOCATED",
    "shm, REGISTERED",
    "shm-ucp, ALLOCATED",
    "tcp, ALLOCATED",
    "tcp, REGISTERED"
  })
  void aFlushCompletesAfterTheOperationsBeforeIt(String transports, Memory m) {
    try (TransportPair pair = TransportPair.of(transports);
        Arena arena = Arena.ofConfined()) {
      ExposedRegion region = m.expose(pair.b, arena, 8);
      assertEquals(0, pair.resolve(region.key()));
      var remote = pair.aToB.cached(region.key());
      MemorySegment result = arena.allocate(8, 8);
      long fetch = pair.token();
      int fetchPosted =
          pair.aToB.postAtomic(
              remote, 0, dev.fiucx.spi.RemoteAtomicOp.ADD, 8, 7, result.address(), fetch);
      long flush = pair.token();
      int flushPosted = pair.aToB.postFlush(flush);
      if (fetchPosted == dev.fiucx.spi.TransportPeer.PENDING) {
        assertEquals(dev.fiucx.spi.TransportPeer.PENDING, flushPosted, "flush waits for it");
      }
      assertEquals(0, pair.complete(fetchPosted, fetch));
      assertEquals(0, pair.complete(flushPosted, flush));
      if (flushPosted == dev.fiucx.spi.TransportPeer.PENDING) {
        assertEquals(java.util.List.of(fetch, flush), pair.completionsA.order());
      }
      assertEquals(7L, region.segment().get(JAVA_LONG, 0));
      pair.revoke((UcxExposedRegion) region);
    }
  }

  @ParameterizedTest
  @CsvSource({"shm", "shm-ucp", "tcp"})
  void compareSwapAndSwapWithoutResultBufferAreRefusedBeforeUcx(String transports) {
    try (TransportPair pair = TransportPair.of(transports)) {
      ExposedRegion region = pair.b.allocate(8, Memory.RW);
      assertEquals(0, pair.resolve(region.key()));
      var remote = pair.aToB.cached(region.key());
      assertEquals(-FiErrno.EINVAL, pair.aToB.postCompareSwap(remote, 0, 8, 0, 1, 0, 1));
      assertEquals(
          -FiErrno.EINVAL,
          pair.aToB.postAtomic(remote, 0, dev.fiucx.spi.RemoteAtomicOp.SWAP, 8, 1, 0, 2));
      assertEquals(0L, region.segment().get(JAVA_LONG, 0));
      pair.revoke((UcxExposedRegion) region);
    }
  }
}
