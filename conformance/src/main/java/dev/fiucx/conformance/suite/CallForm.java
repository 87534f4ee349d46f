package dev.fiucx.conformance.suite;

import dev.fiucx.AtomicFamily;

/**
 * The shapes one call of fi_atomic(3) takes: plain (one buffer), v (several iovs), msg (several
 * iovs on both sides, a struct of arguments) and, in the base family, inject.
 */
enum CallForm {
  PLAIN(""),
  VECTOR("v"),
  MSG("msg"),
  INJECT("");

  private final String suffix;

  CallForm(String suffix) {
    this.suffix = suffix;
  }

  /** The libfabric call, e.g. {@code fi_fetch_atomicv}. */
  String callName(AtomicFamily family) {
    if (this == INJECT) {
      return "fi_inject_atomic";
    }
    return switch (family) {
          case BASE -> "fi_atomic";
          case FETCH -> "fi_fetch_atomic";
          case COMPARE -> "fi_compare_atomic";
        }
        + suffix;
  }

  /** The forms a family has: inject exists for the base family only. */
  static CallForm[] of(AtomicFamily family) {
    return family == AtomicFamily.BASE ? values() : new CallForm[] {PLAIN, VECTOR, MSG};
  }
}
