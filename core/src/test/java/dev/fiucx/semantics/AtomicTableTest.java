package dev.fiucx.semantics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.fiucx.AtomicAttr;
import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.Mechanism;
import dev.fiucx.spi.RemoteAtomicOp;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AtomicTableTest {
  private final AtomicTable table = AtomicTable.reference();

  private long validCount(AtomicFamily f) {
    return table.cells().stream().filter(c -> c.family() == f && c.valid()).count();
  }

  @Test
  void has354ValidCellsSplitAsDesignSays() {
    assertEquals(3 * 19 * 14, table.cells().size());
    assertEquals(354, table.validCells().size());
    assertEquals(130, validCount(AtomicFamily.BASE));
    assertEquals(144, validCount(AtomicFamily.FETCH));
    assertEquals(80, validCount(AtomicFamily.COMPARE));
  }

  @Test
  void eachOpHasExactlyTheDatatypesOfDesignTable() {
    Set<FiDatatype> ints = EnumSet.range(FiDatatype.INT8, FiDatatype.UINT64);
    Set<FiDatatype> ordered = EnumSet.copyOf(ints);
    ordered.addAll(EnumSet.of(FiDatatype.FLOAT, FiDatatype.DOUBLE, FiDatatype.LONG_DOUBLE));
    Set<FiDatatype> all = EnumSet.allOf(FiDatatype.class);
    for (AtomicFamily f : AtomicFamily.values()) {
      for (FiOp op : FiOp.values()) {
        Set<FiDatatype> expected =
            switch (op) {
              case MIN, MAX -> f == AtomicFamily.COMPARE ? Set.of() : ordered;
              case SUM, PROD, LOR, LAND, LXOR, ATOMIC_WRITE ->
                  f == AtomicFamily.COMPARE ? Set.of() : all;
              case BOR, BAND, BXOR -> f == AtomicFamily.COMPARE ? Set.of() : ints;
              case ATOMIC_READ -> f == AtomicFamily.FETCH ? all : Set.of();
              case CSWAP, CSWAP_NE -> f == AtomicFamily.COMPARE ? all : Set.of();
              case CSWAP_LE, CSWAP_LT, CSWAP_GE, CSWAP_GT ->
                  f == AtomicFamily.COMPARE ? ordered : Set.of();
              case MSWAP -> f == AtomicFamily.COMPARE ? ints : Set.of();
            };
        for (FiDatatype dt : FiDatatype.values()) {
          assertEquals(
              expected.contains(dt),
              table.cell(f, op, dt).valid(),
              f.label() + " " + op.fiName() + " " + dt.fiName());
        }
      }
    }
  }

  @Test
  void validReturnsCountOrEopnotsupp() {
    assertEquals(4096 / 8, table.valid(AtomicFamily.FETCH, FiOp.SUM, FiDatatype.UINT64));
    assertEquals(4096, table.valid(AtomicFamily.BASE, FiOp.MIN, FiDatatype.INT8));
    assertEquals(
        4096 / 32, table.valid(AtomicFamily.COMPARE, FiOp.CSWAP, FiDatatype.LONG_DOUBLE_COMPLEX));
    assertEquals(-FiErrno.EOPNOTSUPP, table.valid(AtomicFamily.BASE, FiOp.CSWAP, FiDatatype.INT32));
    assertEquals(
        -FiErrno.EOPNOTSUPP, table.valid(AtomicFamily.BASE, FiOp.ATOMIC_READ, FiDatatype.INT32));
    assertEquals(-FiErrno.EOPNOTSUPP, table.valid(AtomicFamily.FETCH, FiOp.BOR, FiDatatype.FLOAT));
    assertEquals(
        -FiErrno.EOPNOTSUPP, table.valid(AtomicFamily.COMPARE, FiOp.MSWAP, FiDatatype.DOUBLE));
    assertEquals(
        -FiErrno.EOPNOTSUPP, table.valid(AtomicFamily.FETCH, FiOp.MIN, FiDatatype.FLOAT_COMPLEX));
  }

  @Test
  void everyInvalidCellIsEopnotsuppFromValidAndQuery() {
    int invalid = 0;
    for (AtomicCell c : table.cells()) {
      if (c.valid()) {
        continue;
      }
      invalid++;
      assertEquals(-FiErrno.EOPNOTSUPP, table.valid(c.family(), c.op(), c.datatype()));
      FiException e =
          assertThrows(
              FiException.class, () -> table.query(c.datatype(), c.op(), c.family().queryFlag()));
      assertEquals(FiErrno.EOPNOTSUPP, e.errno(), c.toString());
      assertNull(c.mechanism());
    }
    assertEquals(798 - 354, invalid);
  }

  @Test
  void queryChecksFlagsBeforeTheCell() {
    FiException both =
        assertThrows(
            FiException.class,
            () ->
                table.query(
                    FiDatatype.UINT64, FiOp.SUM, FiFlags.FETCH_ATOMIC | FiFlags.COMPARE_ATOMIC));
    assertEquals(FiErrno.EBADFLAGS, both.errno());
    FiException unknown =
        assertThrows(
            FiException.class, () -> table.query(FiDatatype.UINT64, FiOp.SUM, FiFlags.INJECT));
    assertEquals(FiErrno.EBADFLAGS, unknown.errno());
    FiException badFlagsOnMissingCell =
        assertThrows(FiException.class, () -> table.query(FiDatatype.FLOAT, FiOp.BOR, 1L << 40));
    assertEquals(FiErrno.EBADFLAGS, badFlagsOnMissingCell.errno());
    FiException tagged =
        assertThrows(
            FiException.class, () -> table.query(FiDatatype.UINT64, FiOp.SUM, FiFlags.TAGGED));
    assertEquals(FiErrno.EOPNOTSUPP, tagged.errno());
  }

  @Test
  void queryReportsCountSizeAndMechanism() {
    AtomicAttr a = table.query(FiDatatype.LONG_DOUBLE, FiOp.SUM, 0);
    assertEquals(new AtomicAttr(256, 16, Mechanism.REMOTE_LOCK, a.reason()), a);
    AtomicAttr f = table.query(FiDatatype.UINT32, FiOp.SUM, FiFlags.FETCH_ATOMIC);
    assertEquals(1024, f.count());
    assertEquals(4, f.size());
    assertEquals(Mechanism.NATIVE, f.mechanism());
    assertEquals(Mechanism.CAS_LOOP, table.query(FiDatatype.INT64, FiOp.MIN, 0).mechanism());
    assertEquals(
        Mechanism.NATIVE,
        table.query(FiDatatype.FLOAT_COMPLEX, FiOp.CSWAP, FiFlags.COMPARE_ATOMIC).mechanism());
  }

  @Test
  void mechanismsFollowDesign() {
    for (AtomicCell c : table.validCells()) {
      Mechanism expected;
      RemoteAtomicOp nativeOp = null;
      int size = c.datatype().size();
      boolean intArith =
          c.datatype().isInteger()
              && Set.of(FiOp.SUM, FiOp.BOR, FiOp.BAND, FiOp.BXOR).contains(c.op());
      boolean bitPattern = Set.of(FiOp.ATOMIC_READ, FiOp.ATOMIC_WRITE, FiOp.CSWAP).contains(c.op());
      if (size > 8) {
        expected = Mechanism.REMOTE_LOCK;
      } else if ((size == 4 || size == 8) && (intArith || bitPattern)) {
        expected = Mechanism.NATIVE;
        nativeOp =
            switch (c.op()) {
              case SUM, ATOMIC_READ -> RemoteAtomicOp.ADD;
              case BOR -> RemoteAtomicOp.OR;
              case BAND -> RemoteAtomicOp.AND;
              case BXOR -> RemoteAtomicOp.XOR;
              case ATOMIC_WRITE -> RemoteAtomicOp.SWAP;
              default -> RemoteAtomicOp.CSWAP;
            };
      } else {
        expected = Mechanism.CAS_LOOP;
      }
      assertEquals(expected, c.mechanism(), c.toString());
      assertEquals(nativeOp, c.nativeOp(), c.toString());
      assertEquals(size, c.size());
      assertEquals(AtomicTable.MAX_ATOMIC_BYTES / size, c.count());
    }
  }

  @Test
  void providerViewsDeriveFromTheReference() {
    AtomicTable view =
        table.map(
            c ->
                c.op() == FiOp.BOR
                        && c.family() == AtomicFamily.FETCH
                        && c.mechanism() == Mechanism.NATIVE
                    ? c.withMechanism(Mechanism.CAS_LOOP, "self-test: wrong result")
                    : c.mechanism() == Mechanism.REMOTE_LOCK ? c.unsupported("not built") : c);
    AtomicCell demoted = view.cell(AtomicFamily.FETCH, FiOp.BOR, FiDatatype.UINT64);
    assertEquals(Mechanism.CAS_LOOP, demoted.mechanism());
    assertNull(demoted.nativeOp());
    assertEquals("self-test: wrong result", demoted.reason());
    assertEquals(
        -FiErrno.EOPNOTSUPP, view.valid(AtomicFamily.BASE, FiOp.SUM, FiDatatype.LONG_DOUBLE));
    assertEquals(
        Mechanism.NATIVE, view.cell(AtomicFamily.BASE, FiOp.BOR, FiDatatype.UINT64).mechanism());
  }
}
