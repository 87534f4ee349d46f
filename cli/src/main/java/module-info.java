/**
 * The {@code fiucx} command line: {@code info}, {@code replay}, {@code demo}, {@code conformance},
 * {@code serve}, {@code soak}, {@code jmh}, and {@code bench}, which is perf's, reached through the
 * one package perf exports to this module. It exports nothing. It needs no native access of its
 * own: the launcher grants it to the modules that call native code ({@code
 * --enable-native-access=dev.fiucx,dev.fiucx.ucx,jucx,dev.fiucx.perf}).
 */
module dev.fiucx.cli {
  requires dev.fiucx;
  requires dev.fiucx.conformance;
  // the provider the command line runs, found as a service; required so that it is always
  // resolved, also where nothing binds services (jlink, a test's module path)
  requires dev.fiucx.ucx;
  // bench, the /metrics endpoint and the JMH runner
  requires dev.fiucx.perf;
  requires info.picocli;
  requires com.fasterxml.jackson.databind;
  // serve's and soak's SIGTERM and SIGINT handlers (sun.misc.Signal)
  requires jdk.unsupported;

  // picocli reads and sets the commands' annotated fields by reflection, and Jackson writes info's
  // rows (CapabilityRow) by reflection
  opens dev.fiucx.cli to
      info.picocli,
      com.fasterxml.jackson.databind;
}
