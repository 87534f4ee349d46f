package dev.fiucx.ucx.integration;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fiucx.AtomicMsg;
import dev.fiucx.DomainAttr;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.Ioc;
import dev.fiucx.RmaIoc;
import dev.fiucx.conformance.remote.Initiator;
import dev.fiucx.conformance.remote.RemoteTarget;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Bad input over UCX between two processes: each call gets its own error code, and the target's
 * whole region is unchanged afterwards. fiucx checks everything itself, because UCX checks nothing
 * (an out-of-range address crashes or corrupts the target).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@RequiresProvider("ucx")
class BadInputTest {
  private static final int REGION = 4096;

  private RemoteTarget target;
  private Initiator ini;
  private long peer;
  private byte[] pattern;
  private final Arena arena = Arena.ofShared();
  private MemorySegment one;
  private MemorySegment result;

  @BeforeAll
  void start() {
    target = new RemoteTarget("ucx", "shm", REGION, false, false, List.of());
    ini = new Initiator("ucx", "shm", DomainAttr.Progress.AUTO);
    peer = ini.av.insert(target.address());
    pattern = new byte[REGION];
    for (int i = 0; i < REGION; i++) {
      pattern[i] = (byte) (i * 7 + 3);
    }
    target.set(0, pattern);
    one = arena.allocate(16, 16);
    one.set(ValueLayout.JAVA_LONG, 0, 1);
    result = arena.allocate(4096, 16);
  }

  @AfterAll
  void stop() {
    ini.close();
    target.close();
    arena.close();
  }

  private void assertRejected(int errno, IntSupplier call) {
    assertEquals(FiErrno.errorString(-errno), FiErrno.errorString(call.getAsInt()));
    assertArrayEquals(pattern, target.get(0, REGION), "the target's region changed");
  }

  private int sum(long addr, long count, long key, MemorySegment buf) {
    return ini.ep.atomic(buf, count, null, peer, addr, key, FiDatatype.UINT64, FiOp.SUM, "bad");
  }

  @Test
  void outOfRangeAndStraddlingAreFaults() {
    assertRejected(FiErrno.EFAULT, () -> sum(REGION, 1, target.key(), one));
    assertRejected(FiErrno.EFAULT, () -> sum(REGION - 8, 2, target.key(), arena.allocate(16)));
    assertRejected(FiErrno.EFAULT, () -> sum(1L << 40, 1, target.key(), one));
    assertRejected(FiErrno.EFAULT, () -> sum(-8, 1, target.key(), one));
  }

  @Test
  void misalignedAddressesAreInvalid() {
    assertRejected(FiErrno.EINVAL, () -> sum(4, 1, target.key(), one));
    assertRejected(
        FiErrno.EINVAL,
        () -> ini.ep.atomic(one, 1, null, peer, 2, target.key(), FiDatatype.INT32, FiOp.SUM, null));
  }

  /**
   * Remote-lock cells pass the same checks before any lock is taken: the element (16 or 32 bytes)
   * must lie in the region and sit at its C alignment (8 for DOUBLE_COMPLEX, 16 for the long
   * doubles); the count is bounded by 4096 bytes.
   */
  @Test
  void remoteLockCellsAreCheckedAsStrictly() {
    MemorySegment wide = arena.allocate(64, 16);
    assertRejected(
        FiErrno.EFAULT,
        () ->
            ini.ep.atomic(
                wide,
                1,
                null,
                peer,
                REGION - 8,
                target.key(),
                FiDatatype.DOUBLE_COMPLEX,
                FiOp.SUM,
                null));
    assertRejected(
        FiErrno.EFAULT,
        () ->
            ini.ep.atomic(
                wide,
                2,
                null,
                peer,
                REGION - 32,
                target.key(),
                FiDatatype.LONG_DOUBLE_COMPLEX,
                FiOp.PROD,
                null));
    assertRejected(
        FiErrno.EINVAL,
        () ->
            ini.ep.atomic(
                wide, 1, null, peer, 4, target.key(), FiDatatype.DOUBLE_COMPLEX, FiOp.SUM, null));
    assertRejected(
        FiErrno.EINVAL,
        () ->
            ini.ep.atomic(
                wide, 1, null, peer, 8, target.key(), FiDatatype.LONG_DOUBLE, FiOp.MIN, null));
    assertRejected(
        FiErrno.EMSGSIZE,
        () ->
            ini.ep.atomic(
                arena.allocate(16 * 257, 16),
                257,
                null,
                peer,
                0,
                target.key(),
                FiDatatype.DOUBLE_COMPLEX,
                FiOp.SUM,
                null));
    assertRejected(
        FiErrno.EKEYREJECTED,
        () ->
            ini.ep.fetchAtomic(
                wide,
                1,
                null,
                result,
                null,
                peer,
                0,
                target.key() ^ 0x5A5A,
                FiDatatype.LONG_DOUBLE,
                FiOp.SUM,
                null));
  }

  /** CAS-loop cells pass the same checks: on the element, never on the word it is swapped in. */
  @Test
  void casLoopCellsAreCheckedAsStrictly() {
    assertRejected(
        FiErrno.EFAULT,
        () ->
            ini.ep.atomic(
                one, 1, null, peer, REGION, target.key(), FiDatatype.INT8, FiOp.SUM, null));
    assertRejected(
        FiErrno.EFAULT,
        () ->
            ini.ep.atomic(
                arena.allocate(4),
                2,
                null,
                peer,
                REGION - 2,
                target.key(),
                FiDatatype.INT16,
                FiOp.MIN,
                null));
    assertRejected(
        FiErrno.EFAULT,
        () ->
            ini.ep.atomic(one, 1, null, peer, -1, target.key(), FiDatatype.UINT8, FiOp.PROD, null));
    assertRejected(
        FiErrno.EINVAL,
        () -> ini.ep.atomic(one, 1, null, peer, 1, target.key(), FiDatatype.INT16, FiOp.MAX, null));
    assertRejected(
        FiErrno.EINVAL,
        () ->
            ini.ep.atomic(one, 1, null, peer, 6, target.key(), FiDatatype.DOUBLE, FiOp.SUM, null));
    assertRejected(
        FiErrno.EMSGSIZE,
        () ->
            ini.ep.atomic(
                arena.allocate(4097),
                4097,
                null,
                peer,
                0,
                target.key(),
                FiDatatype.INT8,
                FiOp.SUM,
                null));
    assertRejected(
        FiErrno.EINVAL,
        () ->
            ini.ep.fetchAtomic(
                one,
                1,
                null,
                MemorySegment.ofArray(new byte[1]),
                null,
                peer,
                0,
                target.key(),
                FiDatatype.INT8,
                FiOp.MIN,
                null));
    assertRejected(
        FiErrno.EKEYREJECTED,
        () ->
            ini.ep.atomic(
                one, 1, null, peer, 0, target.key() + 1, FiDatatype.FLOAT, FiOp.PROD, null));
  }

  @Test
  void unknownKeysAreRejected() {
    assertRejected(FiErrno.EKEYREJECTED, () -> sum(0, 1, target.key() + 1, one));
    assertRejected(FiErrno.EKEYREJECTED, () -> sum(0, 1, 0, one));
  }

  @Test
  void countsOutsideOneToTheLimit() {
    assertRejected(FiErrno.EINVAL, () -> sum(0, 0, target.key(), one));
    assertRejected(FiErrno.EMSGSIZE, () -> sum(0, 513, target.key(), arena.allocate(513 * 8)));
  }

  @Test
  void nullAndShortBuffers() {
    assertRejected(FiErrno.EINVAL, () -> sum(0, 1, target.key(), null));
    assertRejected(FiErrno.EINVAL, () -> sum(0, 3, target.key(), one));
    assertRejected(
        FiErrno.EINVAL,
        () ->
            ini.ep.fetchAtomic(
                one,
                1,
                null,
                null,
                null,
                peer,
                0,
                target.key(),
                FiDatatype.UINT64,
                FiOp.SUM,
                null));
    assertRejected(
        FiErrno.EINVAL,
        () ->
            ini.ep.fetchAtomic(
                one,
                1,
                null,
                MemorySegment.ofArray(new long[1]),
                null,
                peer,
                0,
                target.key(),
                FiDatatype.UINT64,
                FiOp.SUM,
                null));
  }

  @Test
  void cellsThatDoNotExistAndBadFlags() {
    assertRejected(
        FiErrno.EOPNOTSUPP,
        () ->
            ini.ep.atomic(one, 1, null, peer, 0, target.key(), FiDatatype.FLOAT, FiOp.BAND, null));
    assertRejected(
        FiErrno.EOPNOTSUPP,
        () ->
            ini.ep.atomic(
                one, 1, null, peer, 0, target.key(), FiDatatype.UINT64, FiOp.CSWAP, null));
    AtomicMsg msg =
        new AtomicMsg(
            new Ioc[] {new Ioc(one, 1)},
            null,
            peer,
            new RmaIoc[] {new RmaIoc(0, 1, target.key())},
            FiDatatype.UINT64,
            FiOp.SUM,
            null,
            0);
    assertRejected(FiErrno.EBADFLAGS, () -> ini.ep.atomicmsg(msg, FiFlags.TAGGED));
  }

  @Test
  void unknownPeers() {
    assertRejected(
        FiErrno.EADDRNOTAVAIL,
        () ->
            ini.ep.atomic(
                one, 1, null, peer + 5, 0, target.key(), FiDatatype.UINT64, FiOp.SUM, null));
  }

  @Test
  void aReadOnlyRegionRefusesWritesAndServesReads() {
    try (RemoteTarget readOnly = new RemoteTarget("ucx", "shm", 64, false, true, List.of())) {
      long ro = ini.av.insert(readOnly.address());
      readOnly.set(0, java.util.Arrays.copyOf(pattern, 64));
      byte[] before = readOnly.get(0, 64);
      assertEquals(
          -FiErrno.EACCES,
          ini.ep.atomic(one, 1, null, ro, 0, readOnly.key(), FiDatatype.UINT64, FiOp.SUM, null));
      assertEquals(
          -FiErrno.EACCES,
          ini.ep.fetchAtomic(
              one,
              1,
              null,
              result,
              null,
              ro,
              0,
              readOnly.key(),
              FiDatatype.UINT64,
              FiOp.SUM,
              null));
      assertEquals(
          0,
          ini.ep.fetchAtomic(
              null,
              1,
              null,
              result,
              null,
              ro,
              8,
              readOnly.key(),
              FiDatatype.UINT64,
              FiOp.ATOMIC_READ,
              "read"));
      assertEquals("read", ini.awaitCompletion());
      // a CAS-loop cell writes (even when its value would not change) and needs write access
      assertEquals(
          -FiErrno.EACCES,
          ini.ep.fetchAtomic(
              one, 1, null, result, null, ro, 0, readOnly.key(), FiDatatype.INT8, FiOp.MAX, null));
      assertEquals(
          -FiErrno.EACCES,
          ini.ep.atomic(one, 1, null, ro, 0, readOnly.key(), FiDatatype.INT16, FiOp.MIN, null));
      // a remote-lock cell needs write access to write, and reads without it
      assertEquals(
          -FiErrno.EACCES,
          ini.ep.atomic(
              one, 1, null, ro, 16, readOnly.key(), FiDatatype.DOUBLE_COMPLEX, FiOp.SUM, null));
      assertEquals(
          0,
          ini.ep.fetchAtomic(
              null,
              1,
              null,
              result,
              null,
              ro,
              16,
              readOnly.key(),
              FiDatatype.LONG_DOUBLE,
              FiOp.ATOMIC_READ,
              "long double"));
      assertEquals("long double", ini.awaitCompletion());
      assertArrayEquals(
          java.util.Arrays.copyOfRange(before, 16, 32),
          result.asSlice(0, 16).toArray(ValueLayout.JAVA_BYTE));
      // reading a byte only reads its word
      assertEquals(
          0,
          ini.ep.fetchAtomic(
              null,
              1,
              null,
              result,
              null,
              ro,
              9,
              readOnly.key(),
              FiDatatype.UINT8,
              FiOp.ATOMIC_READ,
              "byte"));
      assertEquals("byte", ini.awaitCompletion());
      assertEquals(before[9], result.get(ValueLayout.JAVA_BYTE, 0));
      assertArrayEquals(before, readOnly.get(0, 64));
    }
  }

  @Test
  void aClosedRegionsKeyIsRevoked() {
    try (RemoteTarget closing = new RemoteTarget("ucx", "shm", 64, false, false, List.of())) {
      long p = ini.av.insert(closing.address());
      assertEquals(
          0,
          ini.ep.atomic(one, 1, null, p, 0, closing.key(), FiDatatype.UINT64, FiOp.SUM, "before"));
      assertEquals("before", ini.awaitCompletion());
      assertEquals(1, closing.get(0, 8)[0]);
      closing.closeRegion();
      assertEquals(
          -FiErrno.EKEYREJECTED,
          ini.ep.atomic(one, 1, null, p, 0, closing.key(), FiDatatype.UINT64, FiOp.SUM, "after"));
    }
  }
}
