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

  /**
   * Whether the failed operation may have changed the target after all (fiucx's own field;
   * libfabric leaves this open). False: no element of it was applied, so it can be retried without
   * applying twice. True: some element may have been applied, or was: the request had left for the
   * target when its peer failed (a native atomic, the compare-and-swap of a CAS loop, the put of a
   * remote lock), or a vector call failed after posting some of its elements. Ops that never change
   * the target ({@code FI_ATOMIC_READ}) are never uncertain, and neither is a call refused with a
   * negative return: it posted nothing.
   *
   * <p>A remote lock whose release fails after its put completed has applied its element, and
   * completes without error: the target (or the lease) frees the lock.
   */
  public boolean uncertain;

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
        + (uncertain ? ", uncertain" : "")
        + "]";
  }
}
