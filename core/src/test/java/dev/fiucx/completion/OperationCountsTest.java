package dev.fiucx.completion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiOp;
import dev.fiucx.semantics.AtomicCell;
import dev.fiucx.semantics.AtomicTable;
import org.junit.jupiter.api.Test;

/** What the metrics read: each outcome counted once, whichever thread ended the operation. */
class OperationCountsTest {
  private static final AtomicCell FETCH_SUM =
      AtomicTable.reference().cell(AtomicFamily.FETCH, FiOp.SUM, FiDatatype.UINT64);
  private static final int CELL =
      OperationCounts.index(AtomicFamily.FETCH, FiOp.SUM, FiDatatype.UINT64);

  @Test
  void countsOperationsElementsAndErrorsByOutcome() {
    OperationCounts c = new OperationCounts(8);
    c.done(FETCH_SUM, 0);
    c.opened(3, FETCH_SUM, 5, 0);
    c.opened(4, FETCH_SUM, 2, 0);
    c.opened(5, FETCH_SUM, 1, 0);
    assertEquals(3, c.outstanding());
    c.finished(3, 0, false, false); // by progress
    c.finished(4, -FiErrno.EIO, false, true); // by the poster
    assertEquals(1, c.outstanding());
    assertEquals(6, c.elements(CELL, true), "done at once: 1, slot 3: 5");
    c.opened(6, FETCH_SUM, 9, 0);
    c.cancelled(); // the call was refused after all
    assertEquals(-FiErrno.EFAULT, c.refused(-FiErrno.EFAULT));
    assertEquals(0, c.refused(0));
    assertEquals(1, c.outstanding());

    c.finished(5, 0, false, false); // one element, through a slot
    assertEquals(0, c.outstanding());
    assertEquals(3, c.operations(CELL, true));
    assertEquals(7, c.elements(CELL, true));
    assertEquals(1, c.operations(CELL, false));
    assertEquals(2, c.elements(CELL, false));
    assertEquals(1, c.completionErrors(FiErrno.EIO));
    assertEquals(1, c.callErrors(FiErrno.EFAULT));
    assertEquals(0, c.callErrors(FiErrno.EIO));
  }

  @Test
  void timesOnlyWhatStartedWithAClock() {
    OperationCounts c = new OperationCounts(8);
    assertEquals(0, c.start(), "off: no clock read");
    java.util.List<long[]> recorded = new java.util.ArrayList<>();
    c.timeLatency((cell, nanos) -> recorded.add(new long[] {cell, nanos}));
    long start = c.start();
    c.opened(1, FETCH_SUM, 1, start);
    c.finished(1, 0, false, false);
    c.done(FETCH_SUM, c.start());
    c.opened(2, FETCH_SUM, 1, 0); // opened before the timer was on
    c.finished(2, 0, false, true);
    assertEquals(2, recorded.size());
    for (long[] r : recorded) {
      assertEquals(CELL, r[0]);
      assertTrue(r[1] >= 0, "a duration: " + r[1]);
    }
    c.timeLatency(null);
    assertEquals(0, c.start(), "off again");
    c.done(FETCH_SUM, 0);
    assertEquals(2, recorded.size());
    assertEquals(4, c.operations(CELL, true));
  }
}
