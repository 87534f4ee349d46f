/**
 * bench ({@code bench}), its comparison with {@code ucx_perftest}, its plots, and the JMH
 * microbenchmarks ({@code jmh}). The command line ({@code dev.fiucx.cli}) runs bench, serves {@code
 * /metrics} and starts JMH through the one package exported to it, {@code dev.fiucx.perf}; the rest
 * is nobody's. The launcher grants this module native access: bench pins its threads with a {@code
 * sched_setaffinity} downcall, and the in-process JMH harness points UCX's log at stderr.
 */
// "module": the qualified export names the command line, built after this one;
// "requires-automatic": HdrHistogram, XChart and JMH have neither a module descriptor nor an
// Automatic-Module-Name; their names come from the jar names Maven gives them (artifactId-version)
@SuppressWarnings({"module", "requires-automatic"})
module dev.fiucx.perf {
  requires dev.fiucx;
  requires dev.fiucx.conformance;
  // the provider bench runs, found as a service; required so that it is always resolved, also
  // where nothing binds services (jlink, a test's module path)
  requires dev.fiucx.ucx;
  requires micrometer.core;
  requires micrometer.registry.prometheus;
  // Bench's API names picocli's CommandLine: the command line reads picocli through this module
  requires transitive info.picocli;
  requires com.fasterxml.jackson.databind;
  requires HdrHistogram;
  requires xchart;
  requires jmh.core;
  // the /metrics endpoint
  requires jdk.httpserver;
  // the JMH allocation profiler reads the worker thread's allocated bytes (com.sun.management)
  requires jdk.management;
  // bench's plots (XChart draws with AWT): the only module of fiucx that needs it
  requires java.desktop;

  exports dev.fiucx.perf to
      dev.fiucx.cli;

  // picocli reads and sets bench's annotated fields by reflection
  opens dev.fiucx.perf.bench to
      info.picocli;
  // JMH makes the profiler, the states and the generated harness by reflection, when it runs
  // them in this JVM (the JMH harness test; `fiucx jmh` runs on the class path)
  opens dev.fiucx.perf.jmh to
      jmh.core;
  opens dev.fiucx.perf.jmh.jmh_generated to
      jmh.core;
}
