package dev.fiucx.dispatch;

import dev.fiucx.FiErrno;
import dev.fiucx.Ioc;
import java.lang.foreign.MemorySegment;

/**
 * One local side of a call (operands, compare values or results) as a walk over its elements: one
 * buffer or up to {@link #MAX_IOV} iovs. Reused from call to call, so a call allocates nothing.
 */
public final class LocalElements {
  /** The most iovs one call takes ({@code iov_limit}). */
  public static final int MAX_IOV = 16;

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

  private final MemorySegment[] segments = new MemorySegment[MAX_IOV];
  private final long[] counts = new long[MAX_IOV];
  private int iovs;
  private int iov;
  private long left;
  private long offset;
  private int size;

  /** The segment of the current element, after {@link #next}. */
  MemorySegment segment;

  /** The current element's byte offset in {@link #segment}. */
  long elementOffset;

  /** One buffer of {@code count} elements. */
  public void set(MemorySegment buffer, long count) {
    segments[0] = buffer;
    counts[0] = count;
    iovs = 1;
  }

  /** The first {@code count} iovs; {@code -FI_EINVAL} for more than {@link #MAX_IOV} or none. */
  public int set(Ioc[] iov, int count) {
    if (iov == null || count <= 0 || count > MAX_IOV || count > iov.length) {
      iovs = 0;
      return -FiErrno.EINVAL;
    }
    for (int i = 0; i < count; i++) {
      if (iov[i] == null) {
        iovs = 0;
        return -FiErrno.EINVAL;
      }
      segments[i] = iov[i].addr();
      counts[i] = iov[i].count();
    }
    iovs = count;
    return 0;
  }

  /** No buffers (the side is absent). */
  public void clear() {
    iovs = 0;
  }

  /**
   * The number of elements the side holds, or {@code -FI_EINVAL} when a buffer is missing, shorter
   * than its count, a negative count, freed (its scope closed), confined to another thread, or (for
   * {@link Need#NATIVE}) not native memory or read-only. Counts that add up beyond {@code
   * Long.MAX_VALUE} saturate there (the count check then says {@code -FI_EMSGSIZE}).
   *
   * <p>Every local-buffer defect is {@code -FI_EINVAL}, as the count-1 path says it ({@link
   * #readable}, {@link #writable}): libfabric has no finer errno for a bad local buffer (in C it is
   * a bad pointer, caught by nobody), and one code keeps the two paths the same.
   */
  public long check(int elementSize, Need need) {
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
   * enough, its memory not freed, and not confined to another thread (reading it would throw).
   */
  public static boolean readable(MemorySegment s, long bytes, Thread caller) {
    return s != null && s.byteSize() >= bytes && usable(s, caller);
  }

  /**
   * Whether the transport may write {@code bytes} at {@code s}'s address: {@link #readable}, native
   * (the transport writes by address) and not read-only (an {@code asReadOnly()} view, a {@code
   * FileChannel.map(READ_ONLY)} mapping: writing one crashes the process).
   */
  public static boolean writable(MemorySegment s, long bytes, Thread caller) {
    return readable(s, bytes, caller) && s.isNative() && !s.isReadOnly();
  }

  private static boolean usable(MemorySegment s, Thread caller) {
    MemorySegment.Scope scope = s.scope();
    return scope.isAlive() && s.isAccessibleBy(caller);
  }

  /** The side's iov count, after {@link #set}. */
  public int iovs() {
    return iovs;
  }

  /** The side's {@code i}th buffer, after {@link #set}. */
  public MemorySegment segment(int i) {
    return segments[i];
  }

  /** Starts a walk over elements of {@code elementSize} bytes. */
  void rewind(int elementSize) {
    size = elementSize;
    iov = -1;
    left = 0;
  }

  /** Moves to the next element. */
  void next() {
    while (left == 0) {
      iov++;
      left = counts[iov];
      offset = 0;
    }
    segment = segments[iov];
    elementOffset = offset;
    offset += size;
    left--;
  }

  /** The current element's native address (for a {@link Need#NATIVE} side). */
  long address() {
    return segment.address() + elementOffset;
  }

  /** Drops references to the caller's buffers once a call is posted. */
  void forget() {
    for (int i = 0; i < iovs; i++) {
      segments[i] = null;
    }
    iovs = 0;
  }
}
