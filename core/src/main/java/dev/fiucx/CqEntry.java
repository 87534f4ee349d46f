package dev.fiucx;

/**
 * One completion: libfabric's {@code struct fi_cq_tagged_entry} fields that atomics fill. Mutable
 * so that a reader can reuse an array of them without allocating.
 */
public final class CqEntry {
  /** The {@code context} given to the call. */
  public Object opContext;

  /** {@code FI_ATOMIC} with {@code FI_READ} (fetch, compare) or {@code FI_WRITE} (base). */
  public long flags;

  /** Bytes of target data the operation covered. */
  public long len;

  /** An empty entry for a completion queue to fill. */
  public CqEntry() {}

  @Override
  public String toString() {
    return "CqEntry[context="
        + opContext
        + ", flags=0x"
        + Long.toHexString(flags)
        + ", len="
        + len
        + "]";
  }
}
