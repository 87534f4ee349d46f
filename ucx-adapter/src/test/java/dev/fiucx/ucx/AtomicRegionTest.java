package dev.fiucx.ucx;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.fiucx.AtomicRegion;
import dev.fiucx.Connection;
import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.FiFlags;
import dev.fiucx.ServeAttr;
import dev.fiucx.Server;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The typed layer over a real serve on shared memory and tcp: the exact value of every call (scalar
 * and vector, long, int and double) read back from the server's memory, and the errors each kind of
 * call raises with the target left as it was.
 */
@RequiresUcx
class AtomicRegionTest {
  static final long RW = FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE;

  static Server serve(String transport) {
    return Fabric.serve(
        new ServeAttr(
            "127.0.0.1",
            0,
            List.of(
                new ServeAttr.Region("cells", 4096, RW),
                new ServeAttr.Region("readonly", 64, FiFlags.REMOTE_READ)),
            new DomainAttr(transport, DomainAttr.Progress.AUTO, false, Map.of())));
  }

  /** docs/api.md's example, line for line. */
  @Test
  void theDocsExampleTakesATicketAndSwapsAWord() {
    try (Server server = serve("shm")) {
      String hostPort = "127.0.0.1:" + server.port();
      // --- docs/api.md begins
      try (Connection c = Fabric.connect(hostPort, DomainAttr.defaults());
          AtomicRegion cells = c.openAtomicRegion("cells")) {
        long ticket = cells.fetchAddLong(0, 1); // the counter at byte 0 before the add
        long witness = cells.compareAndSwapLong(8, 0, 42); // 0: it held 0, now it holds 42
        cells.setDouble(16, 1.5);
        double before = cells.fetchAddDouble(16, 0.25); // 1.5; 1.75 after
        // --- docs/api.md ends
        assertEquals(0, ticket);
        assertEquals(0, witness);
        assertEquals(1.5, before);
        MemorySegment target = server.memory("cells");
        assertEquals(1, target.get(JAVA_LONG, 0));
        assertEquals(42, target.get(JAVA_LONG, 8));
        assertEquals(1.75, target.get(JAVA_DOUBLE, 16));
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"shm", "tcp"})
  void longCallsGiveExactValues(String transport) {
    try (Server server = serve(transport);
        Connection c = Fabric.connect("127.0.0.1:" + server.port(), DomainAttr.defaults());
        AtomicRegion cells = c.openAtomicRegion("cells")) {
      MemorySegment target = server.memory("cells");
      target.set(JAVA_LONG, 8, 40);
      assertEquals(40, cells.fetchAddLong(8, 2));
      assertEquals(42, cells.fetchAddLong(8, -50));
      assertEquals(-8, target.get(JAVA_LONG, 8));
      assertEquals(-8, cells.getLong(8));
      cells.setLong(8, Long.MAX_VALUE);
      assertEquals(Long.MAX_VALUE, target.get(JAVA_LONG, 8));
      assertEquals(Long.MAX_VALUE, cells.fetchAddLong(8, 1)); // wraps as a Java long does
      assertEquals(Long.MIN_VALUE, cells.getAndSetLong(8, 7));
      assertEquals(7, cells.compareAndSwapLong(8, 6, 100)); // no swap: the witness is 7
      assertEquals(7, target.get(JAVA_LONG, 8));
      assertEquals(7, cells.compareAndSwapLong(8, 7, 100));
      assertEquals(100, target.get(JAVA_LONG, 8));
      assertEquals(0, target.get(JAVA_LONG, 0));
      assertEquals(0, target.get(JAVA_LONG, 16));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"shm", "tcp"})
  void intCallsGiveExactValues(String transport) {
    try (Server server = serve(transport);
        Connection c = Fabric.connect("127.0.0.1:" + server.port(), DomainAttr.defaults());
        AtomicRegion cells = c.openAtomicRegion("cells")) {
      MemorySegment target = server.memory("cells");
      target.set(JAVA_INT, 4, Integer.MAX_VALUE);
      assertEquals(Integer.MAX_VALUE, cells.fetchAddInt(4, 1));
      assertEquals(Integer.MIN_VALUE, cells.getInt(4));
      assertEquals(Integer.MIN_VALUE, cells.getAndSetInt(4, -3));
      cells.setInt(12, 9);
      assertEquals(9, target.get(JAVA_INT, 12));
      assertEquals(-3, cells.compareAndSwapInt(4, 0, 5));
      assertEquals(-3, cells.compareAndSwapInt(4, -3, 5));
      assertEquals(5, target.get(JAVA_INT, 4));
      // the neighbours of the 4-byte elements are untouched
      assertEquals(0, target.get(JAVA_INT, 0));
      assertEquals(0, target.get(JAVA_INT, 8));
      assertEquals(0, target.get(JAVA_INT, 16));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"shm", "tcp"})
  void doubleCallsGiveExactValues(String transport) {
    try (Server server = serve(transport);
        Connection c = Fabric.connect("127.0.0.1:" + server.port(), DomainAttr.defaults());
        AtomicRegion cells = c.openAtomicRegion("cells")) {
      MemorySegment target = server.memory("cells");
      target.set(JAVA_DOUBLE, 16, 0.5);
      assertEquals(0.5, cells.fetchAddDouble(16, 0.25)); // the emulated add
      assertEquals(0.75, target.get(JAVA_DOUBLE, 16));
      assertEquals(0.75, cells.getDouble(16));
      cells.setDouble(16, -1.5);
      assertEquals(-1.5, target.get(JAVA_DOUBLE, 16));
      assertEquals(-1.5, cells.getAndSetDouble(16, 3.0));
      assertEquals(3.0, cells.compareAndSwapDouble(16, 2.0, 4.0));
      assertEquals(3.0, cells.compareAndSwapDouble(16, 3.0, 4.0));
      assertEquals(4.0, target.get(JAVA_DOUBLE, 16));
      // bytes are compared: 0.0 does not match -0.0
      target.set(JAVA_DOUBLE, 24, -0.0);
      assertEquals(-0.0, cells.compareAndSwapDouble(24, 0.0, 1.0));
      assertEquals(Double.doubleToRawLongBits(-0.0), target.get(JAVA_LONG, 24));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"shm", "tcp"})
  void vectorCallsGiveExactValues(String transport) {
    try (Server server = serve(transport);
        Connection c = Fabric.connect("127.0.0.1:" + server.port(), DomainAttr.defaults());
        AtomicRegion cells = c.openAtomicRegion("cells");
        Arena arena = Arena.ofConfined()) {
      MemorySegment target = server.memory("cells");
      int n = 5;
      MemorySegment values = arena.allocate(8L * n, 8);
      MemorySegment previous = arena.allocate(8L * n, 8);
      for (int i = 0; i < n; i++) {
        values.setAtIndex(JAVA_LONG, i, 10 + i);
      }
      cells.setLongs(64, values, n);
      for (int i = 0; i < n; i++) {
        values.setAtIndex(JAVA_LONG, i, 100L * i);
      }
      cells.fetchAddLongs(64, values, previous, n);
      for (int i = 0; i < n; i++) {
        assertEquals(10 + i, previous.getAtIndex(JAVA_LONG, i));
        assertEquals(10 + 101L * i, target.getAtIndex(JAVA_LONG, 8 + i));
      }
      cells.getLongs(64, previous, n);
      for (int i = 0; i < n; i++) {
        assertEquals(10 + 101L * i, previous.getAtIndex(JAVA_LONG, i));
      }
      assertEquals(0, target.get(JAVA_LONG, 64 + 8L * n));

      for (int i = 0; i < n; i++) {
        values.setAtIndex(JAVA_INT, i, -i);
      }
      cells.setInts(512, values, n);
      for (int i = 0; i < n; i++) {
        values.setAtIndex(JAVA_INT, i, 3);
      }
      cells.fetchAddInts(512, values, previous, n);
      for (int i = 0; i < n; i++) {
        assertEquals(-i, previous.getAtIndex(JAVA_INT, i));
        assertEquals(3 - i, target.getAtIndex(JAVA_INT, 128 + i));
      }
      cells.getInts(512, previous, n);
      assertEquals(3 - (n - 1), previous.getAtIndex(JAVA_INT, n - 1));
      assertEquals(0, target.getAtIndex(JAVA_INT, 128 + n));

      for (int i = 0; i < n; i++) {
        values.setAtIndex(JAVA_DOUBLE, i, i * 0.5);
      }
      cells.setDoubles(1024, values, n);
      for (int i = 0; i < n; i++) {
        values.setAtIndex(JAVA_DOUBLE, i, 0.25);
      }
      cells.fetchAddDoubles(1024, values, previous, n);
      for (int i = 0; i < n; i++) {
        assertEquals(i * 0.5, previous.getAtIndex(JAVA_DOUBLE, i));
        assertEquals(i * 0.5 + 0.25, target.getAtIndex(JAVA_DOUBLE, 128 + i));
      }
      cells.getDoubles(1024, previous, n);
      assertEquals((n - 1) * 0.5 + 0.25, previous.getAtIndex(JAVA_DOUBLE, n - 1));
    }
  }

  /** {@code call} raises {@code errno}. */
  static void assertErrno(int errno, Executable call) {
    FiException e = assertThrows(FiException.class, call);
    assertEquals(errno, e.errno(), e.getMessage());
  }

  @ParameterizedTest
  @ValueSource(strings = {"shm", "tcp"})
  void refusedCallsRaiseTheirErrnoAndLeaveTheTargetUnchanged(String transport) {
    try (Server server = serve(transport);
        Connection c = Fabric.connect("127.0.0.1:" + server.port(), DomainAttr.defaults());
        AtomicRegion cells = c.openAtomicRegion("cells");
        AtomicRegion readonly = c.openAtomicRegion("readonly");
        Arena arena = Arena.ofConfined()) {
      MemorySegment target = server.memory("cells");
      MemorySegment ro = server.memory("readonly");
      for (long i = 0; i < 4096; i += 8) {
        target.set(JAVA_LONG, i, i + 1);
      }
      ro.set(JAVA_LONG, 56, 77);
      MemorySegment values = arena.allocate(64, 8);
      MemorySegment previous = arena.allocate(64, 8);

      // the region is too small: the element or range leaves it
      assertErrno(FiErrno.EFAULT, () -> cells.fetchAddLong(4096, 1));
      assertErrno(FiErrno.EFAULT, () -> cells.setInt(4096, 1));
      assertErrno(FiErrno.EFAULT, () -> cells.compareAndSwapDouble(-8, 1.0, 2.0));
      assertErrno(FiErrno.EFAULT, () -> cells.fetchAddLongs(4088, values, previous, 2));
      assertErrno(FiErrno.EFAULT, () -> readonly.getLongs(48, previous, 3));
      // a misaligned offset
      assertErrno(FiErrno.EINVAL, () -> cells.fetchAddLong(4, 1));
      assertErrno(FiErrno.EINVAL, () -> cells.getAndSetInt(2, 1));
      assertErrno(FiErrno.EINVAL, () -> cells.fetchAddDouble(12, 1.0));
      assertErrno(FiErrno.EINVAL, () -> cells.setDoubles(4, values, 2));
      // a read-only region for a write
      assertErrno(FiErrno.EACCES, () -> readonly.setLong(56, 1));
      assertErrno(FiErrno.EACCES, () -> readonly.fetchAddInt(56, 1));
      assertErrno(FiErrno.EACCES, () -> readonly.compareAndSwapLong(56, 77, 1));
      assertErrno(FiErrno.EACCES, () -> readonly.setLongs(0, values, 2));
      // a vector beyond one call's elements, or a local segment too short for its count
      assertErrno(FiErrno.EMSGSIZE, () -> cells.getLongs(0, arena.allocate(8 * 513, 8), 513));
      assertErrno(FiErrno.EINVAL, () -> cells.fetchAddLongs(0, values, previous, 9));

      for (long i = 0; i < 4096; i += 8) {
        assertEquals(i + 1, target.get(JAVA_LONG, i), "cells at " + i);
      }
      assertEquals(77, ro.get(JAVA_LONG, 56));
      // a read of the read-only region is allowed, and the region still works after refusals
      assertEquals(77, readonly.getLong(56));
      assertEquals(1, cells.fetchAddLong(0, 1));
    }
  }

  @Test
  void aClosedRegionRaisesOpBadStateAndItsConnectionStillServes() {
    try (Server server = serve("shm");
        Connection c = Fabric.connect("127.0.0.1:" + server.port(), DomainAttr.defaults())) {
      AtomicRegion cells = c.openAtomicRegion("cells");
      cells.close();
      cells.close();
      assertErrno(FiErrno.EOPBADSTATE, () -> cells.getLong(0));
      assertErrno(FiErrno.ENOENT, () -> c.openAtomicRegion("nothing"));
      try (AtomicRegion again = c.openAtomicRegion("cells")) {
        assertEquals(0, again.fetchAddLong(0, 5));
        assertEquals(5, server.memory("cells").get(JAVA_LONG, 0));
      }
    }
  }
}
