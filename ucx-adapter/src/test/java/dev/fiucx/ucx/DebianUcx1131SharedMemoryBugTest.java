package dev.fiucx.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fiucx.spi.ExposedRegion;
import dev.fiucx.spi.RemoteAtomicOp;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A platform fact, not a behaviour anyone wants: Debian's UCX 1.13.1 computes fetching AND, OR and
 * XOR wrongly when the atomic runs as a CPU atomic on a shared-memory lane (memory allocated
 * through ucp_mem_map, reached over sysv/posix). The fetched value is right, but the target ends up
 * holding {@code old OP old} (so AND and OR leave it unchanged and XOR zeroes it) instead of {@code
 * old OP operand}. Non-fetching AND/OR/XOR, fetch-add, swap and cswap are right there, and the same
 * fetching ops are right on registered memory (software atomics) and over tcp; {@link
 * UcxAtomicMatrixTest} checks those.
 *
 * <p>This test asserts what this machine does. If it fails, the installed UCX no longer has the
 * bug: the engine may then treat these cells as native again (after its self-test proves them).
 */
@RequiresUcx(release = "1.13.1")
class DebianUcx1131SharedMemoryBugTest {
  private static TransportPair pair;
  private static ExposedRegion region;
  private static Arena arena;

  /** Whether {@link UcxAtomicMatrixTest} must leave a cell to this test. */
  static boolean affected(String transports, Memory m, RemoteAtomicOp op, boolean fetch) {
    return transports.equals("shm")
        && m == Memory.ALLOCATED
        && fetch
        && (op == RemoteAtomicOp.AND || op == RemoteAtomicOp.OR || op == RemoteAtomicOp.XOR);
  }

  @BeforeAll
  static void open() {
    arena = Arena.ofShared();
    // through UCX: the direct path (CPU atomics on the mapping) does not have the bug
    pair = new TransportPair(UcxOptions.defaults().withTransports("shm").withDirectPath(false));
    region = Memory.ALLOCATED.expose(pair.b, arena, 64);
    assertEquals(0, pair.resolve(region.key()));
  }

  @AfterAll
  static void close() {
    pair.close();
    arena.close();
  }

  @ParameterizedTest(name = "{0}-byte {1}")
  @CsvSource({"8, AND", "8, OR", "8, XOR", "4, AND", "4, OR", "4, XOR"})
  void fetchingBitwiseOpOnAllocatedSharedMemoryStoresOldOpOld(int size, RemoteAtomicOp op) {
    long old = size == 8 ? 0x0123_4567_89AB_CDEFL : 0x89AB_CDEFL;
    long operand = size == 8 ? 0x0F0F_00FF_1234_8001L : 0x0F0F_8001L;
    long mask = size == 8 ? -1L : 0xFFFF_FFFFL;
    MemorySegment target = region.segment();
    UcxAtomicMatrixTest.put(target, 8, size, old);
    MemorySegment result = arena.allocate(8, 8);

    long token = pair.token();
    int posted =
        pair.aToB.postAtomic(
            pair.aToB.cached(region.key()), 8, op, size, operand, result.address(), token);
    assertEquals(0, pair.complete(posted, token));

    assertEquals(old & mask, UcxAtomicMatrixTest.get(result, 0, size) & mask, "fetched: right");
    long buggy = UcxAtomicMatrixTest.expected(op, old, old) & mask; // old OP old
    long right = UcxAtomicMatrixTest.expected(op, old, operand) & mask;
    assertEquals(
        buggy,
        UcxAtomicMatrixTest.get(target, 8, size) & mask,
        "target holds old OP old (the right value would be 0x" + Long.toHexString(right) + ")");
  }
}
