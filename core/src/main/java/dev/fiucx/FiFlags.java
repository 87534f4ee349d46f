package dev.fiucx;

/**
 * Operation and capability flags of libfabric that atomics use, with the bit positions of {@code
 * rdma/fabric.h} and {@code rdma/fi_atomic.h}.
 */
public final class FiFlags {
  /** {@code FI_TAGGED}, from {@code rdma/fabric.h}. */
  public static final long TAGGED = 1L << 3;

  /** {@code FI_ATOMIC}, from {@code rdma/fabric.h}. */
  public static final long ATOMIC = 1L << 4;

  /** {@code FI_READ}, from {@code rdma/fabric.h}. */
  public static final long READ = 1L << 8;

  /** {@code FI_WRITE}, from {@code rdma/fabric.h}. */
  public static final long WRITE = 1L << 9;

  /** {@code FI_RECV}, from {@code rdma/fabric.h}. */
  public static final long RECV = 1L << 10;

  /** {@code FI_TRANSMIT} (= FI_SEND), from {@code rdma/fabric.h}. */
  public static final long TRANSMIT = 1L << 11;

  /** {@code FI_REMOTE_READ}, from {@code rdma/fabric.h}. */
  public static final long REMOTE_READ = 1L << 12;

  /** {@code FI_REMOTE_WRITE}, from {@code rdma/fabric.h}. */
  public static final long REMOTE_WRITE = 1L << 13;

  /** {@code FI_MORE}, from {@code rdma/fabric.h}. */
  public static final long MORE = 1L << 18;

  /** {@code FI_FENCE}, from {@code rdma/fabric.h}. */
  public static final long FENCE = 1L << 21;

  /** {@code FI_COMPLETION}, from {@code rdma/fabric.h}. */
  public static final long COMPLETION = 1L << 24;

  /** {@code FI_INJECT}, from {@code rdma/fabric.h}. */
  public static final long INJECT = 1L << 25;

  /** {@code FI_INJECT_COMPLETE}, from {@code rdma/fabric.h}. */
  public static final long INJECT_COMPLETE = 1L << 26;

  /** {@code FI_TRANSMIT_COMPLETE}, from {@code rdma/fabric.h}. */
  public static final long TRANSMIT_COMPLETE = 1L << 27;

  /** {@code FI_DELIVERY_COMPLETE}, from {@code rdma/fabric.h}. */
  public static final long DELIVERY_COMPLETE = 1L << 28;

  /** {@code FI_FETCH_ATOMIC}, from {@code rdma/fi_atomic.h}. */
  public static final long FETCH_ATOMIC = 1L << 58;

  /** {@code FI_COMPARE_ATOMIC}, from {@code rdma/fi_atomic.h}. */
  public static final long COMPARE_ATOMIC = 1L << 59;

  /** Bind flag of a CQ to an endpoint (fabric.h FI_SELECTIVE_COMPLETION, same bit as above). */
  public static final long SELECTIVE_COMPLETION = 1L << 59;

  /** The flags {@code fi_query_atomic} accepts. */
  public static final long QUERY_FLAGS = FETCH_ATOMIC | COMPARE_ATOMIC | TAGGED;

  private FiFlags() {}
}
