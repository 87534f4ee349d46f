package dev.fiucx.validation;

import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.semantics.AtomicCell;
import java.lang.foreign.MemorySegment;

/**
 * The rules for what a call gives on its own side: its flags, its (family, op, datatype) cell, its
 * element count, and its local buffers (operands, compare values, results). Each returns 0 (or the
 * elements a side holds) or a negative {@code fi_errno}; none allocates. {@link CallChecks} applies
 * them in the call's order; the one-element route applies the buffer rules to the buffers it is
 * given.
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

  /** How a side's buffers must be. */
  public enum Need {
    /** Read by Java: any segment, alive and accessible from the calling thread. */
    READABLE,
    /**
     * Written by address (the transport, the CAS loop, the remote lock): also native and writable.
     */
    NATIVE,
    /** Ignored (ATOMIC_READ's operand): may be null, only the count matters. */
    COUNT_ONLY
  }

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

  /**
   * The number of elements one local side holds in its first {@code iovs} buffers, or {@code
   * -FI_EINVAL} when a buffer is missing, shorter than its count, a negative count, freed (its
   * scope closed), confined to another thread, or (for {@link Need#NATIVE}) not native memory or
   * read-only. Counts that add up beyond {@code Long.MAX_VALUE} saturate there (the count check
   * then says {@code -FI_EMSGSIZE}).
   *
   * <p>Every local-buffer defect is {@code -FI_EINVAL}, as {@link #readable} and {@link #writable}
   * say it for one buffer: libfabric has no finer errno for a bad local buffer (in C it is a bad
   * pointer, caught by nobody).
   *
   * @param elementSize a power of two
   */
  public static long elements(
      MemorySegment[] segments, long[] counts, int iovs, int elementSize, Need need) {
    // element sizes are powers of two: a shift instead of a 64-bit division on the hot path
    int shift = Integer.numberOfTrailingZeros(elementSize);
    Thread caller = need == Need.COUNT_ONLY ? null : Thread.currentThread();
    long total = 0;
    for (int i = 0; i < iovs; i++) {
      long n = counts[i];
      MemorySegment s = segments[i];
      if (n < 0) {
        return -FiErrno.EINVAL;
      }
      if (need != Need.COUNT_ONLY) {
        if (s == null || n > s.byteSize() >>> shift || !usable(s, caller)) {
          return -FiErrno.EINVAL;
        }
        if (need == Need.NATIVE && (!s.isNative() || s.isReadOnly())) {
          return -FiErrno.EINVAL;
        }
      }
      total = n > Long.MAX_VALUE - total ? Long.MAX_VALUE : total + n;
    }
    return total;
  }

  /**
   * Whether Java may read {@code bytes} of {@code s} on {@code caller}'s thread: present, long
   * enough, its memory not freed, and not confined to another thread (reading it would throw). The
   * rule of {@link Need#READABLE} for one buffer.
   */
  public static boolean readable(MemorySegment s, long bytes, Thread caller) {
    return s != null && s.byteSize() >= bytes && usable(s, caller);
  }

  /**
   * Whether the transport may write {@code bytes} at {@code s}'s address: {@link #readable}, native
   * (the transport writes by address) and not read-only (an {@code asReadOnly()} view, a {@code
   * FileChannel.map(READ_ONLY)} mapping: writing one crashes the process). The rule of {@link
   * Need#NATIVE} for one buffer.
   */
  public static boolean writable(MemorySegment s, long bytes, Thread caller) {
    return readable(s, bytes, caller) && s.isNative() && !s.isReadOnly();
  }

  private static boolean usable(MemorySegment s, Thread caller) {
    MemorySegment.Scope scope = s.scope();
    return scope.isAlive() && s.isAccessibleBy(caller);
  }
}
