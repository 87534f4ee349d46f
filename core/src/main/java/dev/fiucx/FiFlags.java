package dev.fiucx;

/**
 * Operation and capability flags of libfabric that atomics use, with the bit positions of {@code
 * rdma/fabric.h} and {@code rdma/fi_atomic.h}.
 */
public final class FiFlags {
  public static final long TAGGED = 1L << 3; // fabric.h FI_TAGGED
  public static final long ATOMIC = 1L << 4; // fabric.h FI_ATOMIC
  public static final long READ = 1L << 8; // fabric.h FI_READ
  public static final long WRITE = 1L << 9; // fabric.h FI_WRITE
  public static final long RECV = 1L << 10; // fabric.h FI_RECV
  public static final long TRANSMIT = 1L << 11; // fabric.h FI_TRANSMIT (= FI_SEND)
  public static final long REMOTE_READ = 1L << 12; // fabric.h FI_REMOTE_READ
  public static final long REMOTE_WRITE = 1L << 13; // fabric.h FI_REMOTE_WRITE
  public static final long MORE = 1L << 18; // fabric.h FI_MORE
  public static final long FENCE = 1L << 21; // fabric.h FI_FENCE
  public static final long COMPLETION = 1L << 24; // fabric.h FI_COMPLETION
  public static final long INJECT = 1L << 25; // fabric.h FI_INJECT
  public static final long INJECT_COMPLETE = 1L << 26; // fabric.h FI_INJECT_COMPLETE
  public static final long TRANSMIT_COMPLETE = 1L << 27; // fabric.h FI_TRANSMIT_COMPLETE
  public static final long DELIVERY_COMPLETE = 1L << 28; // fabric.h FI_DELIVERY_COMPLETE
  public static final long FETCH_ATOMIC = 1L << 58; // fi_atomic.h FI_FETCH_ATOMIC
  public static final long COMPARE_ATOMIC = 1L << 59; // fi_atomic.h FI_COMPARE_ATOMIC

  /** Bind flag of a CQ to an endpoint (fabric.h FI_SELECTIVE_COMPLETION, same bit as above). */
  public static final long SELECTIVE_COMPLETION = 1L << 59;

  /** The flags {@code fi_query_atomic} accepts. */
  public static final long QUERY_FLAGS = FETCH_ATOMIC | COMPARE_ATOMIC | TAGGED;

  private FiFlags() {}
}
