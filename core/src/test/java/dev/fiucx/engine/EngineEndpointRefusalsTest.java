package dev.fiucx.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fiucx.AtomicMsg;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.Ioc;
import dev.fiucx.RmaIoc;
import dev.fiucx.engine.LoopbackRig.Mode;
import java.lang.foreign.MemorySegment;
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
 * probe's cell, so that the cases with that cell are refused from the route. Behind a fence, each
 * case is made while a fenced call waits for a slow one: checked as any call and refused at once,
 * with the same errno, nothing deferred.
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

  @TestFactory
  Stream<DynamicTest> postedBehindAFence() {
    return suiteBehindAFence(Mode.POSTED);
  }

  @TestFactory
  Stream<DynamicTest> mappedBehindAFence() {
    return suiteBehindAFence(Mode.MAPPED);
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

  /**
   * The cases against one rig, each made behind a fenced read that waits for a slow read (both of
   * the second region, so no byte and no result of the case's checks moves); the two complete, in
   * order, after the case's checks and before its probe.
   */
  private Stream<DynamicTest> suiteBehindAFence(Mode mode) {
    RefusalCases c = new RefusalCases(new LoopbackRig(mode, FiFlags.TRANSMIT));
    LoopbackRig r = c.r;
    opened.add(r);
    MemorySegment slow = r.zeroed(16);
    MemorySegment fenced = r.zeroed(8);
    c.beforeProbe =
        () -> {
          r.transport.holdUntilReleased = false;
          assertEquals(2, r.transport.releaseHeld(), "the slow read's two elements were held");
          r.completes("slow", FiFlags.ATOMIC | FiFlags.READ);
          r.completes("fenced", FiFlags.ATOMIC | FiFlags.READ);
        };
    return c.all().stream()
        .map(
            k ->
                DynamicTest.dynamicTest(
                    mode + " behind a fence: " + k.name(),
                    () ->
                        c.run(
                            new RefusalCases.Case(
                                k.name(),
                                k.errno(),
                                () -> {
                                  fenceBehindASlowRead(r, slow, fenced);
                                  return k.call().getAsInt();
                                }))));
  }

  /** A read of two elements held until released, and a fenced read deferred behind it. */
  private static void fenceBehindASlowRead(
      LoopbackRig r, MemorySegment slow, MemorySegment fenced) {
    long key = r.second.key();
    r.transport.holdUntilReleased = true;
    assertEquals(
        0,
        r.ep.fetchAtomic(
            null,
            2,
            null,
            slow,
            null,
            r.peer,
            0,
            key,
            FiDatatype.UINT64,
            FiOp.ATOMIC_READ,
            "slow"));
    AtomicMsg read =
        new AtomicMsg(
            new Ioc[] {new Ioc(null, 1)},
            null,
            r.peer,
            new RmaIoc[] {new RmaIoc(8, 1, key)},
            FiDatatype.UINT64,
            FiOp.ATOMIC_READ,
            "fenced",
            0);
    assertEquals(
        0,
        r.ep.fetchAtomicmsg(
            read, new Ioc[] {new Ioc(fenced, 1)}, null, 1, FiFlags.FENCE | FiFlags.COMPLETION));
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
