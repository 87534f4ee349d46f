package dev.fiucx.ucx.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.fiucx.conformance.remote.FaultRun;
import dev.fiucx.conformance.remote.FaultRun.Fault;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The short fault suite ({@link FaultRun}): each fault once, for a few seconds, with two initiators
 * doing fetch-adds (native), fetch MINs (a CAS loop) and DOUBLE_COMPLEX fetch SUMs (the remote
 * lock), over tcp between two network namespaces and, for the pauses and kills, over shared memory
 * in one, and a serve restarted under load (its initiators connect by name). After each, every
 * operation ended exactly once, every element holds a value the applied and uncertain operations
 * allow (none torn), the initiators worked again after the fault, no operation outlived the
 * timeouts, and this process's /dev/shm files are as they were. The faults that last a minute or
 * more run in {@code fiucx soak --faults}.
 */
@RequiresProvider("ucx")
class FaultSuiteTest {
  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(
      value = Fault.class,
      names = {
        "PARTITION_10S",
        "PARTITION_60S",
        "PARTITION_ONE_WAY_10S",
        "PARTITION_ONE_WAY_60S",
        "TARGET_PAUSE_30S"
      },
      mode = EnumSource.Mode.EXCLUDE)
  void everyOperationIsAccountedFor(Fault fault) throws Exception {
    assumeTrue(FaultRun.available(), "needs root and iproute2 to create namespaces");
    FaultRun.Result r = FaultRun.run(fault, dir);
    System.err.printf(
        "FaultSuiteTest: %s: %d operations, %d ok, %d failed, %d uncertain, %d reconnects,"
            + " %d target incarnations, longest %d ms, working again %d ms after the fault ended,"
            + " target memory %+d KiB%n",
        fault.title(),
        r.operations(),
        r.ok(),
        r.failed(),
        r.uncertain(),
        r.reconnects(),
        r.incarnations(),
        r.longestMillis(),
        r.recoveryMillis(),
        r.targetRssGrowthKib());
    assertEquals(List.of(), r.violations(), fault.title());
    assertTrue(r.ok() > 0, fault.title() + ": no operation completed");
    assertEquals(r.operations(), r.ok() + r.failed() + r.uncertain(), "every one ended once");
    if (fault == Fault.SERVE_RESTART) {
      assertEquals(2, r.incarnations(), "every initiator worked on the old serve and the new one");
      // an initiator connects again only after an error: each did, at least once
      assertTrue(r.failed() + r.uncertain() > 0, "the stop ended operations with an error");
      assertTrue(r.reconnects() >= FaultRun.INITIATORS, "each initiator connected again by name");
    }
    if (fault == Fault.PARTITION_PAST_TIMEOUT) {
      assertTrue(r.uncertain() + r.failed() > 0, "the timeout ended the operations in flight");
      assertTrue(r.reconnects() > 0, "the initiators reconnected after the heal");
    }
  }
}
