package dev.fiucx.ucx.integration;

import dev.fiucx.conformance.suite.AtomicConformanceSuite;
import dev.fiucx.conformance.suite.RequiresProvider;
import dev.fiucx.conformance.suite.SuiteConfig;

/** The conformance suite against the ucx provider over UCX TCP, the target in a second process. */
@RequiresProvider("ucx")
class UcxTcpConformanceTest extends AtomicConformanceSuite {
  @Override
  protected SuiteConfig config() {
    return new SuiteConfig("ucx", "tcp", true);
  }
}
