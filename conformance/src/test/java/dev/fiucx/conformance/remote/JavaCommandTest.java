package dev.fiucx.conformance.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

class JavaCommandTest {
  @Test
  void nativeAccessNamesOnlyModulesTheChildResolves() {
    Module conformance = JavaCommand.class.getModule();
    assumeTrue(conformance.isNamed(), "the tests run on the module path");
    // core is what conformance requires; a module the child would not resolve (bench's, named by
    // the launcher of a fault runner) is dropped
    assertEquals(
        "--enable-native-access=dev.fiucx,ALL-UNNAMED",
        JavaCommand.nativeAccessWithin(
            conformance, "--enable-native-access=dev.fiucx,dev.fiucx.perf,ALL-UNNAMED"));
    assertEquals(
        "--enable-native-access=ALL-UNNAMED",
        JavaCommand.nativeAccessWithin(conformance, "--enable-native-access=no.such.module"));
  }
}
