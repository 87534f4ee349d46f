package dev.fiucx.conformance.suite;

import java.util.List;
import java.util.function.Consumer;

/** Runs every conformance check of a provider and returns the results in a stable order. */
public final class Conformance {
  private Conformance() {}

  /**
   * Runs the whole suite against {@code config}, handing each result to {@code onEach} as it is
   * known (for progress output), and returns all of them: family, then op, then datatype order of
   * the enums, then call.
   */
  public static List<CheckResult> run(SuiteConfig config, Consumer<CheckResult> onEach) {
    throw new UnsupportedOperationException("SKELETON: replaced by the suite implementation");
  }
}
