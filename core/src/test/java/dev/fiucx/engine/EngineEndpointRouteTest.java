package dev.fiucx.engine;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.engine.LoopbackRig.Mode;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Runs of one-element calls to one place, over the loopback transport: each call of a run must give
 * exactly what the first one gives (on a mapped region the calls after the first take the
 * endpoint's remembered route), and a call that changes the offset, the key, the op, the datatype,
 * the family or the peer must leave the run's place alone and give exactly its own result.
 */
class EngineEndpointRouteTest {
  private static final long FETCHED = FiFlags.ATOMIC | FiFlags.READ;
  private static final long WRITTEN = FiFlags.ATOMIC | FiFlags.WRITE;
  private static final long AT = 64;

  private LoopbackRig r;

  @AfterEach
  void close() {
    if (r != null) {
      r.close();
    }
  }

  private int fetch(
      long peer, long addr, long key, FiDatatype dt, FiOp op, MemorySegment operand, Object c) {
    return r.ep.fetchAtomic(operand, 1, null, result, null, peer, addr, key, dt, op, c);
  }

  private MemorySegment result;

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aRunOfNativeCallsThenCallsThatLeaveItsPlace(Mode mode) {
    r = new LoopbackRig(mode, FiFlags.TRANSMIT);
    result = r.zeroed(16);
    MemorySegment one = r.longs(1);
    if (mode == Mode.MAPPED) {
      assertEquals("mapped", r.ep.atomicPath(r.peer, r.key));
    }
    long posted = r.transport.posts.get();
    for (long i = 0; i < 100; i++) {
      assertEquals(0, fetch(r.peer, AT, r.key, FiDatatype.UINT64, FiOp.SUM, one, i));
      r.completes(i, FETCHED);
      assertEquals(i, result.get(JAVA_LONG, 0), "fetched the count before call " + i);
    }
    assertEquals(100, r.word(AT));
    assertEquals(
        mode == Mode.MAPPED ? 0 : 100,
        r.transport.posts.get() - posted,
        "posted to the transport (a mapped region's calls are CPU atomics in the call)");

    r.target.set(JAVA_LONG, AT + 8, 1000);
    assertEquals(0, fetch(r.peer, AT + 8, r.key, FiDatatype.UINT64, FiOp.SUM, one, "offset"));
    r.completes("offset", FETCHED);
    assertEquals(1000, result.get(JAVA_LONG, 0));
    assertEquals(1001, r.word(AT + 8));

    r.second.segment().set(JAVA_LONG, AT, 5000);
    assertEquals(0, fetch(r.peer, AT, r.second.key(), FiDatatype.UINT64, FiOp.SUM, one, "key"));
    r.completes("key", FETCHED);
    assertEquals(5000, result.get(JAVA_LONG, 0));
    assertEquals(5001, r.second.segment().get(JAVA_LONG, AT));

    assertEquals(0, fetch(r.peer, AT, r.key, FiDatatype.UINT64, FiOp.BOR, r.longs(0x100), "op"));
    r.completes("op", FETCHED);
    assertEquals(100, result.get(JAVA_LONG, 0));
    assertEquals(0x164, r.word(AT));

    assertEquals(0, fetch(r.peer, AT, r.key, FiDatatype.INT64, FiOp.SUM, r.longs(-0x64), "dt"));
    r.completes("dt", FETCHED);
    assertEquals(0x164, result.get(JAVA_LONG, 0));
    assertEquals(0x100, r.word(AT));

    for (int i = 0; i < 3; i++) {
      assertEquals(
          0, r.ep.atomic(one, 1, null, r.peer, AT, r.key, FiDatatype.UINT64, FiOp.SUM, "base"));
      r.completes("base", WRITTEN);
    }
    for (int i = 0; i < 3; i++) {
      assertEquals(0, r.ep.injectAtomic(one, 1, r.peer, AT, r.key, FiDatatype.UINT64, FiOp.SUM));
    }
    LoopbackRig.awaitCount(r.writes, 6);
    assertEquals(0x106, r.word(AT));

    assertEquals(0, fetch(r.peer, AT, r.key, FiDatatype.UINT64, FiOp.SUM, one, "back"));
    r.completes("back", FETCHED);
    assertEquals(0x106, result.get(JAVA_LONG, 0));
    assertEquals(0x107, r.word(AT));
    assertEquals(1000 + 1, r.word(AT + 8), "the other offset kept its value");
    assertEquals(5001, r.second.segment().get(JAVA_LONG, AT), "the other region too");

    // the peer leaves the address vector and comes back under a new fi_addr
    r.av.remove(r.peer);
    result.set(JAVA_LONG, 0, -1);
    assertEquals(
        -FiErrno.EADDRNOTAVAIL, fetch(r.peer, AT, r.key, FiDatatype.UINT64, FiOp.SUM, one, "gone"));
    assertEquals(-1, result.get(JAVA_LONG, 0));
    assertEquals(0x107, r.word(AT));
    long again = r.av.insert(r.ep.name());
    assertEquals(r.peer + 1, again);
    assertEquals(0, fetch(again, AT, r.key, FiDatatype.UINT64, FiOp.SUM, one, "again"));
    r.completes("again", FETCHED);
    assertEquals(0x107, result.get(JAVA_LONG, 0));
    assertEquals(0x108, r.word(AT));
    r.noCompletion();
  }

  /**
   * A run of fetch MIN INT64 (the CAS loop), a misaligned and an out-of-bounds call in its middle,
   * then a run of fetch SUM DOUBLE_COMPLEX (the remote lock) with the same interruptions.
   */
  @ParameterizedTest
  @EnumSource(Mode.class)
  void runsOfEmulatedCallsGiveExactlyWhatTheFirstGives(Mode mode) {
    r = new LoopbackRig(mode, FiFlags.TRANSMIT);
    result = r.zeroed(16);
    r.target.set(JAVA_LONG, AT, 500);
    MemorySegment operand = r.zeroed(16);
    long min = 500;
    for (int i = 0; i < 60; i++) {
      long value = (i % 2 == 0 ? 1000 : 520) - 9L * i;
      operand.set(JAVA_LONG, 0, value);
      assertEquals(0, fetch(r.peer, AT, r.key, FiDatatype.INT64, FiOp.MIN, operand, i));
      r.completes(i, FETCHED);
      assertEquals(min, result.get(JAVA_LONG, 0), "MIN call " + i);
      min = Math.min(min, value);
      if (i == 30) {
        result.set(JAVA_LONG, 0, 7);
        assertEquals(
            -FiErrno.EINVAL,
            fetch(r.peer, AT + 4, r.key, FiDatatype.INT64, FiOp.MIN, operand, "x"));
        assertEquals(
            -FiErrno.EFAULT,
            fetch(r.peer, LoopbackRig.REGION, r.key, FiDatatype.INT64, FiOp.MIN, operand, "x"));
        assertEquals(7, result.get(JAVA_LONG, 0));
        assertEquals(min, r.word(AT));
      }
    }
    assertEquals(520 - 9L * 59, min, "the run went below the first value");
    assertEquals(min, r.word(AT));

    long at = 256;
    MemorySegment complex = r.doubles(1.5, -2.0);
    for (int i = 0; i < 20; i++) {
      assertEquals(0, fetch(r.peer, at, r.key, FiDatatype.DOUBLE_COMPLEX, FiOp.SUM, complex, i));
      r.completes(i, FETCHED);
      assertEquals(1.5 * i, result.get(JAVA_DOUBLE, 0), "real part before call " + i);
      assertEquals(0.0 - 2.0 * i, result.get(JAVA_DOUBLE, 8), "imaginary part before call " + i);
      if (i == 10) {
        assertEquals(
            -FiErrno.EINVAL,
            fetch(r.peer, at + 4, r.key, FiDatatype.DOUBLE_COMPLEX, FiOp.SUM, complex, "x"));
        assertEquals(
            -FiErrno.EFAULT,
            fetch(
                r.peer,
                LoopbackRig.REGION - 8,
                r.key,
                FiDatatype.DOUBLE_COMPLEX,
                FiOp.SUM,
                complex,
                "x"));
        assertEquals(
            -FiErrno.EKEYREJECTED,
            fetch(r.peer, at, r.key + 99, FiDatatype.DOUBLE_COMPLEX, FiOp.SUM, complex, "x"));
      }
    }
    assertEquals(30.0, r.target.get(JAVA_DOUBLE, at));
    assertEquals(-40.0, r.target.get(JAVA_DOUBLE, at + 8));
    assertEquals(min, r.word(AT), "the CAS loop's word kept its value");
    r.noCompletion();
  }
}
