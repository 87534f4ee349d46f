package dev.fiucx.engine;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fiucx.AtomicMsg;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.Ioc;
import dev.fiucx.Mechanism;
import dev.fiucx.RmaIoc;
import dev.fiucx.engine.LoopbackRig.Mode;
import dev.fiucx.semantics.LongDouble;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every call form of fi_atomic(3) through the engine over the in-process loopback transport, so
 * that they run without UCX: the three families in their plain, vector, message and inject forms,
 * on a native cell, CAS-loop cells and remote-lock cells, with the exact values each must leave at
 * the target and in the results, and the completion entries and counters each must produce. Each
 * test runs with the transport posting and completing later, with regions mapped into the process
 * (one-element calls run in the call), with operations held until progress and carried out the
 * newest first, and under automatic progress.
 */
class EngineEndpointTest {
  private static final long FETCHED = FiFlags.ATOMIC | FiFlags.READ;
  private static final long WRITTEN = FiFlags.ATOMIC | FiFlags.WRITE;

  private LoopbackRig r;

  /** The old value of the last {@link #compare}. */
  private MemorySegment compared;

  @AfterEach
  void close() {
    if (r != null) {
      r.close();
    }
  }

  private void open(Mode mode) {
    r = new LoopbackRig(mode, FiFlags.TRANSMIT);
  }

  private void assertMechanism(Mechanism expected, FiDatatype dt, FiOp op, long flags) {
    assertEquals(expected, r.domain.queryAtomic(dt, op, flags).mechanism(), op + " " + dt);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void fetchSumUint64InThePlainVectorAndMessageForms(Mode mode) {
    open(mode);
    assertMechanism(Mechanism.NATIVE, FiDatatype.UINT64, FiOp.SUM, FiFlags.FETCH_ATOMIC);
    for (int i = 0; i < 8; i++) {
      r.target.setAtIndex(JAVA_LONG, i, 100L * i + 1);
    }
    MemorySegment result = r.zeroed(8);
    assertEquals(
        0,
        r.ep.fetchAtomic(
            r.longs(5), 1, null, result, null, r.peer, 8, r.key, FiDatatype.UINT64, FiOp.SUM, "p"));
    r.completes("p", FETCHED);
    assertEquals(101, result.get(JAVA_LONG, 0));
    assertEquals(106, r.word(8));

    // three elements from two operand iovs, into two result iovs
    MemorySegment r1 = r.zeroed(16);
    MemorySegment r2 = r.zeroed(8);
    assertEquals(
        0,
        r.ep.fetchAtomicv(
            new Ioc[] {new Ioc(r.longs(1, 2), 2), new Ioc(r.longs(-3), 1)},
            null,
            2,
            new Ioc[] {new Ioc(r1, 2), new Ioc(r2, 1)},
            null,
            2,
            r.peer,
            16,
            r.key,
            FiDatatype.UINT64,
            FiOp.SUM,
            "v"));
    r.completes("v", FETCHED);
    assertEquals(201, r1.getAtIndex(JAVA_LONG, 0));
    assertEquals(301, r1.getAtIndex(JAVA_LONG, 1));
    assertEquals(401, r2.get(JAVA_LONG, 0));
    assertEquals(202, r.word(16));
    assertEquals(303, r.word(24));
    assertEquals(398, r.word(32));

    // two remote iovs, one of them in the second region
    r.second.segment().set(JAVA_LONG, 64, 7000);
    AtomicMsg msg =
        new AtomicMsg(
            new Ioc[] {new Ioc(r.longs(10, 20, 30), 3)},
            null,
            r.peer,
            new RmaIoc[] {new RmaIoc(40, 2, r.key), new RmaIoc(64, 1, r.second.key())},
            FiDatatype.UINT64,
            FiOp.SUM,
            "m",
            0);
    MemorySegment r3 = r.zeroed(24);
    assertEquals(0, r.ep.fetchAtomicmsg(msg, new Ioc[] {new Ioc(r3, 3)}, null, 1, 0));
    r.completes("m", FETCHED);
    assertEquals(501, r3.getAtIndex(JAVA_LONG, 0));
    assertEquals(601, r3.getAtIndex(JAVA_LONG, 1));
    assertEquals(7000, r3.getAtIndex(JAVA_LONG, 2));
    assertEquals(511, r.word(40));
    assertEquals(621, r.word(48));
    assertEquals(7030, r.second.segment().get(JAVA_LONG, 64));
    assertEquals(701, r.word(56), "the word after the ranges");
    assertEquals(3, r.reads.read());
    assertEquals(0, r.writes.read());
    r.noCompletion();
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void baseSumUint64InThePlainVectorMessageAndInjectForms(Mode mode) {
    open(mode);
    assertEquals(
        0, r.ep.atomic(r.longs(3), 1, null, r.peer, 0, r.key, FiDatatype.UINT64, FiOp.SUM, "p"));
    r.completes("p", WRITTEN);
    assertEquals(3, r.word(0));

    assertEquals(
        0,
        r.ep.atomicv(
            new Ioc[] {new Ioc(r.longs(1, 2), 2), new Ioc(r.longs(4), 1)},
            null,
            2,
            r.peer,
            0,
            r.key,
            FiDatatype.UINT64,
            FiOp.SUM,
            "v"));
    r.completes("v", WRITTEN);
    assertEquals(4, r.word(0));
    assertEquals(2, r.word(8));
    assertEquals(4, r.word(16));

    AtomicMsg msg =
        new AtomicMsg(
            new Ioc[] {new Ioc(r.longs(-1, 10), 2)},
            null,
            r.peer,
            new RmaIoc[] {new RmaIoc(8, 1, r.key), new RmaIoc(8, 1, r.key)},
            FiDatatype.UINT64,
            FiOp.SUM,
            "m",
            0);
    assertEquals(0, r.ep.atomicmsg(msg, FiFlags.COMPLETION));
    r.completes("m", WRITTEN);
    assertEquals(11, r.word(8), "both remote iovs name the same word");

    // inject: the operand is the caller's again on return, and no completion is written
    MemorySegment operand = r.longs(5);
    assertEquals(0, r.ep.injectAtomic(operand, 1, r.peer, 24, r.key, FiDatatype.UINT64, FiOp.SUM));
    operand.set(JAVA_LONG, 0, 1000);
    MemorySegment three = r.longs(7, 8, 9);
    assertEquals(0, r.ep.injectAtomic(three, 3, r.peer, 32, r.key, FiDatatype.UINT64, FiOp.SUM));
    three.fill((byte) 0x55);
    LoopbackRig.awaitCount(r.writes, 5);
    assertEquals(5, r.word(24));
    assertEquals(7, r.word(32));
    assertEquals(8, r.word(40));
    assertEquals(9, r.word(48));
    assertEquals(0, r.word(56));
    assertEquals(0, r.reads.read());
    r.noCompletion();
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void casLoopCellsComputeSignedAndNarrowElementsExactly(Mode mode) {
    open(mode);
    assertMechanism(Mechanism.CAS_LOOP, FiDatatype.INT32, FiOp.MIN, FiFlags.FETCH_ATOMIC);
    assertMechanism(Mechanism.CAS_LOOP, FiDatatype.INT8, FiOp.SUM, 0);
    r.target.set(JAVA_INT, 64, -3);
    r.target.set(JAVA_INT, 68, 0x5A5A5A5A);
    int[] operands = {5, -10, -4, Integer.MIN_VALUE};
    int[] fetched = {-3, -3, -10, -10};
    MemorySegment result = r.zeroed(4);
    for (int i = 0; i < operands.length; i++) {
      assertEquals(
          0,
          r.ep.fetchAtomic(
              r.ints(operands[i]),
              1,
              null,
              result,
              null,
              r.peer,
              64,
              r.key,
              FiDatatype.INT32,
              FiOp.MIN,
              i));
      r.completes(i, FETCHED);
      assertEquals(fetched[i], result.get(JAVA_INT, 0), "MIN call " + i);
    }
    assertEquals(Integer.MIN_VALUE, r.target.get(JAVA_INT, 64));
    assertEquals(0x5A5A5A5A, r.target.get(JAVA_INT, 68), "the next word");

    // one byte of a word: 127 + 1 wraps to -128, the word's other bytes stay
    int[] word = {0x11, 0x7F, 0x33, 0x44};
    for (int i = 0; i < 4; i++) {
      r.target.set(JAVA_BYTE, 128 + i, (byte) word[i]);
    }
    assertEquals(
        0, r.ep.atomic(r.bytes(1), 1, null, r.peer, 129, r.key, FiDatatype.INT8, FiOp.SUM, "b"));
    r.completes("b", WRITTEN);
    assertEquals(0x11, r.target.get(JAVA_BYTE, 128));
    assertEquals(-128, r.target.get(JAVA_BYTE, 129));
    assertEquals(0x33, r.target.get(JAVA_BYTE, 130));
    assertEquals(0x44, r.target.get(JAVA_BYTE, 131));

    // six bytes, four of them in one word and two in the next: elements that share a word
    for (int i = 0; i < 6; i++) {
      r.target.set(JAVA_BYTE, 132 + i, (byte) (10 * i));
    }
    r.target.set(JAVA_BYTE, 138, (byte) 99);
    MemorySegment bytes = r.zeroed(6);
    assertEquals(
        0,
        r.ep.fetchAtomic(
            r.bytes(1, 2, 3, -4, 127, -128),
            6,
            null,
            bytes,
            null,
            r.peer,
            132,
            r.key,
            FiDatatype.INT8,
            FiOp.SUM,
            "v"));
    r.completes("v", FETCHED);
    int[] after = {1, 12, 23, 26, (byte) (40 + 127), (byte) (50 - 128)};
    for (int i = 0; i < 6; i++) {
      assertEquals(10 * i, bytes.get(JAVA_BYTE, i), "fetched byte " + i);
      assertEquals((byte) after[i], r.target.get(JAVA_BYTE, 132 + i), "byte " + i);
    }
    assertEquals(99, r.target.get(JAVA_BYTE, 138), "the byte after the range");
    r.noCompletion();
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void remoteLockCellsComputeWideElementsExactly(Mode mode) {
    open(mode);
    assertMechanism(
        Mechanism.REMOTE_LOCK, FiDatatype.DOUBLE_COMPLEX, FiOp.SUM, FiFlags.FETCH_ATOMIC);
    assertMechanism(Mechanism.REMOTE_LOCK, FiDatatype.LONG_DOUBLE, FiOp.SUM, 0);
    r.target.set(JAVA_DOUBLE, 256, 1.0);
    r.target.set(JAVA_DOUBLE, 264, 2.0);
    MemorySegment result = r.zeroed(16);
    for (int i = 0; i < 3; i++) {
      assertEquals(
          0,
          r.ep.fetchAtomic(
              r.doubles(0.5, -4.0),
              1,
              null,
              result,
              null,
              r.peer,
              256,
              r.key,
              FiDatatype.DOUBLE_COMPLEX,
              FiOp.SUM,
              i));
      r.completes(i, FETCHED);
      assertEquals(1.0 + 0.5 * i, result.get(JAVA_DOUBLE, 0), "real part before call " + i);
      assertEquals(2.0 - 4.0 * i, result.get(JAVA_DOUBLE, 8), "imaginary part before call " + i);
    }
    assertEquals(2.5, r.target.get(JAVA_DOUBLE, 256));
    assertEquals(-10.0, r.target.get(JAVA_DOUBLE, 264));

    // three elements by one call: (a+bi)(c+di) each
    double[] before = {1, 2, 3, -1, 0.5, 0.25};
    for (int i = 0; i < 6; i++) {
      r.target.setAtIndex(JAVA_DOUBLE, 40 + i, before[i]);
    }
    r.target.setAtIndex(JAVA_DOUBLE, 46, 77.0);
    MemorySegment results = r.zeroed(48);
    assertEquals(
        0,
        r.ep.fetchAtomicv(
            new Ioc[] {new Ioc(r.doubles(2, 0, 0, 1, 4, -8), 3)},
            null,
            1,
            new Ioc[] {new Ioc(results, 3)},
            null,
            1,
            r.peer,
            320,
            r.key,
            FiDatatype.DOUBLE_COMPLEX,
            FiOp.PROD,
            "v"));
    r.completes("v", FETCHED);
    double[] after = {2, 4, 1, 3, 4, -3};
    for (int i = 0; i < 6; i++) {
      assertEquals(before[i], results.getAtIndex(JAVA_DOUBLE, i), "fetched part " + i);
      assertEquals(after[i], r.target.getAtIndex(JAVA_DOUBLE, 40 + i), "part " + i);
    }
    assertEquals(77.0, r.target.getAtIndex(JAVA_DOUBLE, 46), "the double after the range");

    LongDouble.of(1.5).write(r.target, 512);
    MemorySegment operand = r.zeroed(16);
    LongDouble.of(2.25).write(operand, 0);
    assertEquals(
        0,
        r.ep.atomic(operand, 1, null, r.peer, 512, r.key, FiDatatype.LONG_DOUBLE, FiOp.SUM, "ld"));
    r.completes("ld", WRITTEN);
    assertEquals(LongDouble.of(3.75), LongDouble.read(r.target, 512));
    r.noCompletion();
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void compareAtomicsSwapExactlyWhereTheirConditionHolds(Mode mode) {
    open(mode);
    compared = r.zeroed(8);
    assertMechanism(Mechanism.NATIVE, FiDatatype.UINT64, FiOp.CSWAP, FiFlags.COMPARE_ATOMIC);
    assertMechanism(Mechanism.CAS_LOOP, FiDatatype.INT32, FiOp.CSWAP_LE, FiFlags.COMPARE_ATOMIC);
    assertMechanism(Mechanism.CAS_LOOP, FiDatatype.UINT64, FiOp.MSWAP, FiFlags.COMPARE_ATOMIC);

    // CSWAP: {compare, swap, the old value fetched, the word after}
    r.target.set(JAVA_LONG, 0, 10);
    long[][] cswaps = {{10, 11, 10, 11}, {10, 12, 11, 11}, {11, -1, 11, -1}};
    for (long[] c : cswaps) {
      assertEquals(0, compare(FiDatatype.UINT64, FiOp.CSWAP, r.longs(c[1]), r.longs(c[0]), 0));
      r.completes("c", FETCHED);
      assertEquals(c[2], compared.get(JAVA_LONG, 0));
      assertEquals(c[3], r.word(0));
    }

    // CSWAP_LE: swaps when compare <= the word, signed for INT32, unsigned for UINT32
    r.target.set(JAVA_INT, 8, -5);
    assertEquals(0, compare(FiDatatype.INT32, FiOp.CSWAP_LE, r.ints(7), r.ints(3), 8));
    r.completes("c", FETCHED);
    assertEquals(-5, r.target.get(JAVA_INT, 8), "3 <= -5 is false: no swap");
    assertEquals(0, compare(FiDatatype.INT32, FiOp.CSWAP_LE, r.ints(7), r.ints(-10), 8));
    r.completes("c", FETCHED);
    assertEquals(-5, compared.get(JAVA_INT, 0));
    assertEquals(7, r.target.get(JAVA_INT, 8), "-10 <= -5: swapped");
    r.target.set(JAVA_INT, 12, -5);
    assertEquals(0, compare(FiDatatype.UINT32, FiOp.CSWAP_LE, r.ints(7), r.ints(3), 12));
    r.completes("c", FETCHED);
    assertEquals(7, r.target.get(JAVA_INT, 12), "3 <= 0xFFFFFFFB unsigned: swapped");

    // MSWAP: the word takes the operand's bits where the mask is set
    r.target.set(JAVA_LONG, 16, 0x1111_2222_3333_4444L);
    assertEquals(
        0,
        compare(
            FiDatatype.UINT64,
            FiOp.MSWAP,
            r.longs(0xAAAA_BBBB_CCCC_DDDDL),
            r.longs(0xFFFF_0000_FFFF_0000L),
            16));
    r.completes("c", FETCHED);
    assertEquals(0x1111_2222_3333_4444L, compared.get(JAVA_LONG, 0));
    assertEquals(0xAAAA_2222_CCCC_4444L, r.word(16));

    // vector: three CSWAPs, compare values from two iovs, the middle one does not match
    r.target.setAtIndex(JAVA_LONG, 8, 10);
    r.target.setAtIndex(JAVA_LONG, 9, 20);
    r.target.setAtIndex(JAVA_LONG, 10, 30);
    MemorySegment results = r.zeroed(24);
    assertEquals(
        0,
        r.ep.compareAtomicv(
            new Ioc[] {new Ioc(r.longs(11, 21, 31), 3)},
            null,
            1,
            new Ioc[] {new Ioc(r.longs(10), 1), new Ioc(r.longs(99, 30), 2)},
            null,
            2,
            new Ioc[] {new Ioc(results, 3)},
            null,
            1,
            r.peer,
            64,
            r.key,
            FiDatatype.UINT64,
            FiOp.CSWAP,
            "v"));
    r.completes("v", FETCHED);
    long[] fetched = {10, 20, 30};
    long[] after = {11, 20, 31};
    for (int i = 0; i < 3; i++) {
      assertEquals(fetched[i], results.getAtIndex(JAVA_LONG, i));
      assertEquals(after[i], r.target.getAtIndex(JAVA_LONG, 8 + i));
    }

    // message: MSWAP over two remote iovs
    r.target.setAtIndex(JAVA_LONG, 12, 0xF0);
    r.target.setAtIndex(JAVA_LONG, 14, 0x0F);
    AtomicMsg msg =
        new AtomicMsg(
            new Ioc[] {new Ioc(r.longs(0xFF, 0xFF), 2)},
            null,
            r.peer,
            new RmaIoc[] {new RmaIoc(96, 1, r.key), new RmaIoc(112, 1, r.key)},
            FiDatatype.UINT64,
            FiOp.MSWAP,
            "m",
            0);
    assertEquals(
        0,
        r.ep.compareAtomicmsg(
            msg,
            new Ioc[] {new Ioc(r.longs(0x0F, 0xF0), 2)},
            null,
            1,
            new Ioc[] {new Ioc(results, 2)},
            null,
            1,
            FiFlags.COMPLETION));
    r.completes("m", FETCHED);
    assertEquals(0xF0, results.getAtIndex(JAVA_LONG, 0));
    assertEquals(0x0F, results.getAtIndex(JAVA_LONG, 1));
    assertEquals(0xFF, r.target.getAtIndex(JAVA_LONG, 12));
    assertEquals(0xFF, r.target.getAtIndex(JAVA_LONG, 14));
    assertEquals(9, r.reads.read(), "every compare call counts as a read");
    assertEquals(0, r.writes.read());
    r.noCompletion();
  }

  /** A one-element compare call with context "c", its old value into {@link #compared}. */
  private int compare(FiDatatype dt, FiOp op, MemorySegment swap, MemorySegment cmp, long addr) {
    return r.ep.compareAtomic(
        swap, 1, null, cmp, null, compared, null, r.peer, addr, r.key, dt, op, "c");
  }
}
