package dev.fiucx.validation;

import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.semantics.AtomicCell;

/**
 * The checks an atomic call passes before anything leaves the process, in libfabric's order: flags
 * first, then the (family, op, datatype) cell, then the element count. Each returns 0 or a negative
 * {@code fi_errno}; none allocates.
 */
public final class LocalChecks {
  /** The operation flags a message call accepts. */
  public static final long OPERATION_FLAGS =
      FiFlags.COMPLETION
          | FiFlags.INJECT
          | FiFlags.FENCE
          | FiFlags.MORE
          | FiFlags.INJECT_COMPLETE
          | FiFlags.TRANSMIT_COMPLETE
          | FiFlags.DELIVERY_COMPLETE;

  private LocalChecks() {}

  /** {@code -FI_EBADFLAGS} for a flag no atomic call takes. */
  public static int flags(long flags) {
    return (flags & ~OPERATION_FLAGS) == 0 ? 0 : -FiErrno.EBADFLAGS;
  }

  /** {@code -FI_EOPNOTSUPP} for a cell this provider does not carry out. */
  public static int cell(AtomicCell cell) {
    return cell.valid() ? 0 : -FiErrno.EOPNOTSUPP;
  }

  /**
   * {@code -FI_EINVAL} for no elements, {@code -FI_EMSGSIZE} for more than the cell's count (the
   * count {@code fi_atomicvalid} reports).
   */
  public static int count(AtomicCell cell, long elements) {
    if (elements <= 0) {
      return -FiErrno.EINVAL;
    }
    return elements > cell.count() ? -FiErrno.EMSGSIZE : 0;
  }

  /**
   * Every local buffer of a call must describe the same number of elements as the remote side:
   * {@code -FI_EINVAL} otherwise.
   */
  public static int sameCount(long remoteElements, long localElements) {
    return remoteElements == localElements ? 0 : -FiErrno.EINVAL;
  }
}
