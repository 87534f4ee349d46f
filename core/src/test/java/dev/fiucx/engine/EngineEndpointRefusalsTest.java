package dev.fiucx.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.engine.LoopbackRig.Mode;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;

/**
 * The refusals of the engine over the loopback transport, so that they run without UCX: each case
 * is one bad call and the exact negative errno it must return (the ones the UCX provider's
 * bad-input suite expects), after which no byte of the three regions and of the result buffer has
 * changed, no completion was written, no counter moved, and the same endpoint then does an exact
 * fetch SUM on a probe word. With the region mapped, the probe leaves the endpoint's route on the
 * probe's cell, so that the cases with that cell are refused from the route.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EngineEndpointRefusalsTest {
  private final List<AutoCloseable> opened = new ArrayList<>();

  @TestFactory
  Stream<DynamicTest> posted() {
    return suite(Mode.POSTED);
  }

  @TestFactory
  Stream<DynamicTest> mapped() {
    return suite(Mode.MAPPED);
  }

  @AfterAll
  void close() throws Exception {
    for (int i = opened.size() - 1; i >= 0; i--) {
      opened.get(i).close();
    }
  }

  /** The cases against one rig, in order, each followed by the probe. */
  private Stream<DynamicTest> suite(Mode mode) {
    RefusalCases c = new RefusalCases(new LoopbackRig(mode, FiFlags.TRANSMIT));
    opened.add(c.r);
    return c.all().stream()
        .map(k -> DynamicTest.dynamicTest(mode + ": " + k.name(), () -> c.run(k)));
  }

  @Test
  void theValidCallsReportTheCountOrRefuseTheCell() {
    try (LoopbackRig r = new LoopbackRig(Mode.POSTED, FiFlags.TRANSMIT)) {
      assertEquals(512, r.ep.atomicValid(FiDatatype.UINT64, FiOp.SUM));
      assertEquals(4096, r.ep.fetchAtomicValid(FiDatatype.INT8, FiOp.MIN));
      assertEquals(256, r.ep.fetchAtomicValid(FiDatatype.DOUBLE_COMPLEX, FiOp.SUM));
      assertEquals(512, r.ep.compareAtomicValid(FiDatatype.UINT64, FiOp.CSWAP));
      assertEquals(-FiErrno.EOPNOTSUPP, r.ep.atomicValid(FiDatatype.FLOAT, FiOp.BXOR));
      assertEquals(-FiErrno.EOPNOTSUPP, r.ep.compareAtomicValid(FiDatatype.UINT64, FiOp.SUM));
      assertEquals(-FiErrno.EINVAL, r.ep.fetchAtomicValid(null, FiOp.SUM));
    }
  }
}
