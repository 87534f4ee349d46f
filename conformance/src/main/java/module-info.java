/**
 * The conformance suite any provider runs, its reports, the test vectors and their replay, and the
 * processes and hosts that tests crossing a process or a network start. It depends on no provider:
 * it finds them through {@code dev.fiucx}. JUnit is optional: only the abstract suite that a
 * provider's tests subclass needs it, and they bring it.
 */
module dev.fiucx.conformance {
  // its API names Domain, Endpoint, FiDatatype...
  requires transitive dev.fiucx;
  requires com.fasterxml.jackson.databind;
  // JavaCommand starts child JVMs with this JVM's module options (RuntimeMXBean)
  requires java.management;
  requires static org.junit.jupiter.api;
  requires static org.junit.platform.commons;

  exports dev.fiucx.conformance.suite;
  exports dev.fiucx.conformance.report;
  exports dev.fiucx.conformance.replay;
  exports dev.fiucx.conformance.vectors;
  exports dev.fiucx.conformance.remote;

  // JUnit runs the suite's test methods and conditions by reflection
  opens dev.fiucx.conformance.suite to
      org.junit.platform.commons;
  // Jackson writes the report's records by reflection
  opens dev.fiucx.conformance.report to
      com.fasterxml.jackson.databind;
}
