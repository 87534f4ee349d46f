package dev.fiucx;

/**
 * A set-up call failed with a libfabric error number; hot-path calls return the code instead. The
 * API's types say which values their calls throw; {@link #errno} is the positive value.
 */
public class FiException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The positive {@link FiErrno} value. */
  private final int errno;

  /**
   * A failure with a libfabric error number.
   *
   * @param errno the {@link FiErrno} value, positive or negative
   * @param message what failed
   */
  public FiException(int errno, String message) {
    super(FiErrno.errorString(errno) + ": " + message);
    this.errno = Math.abs(errno);
  }

  /**
   * A failure with a libfabric error number and its cause.
   *
   * @param errno the {@link FiErrno} value, positive or negative
   * @param message what failed
   * @param cause what caused it
   */
  public FiException(int errno, String message, Throwable cause) {
    super(FiErrno.errorString(errno) + ": " + message, cause);
    this.errno = Math.abs(errno);
  }

  /** {@return the positive {@link FiErrno} value} */
  public int errno() {
    return errno;
  }
}
