package dev.fiucx;

/** One failed operation: libfabric's {@code struct fi_cq_err_entry}. */
public final class CqErrEntry {
  /** The context the failed call was given. */
  public Object opContext;

  /** The completion flags ({@link FiFlags}) of the failed operation. */
  public long flags;

  /** Bytes the operation moved before it failed (0 for atomics). */
  public long len;

  /** Positive {@link FiErrno} value. */
  public int err;

  /** Provider-specific error, here the transport's status code when there is one. */
  public int provErrno;

  /** Human-readable cause. */
  public String errData;

  /** An empty entry for a completion queue to fill. */
  public CqErrEntry() {}

  @Override
  public String toString() {
    return "CqErrEntry[context="
        + opContext
        + ", err="
        + FiErrno.errorString(err)
        + ", "
        + errData
        + "]";
  }
}
