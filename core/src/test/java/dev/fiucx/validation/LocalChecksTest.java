package dev.fiucx.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.semantics.AtomicCell;
import dev.fiucx.semantics.AtomicTable;
import org.junit.jupiter.api.Test;

class LocalChecksTest {
  private static final AtomicCell SUM_U64 =
      AtomicTable.reference().cell(AtomicFamily.BASE, FiOp.SUM, FiDatatype.UINT64);

  @Test
  void flagsOutsideTheOperationFlagsAreRejected() {
    assertEquals(0, LocalChecks.flags(FiFlags.COMPLETION | FiFlags.FENCE | FiFlags.INJECT));
    assertEquals(-FiErrno.EBADFLAGS, LocalChecks.flags(FiFlags.TAGGED));
    assertEquals(-FiErrno.EBADFLAGS, LocalChecks.flags(FiFlags.FETCH_ATOMIC));
  }

  @Test
  void cellsThatDoNotExistAreNotSupported() {
    AtomicCell bandFloat =
        AtomicTable.reference().cell(AtomicFamily.BASE, FiOp.BAND, FiDatatype.FLOAT);
    assertEquals(-FiErrno.EOPNOTSUPP, LocalChecks.cell(bandFloat));
    assertEquals(0, LocalChecks.cell(SUM_U64));
  }

  @Test
  void countsAreBetweenOneAndTheCellsLimit() {
    assertEquals(-FiErrno.EINVAL, LocalChecks.count(SUM_U64, 0));
    assertEquals(0, LocalChecks.count(SUM_U64, 1));
    assertEquals(0, LocalChecks.count(SUM_U64, 512));
    assertEquals(-FiErrno.EMSGSIZE, LocalChecks.count(SUM_U64, 513));
  }
}
