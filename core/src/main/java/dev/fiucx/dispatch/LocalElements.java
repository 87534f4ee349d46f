package dev.fiucx.dispatch;

import dev.fiucx.FiErrno;
import dev.fiucx.Ioc;
import dev.fiucx.validation.CallChecks;
import dev.fiucx.validation.LocalChecks;
import dev.fiucx.validation.LocalChecks.Need;
import java.lang.foreign.MemorySegment;

/**
 * One local side of a call (operands, compare values or results) as a walk over its elements: one
 * buffer or up to {@link #MAX_IOV} iovs. Reused from call to call, so a call allocates nothing. The
 * iov array's shape is checked as it is set; the buffers by {@link CallChecks}, through {@link
 * #check}.
 */
public final class LocalElements implements CallChecks.LocalSide {
  /** The most iovs one call takes ({@code iov_limit}). */
  public static final int MAX_IOV = 16;

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

  /**
   * The first {@code iovs} of {@code buffers} and their element {@code counts}, as a call kept them
   * (a call deferred by {@code FI_FENCE}): its shape was checked when the call was made.
   */
  public void set(MemorySegment[] buffers, long[] counts, int iovs) {
    System.arraycopy(buffers, 0, segments, 0, iovs);
    System.arraycopy(counts, 0, this.counts, 0, iovs);
    this.iovs = iovs;
  }

  /** No buffers (the side is absent). */
  public void clear() {
    iovs = 0;
  }

  /**
   * The number of elements the side holds, or {@code -FI_EINVAL} for a defective buffer: {@link
   * LocalChecks#elements} over the side's buffers.
   */
  @Override
  public long check(int elementSize, Need need) {
    return LocalChecks.elements(segments, counts, iovs, elementSize, need);
  }

  /** The side's iov count, after {@link #set}. */
  public int iovs() {
    return iovs;
  }

  /** The side's {@code i}th buffer, after {@link #set}. */
  public MemorySegment segment(int i) {
    return segments[i];
  }

  /** The element count of the side's {@code i}th buffer, after {@link #set}. */
  public long count(int i) {
    return counts[i];
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
