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

  /**
   * {@code result} is null for the base family.
   *
   * @param status how the case ended
   * @param finalTarget the target's bytes after the call (null unless ran)
   * @param result the fetched bytes (null unless ran and fetching)
   * @param detail why it was unsupported or failed, or null
   */
  record Outcome(Status status, byte[] finalTarget, byte[] result, String detail) {
    /**
     * {@return a case that ran}
     *
     * @param finalTarget the target's bytes after the call
     * @param result the fetched bytes, or null
     */
    public static Outcome ran(byte[] finalTarget, byte[] result) {
      return new Outcome(Status.RAN, finalTarget, result, null);
    }

    /**
     * {@return a case the engine does not support}
     *
     * @param why why not
     */
    public static Outcome unsupported(String why) {
      return new Outcome(Status.UNSUPPORTED, null, null, why);
    }

    /**
     * {@return a case that failed}
     *
     * @param why what failed
     */
    public static Outcome error(String why) {
      return new Outcome(Status.ERROR, null, null, why);
    }
  }

  /** {@return the short name, as {@code --engine} takes it} */
  String name();

  /**
   * {@return how {@code c} ended: runs its call on a fresh target}
   *
   * @param c the case
   */
  Outcome run(VectorCase c);

  @Override
  default void close() {}
}
