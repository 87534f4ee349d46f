package dev.fiucx.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiOp;
import dev.fiucx.Mechanism;
import dev.fiucx.semantics.AtomicCell;
import dev.fiucx.semantics.AtomicTable;
import dev.fiucx.spi.RemoteAtomicOp;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProviderTableTest {
  private static final NativeAtomicsProof.Demotion FETCHING_AND_64 =
      new NativeAtomicsProof.Demotion(
          RemoteAtomicOp.AND, 8, true, "fetching AND on 8 bytes was wrong");

  @Test
  void aDemotedFetchingOpLeavesTheNonFetchingCellNative() {
    AtomicTable t = ProviderTable.build(List.of(FETCHING_AND_64), EnumSet.allOf(Mechanism.class));
    AtomicCell fetch = t.cell(AtomicFamily.FETCH, FiOp.BAND, FiDatatype.UINT64);
    assertEquals(Mechanism.CAS_LOOP, fetch.mechanism());
    assertEquals("fetching AND on 8 bytes was wrong", fetch.reason());
    assertEquals(
        Mechanism.NATIVE, t.cell(AtomicFamily.BASE, FiOp.BAND, FiDatatype.UINT64).mechanism());
    assertEquals(
        Mechanism.NATIVE, t.cell(AtomicFamily.FETCH, FiOp.BAND, FiDatatype.UINT32).mechanism());
  }

  @Test
  void cellsWhoseMechanismIsNotBuiltAreUnsupportedAndSayWhy() {
    AtomicTable t = ProviderTable.build(List.of(FETCHING_AND_64), EnumSet.of(Mechanism.NATIVE));
    AtomicCell demoted = t.cell(AtomicFamily.FETCH, FiOp.BAND, FiDatatype.INT64);
    assertFalse(demoted.valid());
    assertTrue(demoted.reason().contains("fetching AND on 8 bytes was wrong"), demoted.reason());
    assertEquals(-FiErrno.EOPNOTSUPP, t.valid(AtomicFamily.FETCH, FiOp.BAND, FiDatatype.INT64));
    assertEquals(-FiErrno.EOPNOTSUPP, t.valid(AtomicFamily.BASE, FiOp.MIN, FiDatatype.INT64));
    assertEquals(512, t.valid(AtomicFamily.BASE, FiOp.SUM, FiDatatype.INT64));
    long nativeCells =
        AtomicTable.reference().validCells().stream()
            .filter(c -> c.mechanism() == Mechanism.NATIVE)
            .count();
    assertEquals(nativeCells - 2, t.validCells().size(), "INT64 and UINT64 fetch BAND demoted");
  }
}
