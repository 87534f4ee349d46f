package dev.fiucx.ucx.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fiucx.DomainAttr;
import dev.fiucx.conformance.remote.Initiator;
import dev.fiucx.conformance.remote.LocalTarget;
import dev.fiucx.conformance.suite.AtomicConformanceSuite;
import dev.fiucx.conformance.suite.RequiresProvider;
import dev.fiucx.conformance.suite.SuiteConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The conformance suite against the ucx provider over UCX shared memory with the direct path off:
 * every atomic goes through UCX ({@code ucp_atomic_op_nbx}), as it does where UCX cannot map a
 * peer's region. {@link UcxSharedMemoryConformanceTest} runs the same checks on the mapped path.
 */
@RequiresProvider("ucx")
class UcxSharedMemoryUcpConformanceTest extends AtomicConformanceSuite {
  @Override
  protected SuiteConfig config() {
    return new SuiteConfig("ucx", "shm", false, Map.of("direct_path", "off"));
  }

  @Test
  void theSuiteRunsOnTheUcpPath() {
    SuiteConfig config = config();
    try (LocalTarget target = new LocalTarget("ucx", "shm", 64);
        Initiator initiator =
            new Initiator(
                "ucx",
                new DomainAttr("shm", DomainAttr.Progress.MANUAL, false, config.options()))) {
      long peer = initiator.av.insert(target.address());
      assertEquals("ucp", initiator.ep.atomicPath(peer, target.key()));
    }
  }
}
