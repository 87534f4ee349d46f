package dev.fiucx.ucx.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fiucx.DomainAttr;
import dev.fiucx.conformance.remote.Initiator;
import dev.fiucx.conformance.remote.LocalTarget;
import dev.fiucx.conformance.suite.AtomicConformanceSuite;
import dev.fiucx.conformance.suite.RequiresProvider;
import dev.fiucx.conformance.suite.SuiteConfig;
import org.junit.jupiter.api.Test;

/**
 * The conformance suite against the ucx provider over UCX shared memory, on the direct path: the
 * target domain's region is mapped into the initiator and native ops are CPU atomics on it.
 */
@RequiresProvider("ucx")
class UcxSharedMemoryConformanceTest extends AtomicConformanceSuite {
  @Override
  protected SuiteConfig config() {
    return new SuiteConfig("ucx", "shm", false);
  }

  @Test
  void theSuiteRunsOnTheMappedPath() {
    SuiteConfig config = config();
    try (LocalTarget target = new LocalTarget("ucx", "shm", 64);
        Initiator initiator =
            new Initiator(
                "ucx",
                new DomainAttr("shm", DomainAttr.Progress.MANUAL, false, config.options()))) {
      long peer = initiator.av.insert(target.address());
      assertEquals("mapped", initiator.ep.atomicPath(peer, target.key()));
    }
  }
}
