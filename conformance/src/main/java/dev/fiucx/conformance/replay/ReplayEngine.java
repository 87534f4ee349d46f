package dev.fiucx.conformance.replay;

import dev.fiucx.conformance.vectors.VectorCase;

/** Runs vector cases through some implementation of fi_atomic and reports what memory became. */
public interface ReplayEngine extends AutoCloseable {
  /** How a case went, before comparison with the expected bytes. */
  enum Status {
    /** The call completed: {@code finalTarget} and {@code result} hold what it produced. */
    RAN,
    /** The engine reports the (family, op, datatype) unsupported. */
    UNSUPPORTED,
    /** The call failed; {@code detail} says how. */
    ERROR
  }

  /** {@code result} is null for the base family. */
  record Outcome(Status status, byte[] finalTarget, byte[] result, String detail) {
    public static Outcome ran(byte[] finalTarget, byte[] result) {
      return new Outcome(Status.RAN, finalTarget, result, null);
    }

    public static Outcome unsupported(String why) {
      return new Outcome(Status.UNSUPPORTED, null, null, why);
    }

    public static Outcome error(String why) {
      return new Outcome(Status.ERROR, null, null, why);
    }
  }

  /** Short name, as {@code --engine} takes it. */
  String name();

  Outcome run(VectorCase c);

  @Override
  default void close() {}
}
