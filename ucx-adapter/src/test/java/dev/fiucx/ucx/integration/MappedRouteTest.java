package dev.fiucx.ucx.integration;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fiucx.AtomicFamily;
import dev.fiucx.CqEntry;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.conformance.remote.Initiator;
import dev.fiucx.conformance.remote.RemoteTarget;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * One-element calls that lead where the endpoint's last one went (the same family, op, datatype,
 * peer and key, on a region mapped into this process) take a shorter path than the first: these
 * calls must give exactly what the first path gives, results and refusals alike. Every bad call
 * here repeats a good call's route with one thing wrong, is refused with the errno the general path
 * gives, writes no completion and changes nothing at the target; the next good call goes on
 * exactly.
 */
@RequiresProvider("ucx")
class MappedRouteTest {
  private static final long LENGTH = 4096;
  private static final long AT = 64;

  @Test
  void callsOnTheLastRouteGiveExactlyWhatTheFirstPathGives() throws Exception {
    try (RemoteTarget target = new RemoteTarget("ucx", "shm", LENGTH, false, false, List.of());
        Initiator me = new Initiator("ucx", Initiator.manual("shm"));
        Arena arena = Arena.ofConfined()) {
      long peer = me.av.insert(target.address());
      long key = target.key();
      assertEquals("mapped", me.ep.atomicPath(peer, key));
      MemorySegment one = arena.allocate(8, 8);
      one.set(JAVA_LONG, 0, 1);
      MemorySegment result = arena.allocate(8, 8);
      Call fetchAdd = (operand, res, addr) -> fetch(me, operand, res, peer, addr, key, FiOp.SUM);

      for (long i = 0; i < 100; i++) {
        assertEquals(0, fetchAdd.post(one, result, AT));
        assertEquals(FiFlags.ATOMIC | FiFlags.READ, completionFlags(me));
        assertEquals(i, result.get(JAVA_LONG, 0), "fetched the count before the call");
      }

      Arena gone = Arena.ofConfined();
      MemorySegment freed = gone.allocate(8, 8);
      gone.close();
      MemorySegment[] otherThreads = new MemorySegment[1];
      Thread.ofPlatform().start(() -> otherThreads[0] = Arena.ofConfined().allocate(8, 8)).join();
      result.set(JAVA_LONG, 0, -1);
      assertEquals(-FiErrno.EINVAL, fetchAdd.post(one, result, AT + 4), "misaligned");
      assertEquals(-FiErrno.EFAULT, fetchAdd.post(one, result, LENGTH), "past the end");
      assertEquals(-FiErrno.EFAULT, fetchAdd.post(one, result, LENGTH - 4), "across the end");
      assertEquals(-FiErrno.EFAULT, fetchAdd.post(one, result, -8), "before the start");
      assertEquals(-FiErrno.EINVAL, fetchAdd.post(one, arena.allocate(4, 4), AT), "short result");
      assertEquals(-FiErrno.EINVAL, fetchAdd.post(one, result.asReadOnly(), AT), "read-only");
      assertEquals(-FiErrno.EINVAL, fetchAdd.post(one, freed, AT), "freed result");
      assertEquals(-FiErrno.EINVAL, fetchAdd.post(one, otherThreads[0], AT), "another's result");
      assertEquals(-FiErrno.EINVAL, fetchAdd.post(null, result, AT), "no operand");
      assertEquals(-FiErrno.EINVAL, fetchAdd.post(arena.allocate(4, 4), result, AT), "short");
      assertEquals(-FiErrno.EAGAIN, me.cq.read(new CqEntry[] {new CqEntry()}, 1), "no entry");
      assertEquals(-1, result.get(JAVA_LONG, 0), "a refused call wrote no result");
      assertEquals(100, word(target, AT), "refused calls changed nothing at the target");

      assertEquals(0, fetchAdd.post(one, result, AT));
      assertEquals(FiFlags.ATOMIC | FiFlags.READ, completionFlags(me));
      assertEquals(100, result.get(JAVA_LONG, 0), "the route goes on after the refusals");

      // the other families and ops take routes of their own, one after another
      for (int i = 0; i < 3; i++) {
        assertEquals(
            0, me.ep.atomic(one, 1, null, peer, AT, key, FiDatatype.UINT64, FiOp.SUM, null));
        assertEquals(FiFlags.ATOMIC | FiFlags.WRITE, completionFlags(me));
      }
      assertEquals(104, word(target, AT));
      for (int i = 0; i < 3; i++) {
        assertEquals(0, me.ep.injectAtomic(one, 1, peer, AT, key, FiDatatype.UINT64, FiOp.SUM));
      }
      assertEquals(107, word(target, AT));
      for (int i = 0; i < 3; i++) {
        assertEquals(0, fetch(me, null, result, peer, AT, key, FiOp.ATOMIC_READ));
        assertEquals(FiFlags.ATOMIC | FiFlags.READ, completionFlags(me));
        assertEquals(107, result.get(JAVA_LONG, 0));
      }
      MemorySegment swap = arena.allocate(8, 8);
      MemorySegment compare = arena.allocate(8, 8);
      long[][] swaps = {{107, 7, 107}, {7, 9, 7}, {107, 11, 9}};
      for (long[] s : swaps) {
        compare.set(JAVA_LONG, 0, s[0]);
        swap.set(JAVA_LONG, 0, s[1]);
        assertEquals(
            0,
            me.post(
                AtomicFamily.COMPARE,
                FiOp.CSWAP,
                FiDatatype.UINT64,
                1,
                swap,
                compare,
                result,
                peer,
                AT,
                key,
                null));
        assertEquals(FiFlags.ATOMIC | FiFlags.READ, completionFlags(me));
        assertEquals(s[2], result.get(JAVA_LONG, 0), "the old value");
      }
      assertEquals(9, word(target, AT), "the last compare did not match");

      me.av.remove(peer);
      assertEquals(-FiErrno.EADDRNOTAVAIL, fetchAdd.post(one, result, AT), "removed peer");
      assertEquals(9, word(target, AT));
    }
  }

  /**
   * The same for emulated cells, which run in place on the mapping: fetch MIN INT64 (the CAS loop)
   * and fetch SUM DOUBLE_COMPLEX (the remote lock), each a run of calls on one route, a bad call on
   * the same route refused as the general path refuses it, and the run going on exactly.
   */
  @Test
  void emulatedCallsOnTheLastRouteGiveExactlyWhatTheFirstPathGives() throws Exception {
    try (RemoteTarget target = new RemoteTarget("ucx", "shm", LENGTH, false, false, List.of());
        Initiator me = new Initiator("ucx", Initiator.manual("shm"));
        Arena arena = Arena.ofConfined()) {
      long peer = me.av.insert(target.address());
      long key = target.key();
      MemorySegment operand = arena.allocate(16, 16);
      MemorySegment result = arena.allocate(16, 16);

      long[] operands = {5, -3, 7, -10, 4};
      long[] fetched = {0, 0, -3, -3, -10};
      for (int i = 0; i < operands.length; i++) {
        operand.set(JAVA_LONG, 0, operands[i]);
        assertEquals(0, fetchMin(me, operand, result, peer, AT, key));
        assertEquals(FiFlags.ATOMIC | FiFlags.READ, completionFlags(me));
        assertEquals(fetched[i], result.get(JAVA_LONG, 0), "MIN call " + i);
      }
      assertEquals(-FiErrno.EINVAL, fetchMin(me, operand, result, peer, AT + 4, key));
      assertEquals(-FiErrno.EFAULT, fetchMin(me, operand, result, peer, LENGTH, key));
      assertEquals(-FiErrno.EINVAL, fetchMin(me, operand, result.asReadOnly(), peer, AT, key));
      operand.set(JAVA_LONG, 0, -11);
      assertEquals(0, fetchMin(me, operand, result, peer, AT, key));
      assertEquals(FiFlags.ATOMIC | FiFlags.READ, completionFlags(me));
      assertEquals(-10, result.get(JAVA_LONG, 0));
      assertEquals(-11, word(target, AT));

      long at = 128;
      operand.set(JAVA_DOUBLE, 0, 1.5);
      operand.set(JAVA_DOUBLE, 8, 2.0);
      for (int i = 0; i < 3; i++) {
        assertEquals(0, fetchComplexSum(me, operand, result, peer, at, key));
        assertEquals(FiFlags.ATOMIC | FiFlags.READ, completionFlags(me));
        assertEquals(1.5 * i, result.get(JAVA_DOUBLE, 0), "real part before call " + i);
        assertEquals(2.0 * i, result.get(JAVA_DOUBLE, 8), "imaginary part before call " + i);
      }
      assertEquals(-FiErrno.EINVAL, fetchComplexSum(me, operand, result, peer, at + 4, key));
      assertEquals(-FiErrno.EFAULT, fetchComplexSum(me, operand, result, peer, LENGTH - 8, key));
      assertEquals(0, fetchComplexSum(me, operand, result, peer, at, key));
      assertEquals(FiFlags.ATOMIC | FiFlags.READ, completionFlags(me));
      assertEquals(4.5, result.get(JAVA_DOUBLE, 0));
      assertEquals(6.0, result.get(JAVA_DOUBLE, 8));
      assertEquals(Double.doubleToLongBits(6.0), word(target, at));
      assertEquals(Double.doubleToLongBits(8.0), word(target, at + 8));
      assertEquals(-FiErrno.EAGAIN, me.cq.read(new CqEntry[] {new CqEntry()}, 1), "no entry");
    }
  }

  private static int fetchMin(
      Initiator me, MemorySegment operand, MemorySegment result, long peer, long addr, long key) {
    return me.ep.fetchAtomic(
        operand, 1, null, result, null, peer, addr, key, FiDatatype.INT64, FiOp.MIN, null);
  }

  private static int fetchComplexSum(
      Initiator me, MemorySegment operand, MemorySegment result, long peer, long addr, long key) {
    return me.ep.fetchAtomic(
        operand, 1, null, result, null, peer, addr, key, FiDatatype.DOUBLE_COMPLEX, FiOp.SUM, null);
  }

  @FunctionalInterface
  private interface Call {
    int post(MemorySegment operand, MemorySegment result, long addr);
  }

  private static int fetch(
      Initiator me,
      MemorySegment operand,
      MemorySegment result,
      long peer,
      long addr,
      long key,
      FiOp op) {
    return me.ep.fetchAtomic(
        operand, 1, null, result, null, peer, addr, key, FiDatatype.UINT64, op, null);
  }

  private static long completionFlags(Initiator me) {
    CqEntry[] entries = {new CqEntry()};
    assertEquals(1, me.cq.sread(entries, 1, 10_000), "one completion");
    return entries[0].flags;
  }

  private static long word(RemoteTarget target, long offset) {
    return ByteBuffer.wrap(target.get(offset, 8)).order(ByteOrder.LITTLE_ENDIAN).getLong();
  }
}
