package dev.fiucx.engine;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiOp;
import java.lang.System.Logger.Level;

/**
 * Why an atomic call did not post. A refusal (a check failed) is logged at DEBUG on the {@code
 * System.Logger} {@link #REFUSALS}, off by default, as libfabric's {@code FI_INFO} does when {@code
 * FI_LOG_LEVEL} asks: nothing is formatted unless that level is on. An exception inside a call is
 * not the caller's input: it is counted and logged by the domain's {@link DomainErrors} ({@link
 * DomainErrors.Where#CALL}) and returned as {@code -FI_EOTHER}.
 */
final class CallFailures {
  /** The logger of refusals; DEBUG (JUL's {@code FINE}) turns them on. */
  static final System.Logger REFUSALS = System.getLogger("dev.fiucx.engine.refusals");

  /** The check named for an exception inside a call. */
  static final String THREW = "an exception inside the call (logged at ERROR)";

  private CallFailures() {}

  /**
   * Logs {@code rc} when it refuses the call and DEBUG is on; returns it. {@code -FI_EAGAIN} is
   * back pressure, not a refusal, and is not logged.
   *
   * @param check the check that failed, or null when the call did not name it
   */
  static int refused(int rc, AtomicFamily family, FiOp op, FiDatatype datatype, String check) {
    if (rc < 0 && rc != -FiErrno.EAGAIN && REFUSALS.isLoggable(Level.DEBUG)) {
      REFUSALS.log(Level.DEBUG, message(rc, family, op, datatype, check));
    }
    return rc;
  }

  /** E.g. {@code FETCH SUM UINT64 refused: FI_EINVAL: invalid argument: a local buffer}. */
  static String message(int rc, AtomicFamily family, FiOp op, FiDatatype datatype, String check) {
    return family
        + " "
        + op
        + " "
        + datatype
        + " refused: "
        + FiErrno.errorString(-rc)
        + (check == null ? "" : ": " + check);
  }

  /**
   * An exception inside a call, after or during its checks: an engine or transport failure, or a
   * buffer its application closed while the call used it. Counted and handed to the domain's error
   * handler, whose default logs it with its stack trace (the first ten, then the 16th, 32nd, ...,
   * so one that recurs on every call cannot flood the log).
   *
   * @return {@code -FI_EOTHER}
   */
  static int thrown(DomainErrors errors, RuntimeException e) {
    errors.caught(DomainErrors.Where.CALL, e);
    return -FiErrno.EOTHER;
  }
}
