/**
 * The {@code fiucx} command line ({@code cli}), bench ({@code bench}) and the JMH microbenchmarks
 * ({@code jmh}). It exports nothing. It runs the ucx provider, found as a service; the launcher
 * grants native access to the modules that call native code ({@code
 * --enable-native-access=dev.fiucx,dev.fiucx.ucx,jucx,dev.fiucx.perf}: this one pins bench's
 * threads with a {@code sched_setaffinity} downcall).
 */
// "requires-automatic": HdrHistogram, XChart and JMH have neither a module descriptor nor an
// Automatic-Module-Name; their names come from the jar names Maven gives them (artifactId-version)
@SuppressWarnings("requires-automatic")
module dev.fiucx.perf {
  requires dev.fiucx;
  requires dev.fiucx.conformance;
  // the provider the command line runs, found as a service; required so that it is always
  // resolved, also where nothing binds services (jlink, a test's module path)
  requires dev.fiucx.ucx;
  requires micrometer.core;
  requires micrometer.registry.prometheus;
  requires info.picocli;
  requires com.fasterxml.jackson.databind;
  requires HdrHistogram;
  requires xchart;
  requires jmh.core;
  // bench's /metrics endpoint
  requires jdk.httpserver;
  // serve's and soak's SIGTERM and SIGINT handlers (sun.misc.Signal)
  requires jdk.unsupported;
  // the JMH allocation profiler reads the worker thread's allocated bytes (com.sun.management)
  requires jdk.management;
  // bench's plots (XChart draws with AWT)
  requires java.desktop;

  // picocli reads and sets the commands' annotated fields by reflection, and Jackson writes info's
  // rows (CapabilityRow) by reflection
  opens dev.fiucx.perf.cli to
      info.picocli,
      com.fasterxml.jackson.databind;
  opens dev.fiucx.perf.bench to
      info.picocli;
  // JMH makes the profiler, the states and the generated harness by reflection, when it runs
  // them in this JVM (the JMH harness test; `fiucx jmh` runs on the class path)
  opens dev.fiucx.perf.jmh to
      jmh.core;
  opens dev.fiucx.perf.jmh.jmh_generated to
      jmh.core;
}
