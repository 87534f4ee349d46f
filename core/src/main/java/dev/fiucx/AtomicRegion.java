package dev.fiucx;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.fiucx.semantics.AtomicTable;
import java.lang.foreign.MemorySegment;

/**
 * A served region reached with typed, blocking atomics: {@code long}, {@code int} and {@code
 * double} elements at byte offsets, each call done when it returns, a failure thrown as {@link
 * FiException} with its {@link FiErrno}. {@link Connection#openAtomicRegion} opens one; closing it
 * closes what it opened (an endpoint and a completion queue of its own), not the connection. {@link
 * #over} puts one over an endpoint the application opened.
 *
 * <pre>{@code
 * try (Connection c = Fabric.connect("127.0.0.1:7000", DomainAttr.defaults());
 *     AtomicRegion counter = c.openAtomicRegion("counter")) {
 *   long ticket = counter.fetchAddLong(0, 1);
 * }
 * }</pre>
 *
 * <p><b>The calls.</b> Each method is one fi_atomic(3) call with {@code count} 1 (the vector forms:
 * {@code count} elements) on its endpoint, with the endpoint's default flags ({@code
 * FI_COMPLETION}), followed by a wait for its completion. {@code long} elements are {@code
 * FI_UINT64}, {@code int} elements {@code FI_UINT32}: add, swap, compare-and-swap, read and write
 * give the same bits on the signed types, and these are the cells a mirror user and ucx_perftest
 * use. {@code double} elements are {@code FI_DOUBLE}; their add is emulated (a compare-and-swap
 * loop), the others are native. When the engine does a one-element call inside the call (a CPU
 * atomic on a region mapped into this process: shared memory, the direct path) the method returns
 * its value without writing or reading a completion entry; any other call waits on the queue.
 * Offsets are bytes from the region's start and must be multiples of the element's size.
 *
 * <p><b>Threads.</b> One thread at a time: a region's calls share its operand words and its
 * completion queue. A thread that calls while another is inside gets {@code FI_EBUSY} and nothing
 * is done. Threads may use a region one after another (the application orders them); for parallel
 * calls, give each thread a region of its own (each opens its own endpoint, as {@code
 * FI_THREAD_ENDPOINT} wants).
 *
 * <p><b>Errors.</b> Besides each method's own, every call may raise {@code FI_EBUSY} (another
 * thread inside), {@code FI_EOPBADSTATE} (the region closed), {@code FI_EKEYREJECTED} (the server
 * revoked the region), {@code FI_ECONNRESET} or another transport error from the completion (the
 * server failed). A failed call leaves the target unchanged when its checks refused it: every check
 * is made before anything is sent. A call waits for its completion without a time limit: the
 * provider completes every call it posted, with an error when the peer fails or leaves.
 *
 * <p><b>No async forms.</b> An async call would need a future or a callback per call (an
 * allocation) or buffers the caller keeps until completion, which is the mirror ({@link Endpoint}
 * and {@link CompletionQueue}) already; this layer is the blocking common case and allocates
 * nothing per call.
 */
public final class AtomicRegion implements AutoCloseable {
  /** The most bytes one vector call may cover: its count is this divided by the element size. */
  public static final int MAX_VECTOR_BYTES = AtomicTable.MAX_ATOMIC_BYTES;

  private final PeerRegion region;
  private final long address;
  private final long key;
  private final BlockingCalls calls;

  private AtomicRegion(ConnectedEndpoint endpoint, PeerRegion region) {
    this.region = region;
    this.address = region.address();
    this.key = region.key();
    this.calls = new BlockingCalls(endpoint);
  }

  /**
   * The typed layer over an endpoint the caller opened ({@link Connection#openAtomicRegion} opens
   * one for it): the region takes the endpoint and its queue over, and closing the region closes
   * them. Nothing else may post on the endpoint or read its queue while the region is open: each
   * call waits for its one completion there.
   *
   * @param endpoint an enabled endpoint of a fiucx provider, bound to a completion queue and to an
   *     address vector that holds the peer
   * @param region the peer's region: its {@code address} and {@code key} are what the calls pass
   * @return the region, open
   * @throws FiException {@code FI_EINVAL} for a null argument, {@code FI_EOPNOTSUPP} when the
   *     endpoint is not a fiucx provider's (the endpoint is then left open)
   */
  public static AtomicRegion over(ConnectedEndpoint endpoint, PeerRegion region) {
    if (endpoint == null || region == null) {
      throw new FiException(FiErrno.EINVAL, "AtomicRegion.over needs an endpoint and a region");
    }
    return new AtomicRegion(endpoint, region);
  }

  /** {@return the served region: its name, key, length and access} */
  public PeerRegion region() {
    return region;
  }

  /** One element of {@code family}'s call at {@code offset}, done; throws its failure. */
  private void one(AtomicFamily family, FiOp op, FiDatatype datatype, long offset, String call) {
    check(calls.one(family, op, datatype, address + offset, key), call, offset);
  }

  /** {@code count} elements from {@code offset}, done; throws their failure. */
  private void many(
      FiOp op,
      FiDatatype datatype,
      MemorySegment operands,
      MemorySegment results,
      int count,
      long offset,
      String call) {
    calls.enter();
    try {
      check(
          calls.many(op, datatype, operands, results, count, address + offset, key), call, offset);
    } finally {
      calls.exit();
    }
  }

  /** Throws the call's failure; its message is built only then. */
  private void check(int rc, String call, long offset) {
    if (rc < 0) {
      throw new FiException(
          rc, call + " at offset " + offset + " of region '" + region.name() + "'");
    }
  }

  // --- long ---

  /**
   * Reads the long at {@code offset}: {@code fi_fetch_atomic(FI_ATOMIC_READ, FI_UINT64, count 1)},
   * default flags. One thread at a time (see the class comment).
   *
   * @param offset the element's byte offset in the region, a multiple of 8
   * @return the element
   * @throws FiException {@code FI_EFAULT} when the element leaves the region, {@code FI_EINVAL}
   *     when {@code offset} is misaligned, {@code FI_EACCES} when the region is not readable; and
   *     the errors of every call (see the class comment)
   */
  public long getLong(long offset) {
    calls.enter();
    try {
      one(AtomicFamily.FETCH, FiOp.ATOMIC_READ, FiDatatype.UINT64, offset, "getLong");
      return calls.result.get(JAVA_LONG, 0);
    } finally {
      calls.exit();
    }
  }

  /**
   * Writes the long at {@code offset}: {@code fi_atomic(FI_ATOMIC_WRITE, FI_UINT64, count 1)},
   * default flags; it returns once the write is done at the target. One thread at a time (see the
   * class comment).
   *
   * @param offset the element's byte offset in the region, a multiple of 8
   * @param value the new value
   * @throws FiException {@code FI_EFAULT} when the element leaves the region, {@code FI_EINVAL}
   *     when {@code offset} is misaligned, {@code FI_EACCES} when the region is not writable; and
   *     the errors of every call (see the class comment)
   */
  public void setLong(long offset, long value) {
    calls.enter();
    try {
      calls.operand.set(JAVA_LONG, 0, value);
      one(AtomicFamily.BASE, FiOp.ATOMIC_WRITE, FiDatatype.UINT64, offset, "setLong");
    } finally {
      calls.exit();
    }
  }

  /**
   * Swaps the long at {@code offset} for {@code value}: {@code fi_fetch_atomic(FI_ATOMIC_WRITE,
   * FI_UINT64, count 1)}, default flags. One thread at a time (see the class comment).
   *
   * @param offset the element's byte offset in the region, a multiple of 8
   * @param value the new value
   * @return the value before
   * @throws FiException {@code FI_EFAULT} when the element leaves the region, {@code FI_EINVAL}
   *     when {@code offset} is misaligned, {@code FI_EACCES} when the region is not readable and
   *     writable; and the errors of every call (see the class comment)
   */
  public long getAndSetLong(long offset, long value) {
    calls.enter();
    try {
      calls.operand.set(JAVA_LONG, 0, value);
      one(AtomicFamily.FETCH, FiOp.ATOMIC_WRITE, FiDatatype.UINT64, offset, "getAndSetLong");
      return calls.result.get(JAVA_LONG, 0);
    } finally {
      calls.exit();
    }
  }

  /**
   * Adds {@code delta} to the long at {@code offset}: {@code fi_fetch_atomic(FI_SUM, FI_UINT64,
   * count 1)}, default flags. One thread at a time (see the class comment).
   *
   * @param offset the element's byte offset in the region, a multiple of 8
   * @param delta what to add
   * @return the value before the add
   * @throws FiException {@code FI_EFAULT} when the element leaves the region, {@code FI_EINVAL}
   *     when {@code offset} is misaligned, {@code FI_EACCES} when the region is not readable and
   *     writable; and the errors of every call (see the class comment)
   */
  public long fetchAddLong(long offset, long delta) {
    calls.enter();
    try {
      calls.operand.set(JAVA_LONG, 0, delta);
      one(AtomicFamily.FETCH, FiOp.SUM, FiDatatype.UINT64, offset, "fetchAddLong");
      return calls.result.get(JAVA_LONG, 0);
    } finally {
      calls.exit();
    }
  }

  /**
   * Writes {@code desired} at {@code offset} if the long there is {@code expected}: {@code
   * fi_compare_atomic(FI_CSWAP, FI_UINT64, count 1)}, default flags. One thread at a time (see the
   * class comment).
   *
   * @param offset the element's byte offset in the region, a multiple of 8
   * @param expected the value to find
   * @param desired the value to write when it is found
   * @return the witness: the value before, equal to {@code expected} exactly when it was swapped
   * @throws FiException {@code FI_EFAULT} when the element leaves the region, {@code FI_EINVAL}
   *     when {@code offset} is misaligned, {@code FI_EACCES} when the region is not readable and
   *     writable; and the errors of every call (see the class comment)
   */
  public long compareAndSwapLong(long offset, long expected, long desired) {
    calls.enter();
    try {
      calls.compare.set(JAVA_LONG, 0, expected);
      calls.operand.set(JAVA_LONG, 0, desired);
      one(AtomicFamily.COMPARE, FiOp.CSWAP, FiDatatype.UINT64, offset, "compareAndSwapLong");
      return calls.result.get(JAVA_LONG, 0);
    } finally {
      calls.exit();
    }
  }

  /**
   * Adds each of {@code count} longs to an element from {@code offset}, the values before into
   * {@code previous}: {@code fi_fetch_atomic(FI_SUM, FI_UINT64, count)}, default flags. One thread
   * at a time (see the class comment).
   *
   * @param offset the first element's byte offset in the region, a multiple of 8
   * @param deltas the {@code count} longs to add, in native byte order
   * @param previous receives the {@code count} values before: native memory, writable
   * @param count how many elements, 1 to {@link #MAX_VECTOR_BYTES} / 8
   * @throws FiException {@code FI_EFAULT} when the elements leave the region, {@code FI_EINVAL}
   *     when {@code offset} is misaligned, {@code count} is below 1 or a segment is too short,
   *     {@code FI_EMSGSIZE} when {@code count} is too large, {@code FI_EACCES} when the region is
   *     not readable and writable; and the errors of every call (see the class comment)
   */
  public void fetchAddLongs(long offset, MemorySegment deltas, MemorySegment previous, int count) {
    many(FiOp.SUM, FiDatatype.UINT64, deltas, previous, count, offset, "fetchAddLongs");
  }

  /**
   * Reads {@code count} longs from {@code offset} into {@code into}: {@code
   * fi_fetch_atomic(FI_ATOMIC_READ, FI_UINT64, count)}, default flags. One thread at a time (see
   * the class comment).
   *
   * @param offset the first element's byte offset in the region, a multiple of 8
   * @param into receives the {@code count} elements: native memory, writable
   * @param count how many elements, 1 to {@link #MAX_VECTOR_BYTES} / 8
   * @throws FiException {@code FI_EFAULT} when the elements leave the region, {@code FI_EINVAL}
   *     when {@code offset} is misaligned, {@code count} is below 1 or a segment is too short,
   *     {@code FI_EMSGSIZE} when {@code count} is too large, {@code FI_EACCES} when the region is
   *     not readable; and the errors of every call (see the class comment)
   */
  public void getLongs(long offset, MemorySegment into, int count) {
    many(FiOp.ATOMIC_READ, FiDatatype.UINT64, null, into, count, offset, "getLongs");
  }

  /**
   * Writes {@code count} longs of {@code values} from {@code offset}: {@code
   * fi_atomic(FI_ATOMIC_WRITE, FI_UINT64, count)}, default flags; it returns once they are written.
   * One thread at a time (see the class comment).
   *
   * @param offset the first element's byte offset in the region, a multiple of 8
   * @param values the {@code count} new values, in native byte order
   * @param count how many elements, 1 to {@link #MAX_VECTOR_BYTES} / 8
   * @throws FiException {@code FI_EFAULT} when the elements leave the region, {@code FI_EINVAL}
   *     when {@code offset} is misaligned, {@code count} is below 1 or a segment is too short,
   *     {@code FI_EMSGSIZE} when {@code count} is too large, {@code FI_EACCES} when the region is
   *     not writable; and the errors of every call (see the class comment)
   */
  public void setLongs(long offset, MemorySegment values, int count) {
    many(FiOp.ATOMIC_WRITE, FiDatatype.UINT64, values, null, count, offset, "setLongs");
  }

  // --- int ---

  /**
   * Reads the int at {@code offset}: {@code fi_fetch_atomic(FI_ATOMIC_READ, FI_UINT32, count 1)},
   * default flags. One thread at a time (see the class comment).
   *
   * @param offset the element's byte offset in the region, a multiple of 4
   * @return the element
   * @throws FiException {@code FI_EFAULT} when the element leaves the region, {@code FI_EINVAL}
   *     when {@code offset} is misaligned, {@code FI_EACCES} when the region is not readable; and
   *     the errors of every call (see the class comment)
   */
  public int getInt(long offset) {
    calls.enter();
    try {
      one(AtomicFamily.FETCH, FiOp.ATOMIC_READ, FiDatatype.UINT32, offset, "getInt");
      return calls.result.get(JAVA_INT, 0);
    } finally {
      calls.exit();
    }
  }

  /**
   * Writes the int at {@code offset}: {@code fi_atomic(FI_ATOMIC_WRITE, FI_UINT32, count 1)},
   * default flags; it returns once the write is done at the target. One thread at a time (see the
   * class comment).
   *
   * @param offset the element's byte offset in the region, a multiple of 4
   * @param value the new value
   * @throws FiException {@code FI_EFAULT} when the element leaves the region, {@code FI_EINVAL}
   *     when {@code offset} is misaligned, {@code FI_EACCES} when the region is not writable; and
   *     the errors of every call (see the class comment)
   */
  public void setInt(long offset, int value) {
    calls.enter();
    try {
      calls.operand.set(JAVA_INT, 0, value);
      one(AtomicFamily.BASE, FiOp.ATOMIC_WRITE, FiDatatype.UINT32, offset, "setInt");
    } finally {
      calls.exit();
    }
  }

  /**
   * Swaps the int at {@code offset} for {@code value}: {@code fi_fetch_atomic(FI_ATOMIC_WRITE,
   * FI_UINT32, count 1)}, default flags. One thread at a time (see the class comment).
   *
   * @param offset the element's byte offset in the region, a multiple of 4
   * @param value the new value
   * @return the value before
   * @throws FiException {@code FI_EFAULT} when the element leaves the region, {@code FI_EINVAL}
   *     when {@code offset} is misaligned, {@code FI_EACCES} when the region is not readable and
   *     writable; and the errors of every call (see the class comment)
   */
  public int getAndSetInt(long offset, int value) {
    calls.enter();
    try {
      calls.operand.set(JAVA_INT, 0, value);
      one(AtomicFamily.FETCH, FiOp.ATOMIC_WRITE, FiDatatype.UINT32, offset, "getAndSetInt");
      return calls.result.get(JAVA_INT, 0);
    } finally {
      calls.exit();
    }
  }

  /**
   * Adds {@code delta} to the int at {@code offset}: {@code fi_fetch_atomic(FI_SUM, FI_UINT32,
   * count 1)}, default flags. One thread at a time (see the class comment).
   *
   * @param offset the element's byte offset in the region, a multiple of 4
   * @param delta what to add
   * @return the value before the add
   * @throws FiException {@code FI_EFAULT} when the element leaves the region, {@code FI_EINVAL}
   *     when {@code offset} is misaligned, {@code FI_EACCES} when the region is not readable and
   *     writable; and the errors of every call (see the class comment)
   */
  public int fetchAddInt(long offset, int delta) {
    calls.enter();
    try {
      calls.operand.set(JAVA_INT, 0, delta);
      one(AtomicFamily.FETCH, FiOp.SUM, FiDatatype.UINT32, offset, "fetchAddInt");
      return calls.result.get(JAVA_INT, 0);
    } finally {
      calls.exit();
    }
  }

  /**
   * Writes {@code desired} at {@code offset} if the int there is {@code expected}: {@code
   * fi_compare_atomic(FI_CSWAP, FI_UINT32, count 1)}, default flags. One thread at a time (see the
   * class comment).
   *
   * @param offset the element's byte offset in the region, a multiple of 4
   * @param expected the value to find
   * @param desired the value to write when it is found
   * @return the witness: the value before, equal to {@code expected} exactly when it was swapped
   * @throws FiException {@code FI_EFAULT} when the element leaves the region, {@code FI_EINVAL}
   *     when {@code offset} is misaligned, {@code FI_EACCES} when the region is not readable and
   *     writable; and the errors of every call (see the class comment)
   */
  public int compareAndSwapInt(long offset, int expected, int desired) {
    calls.enter();
    try {
      calls.compare.set(JAVA_INT, 0, expected);
      calls.operand.set(JAVA_INT, 0, desired);
      one(AtomicFamily.COMPARE, FiOp.CSWAP, FiDatatype.UINT32, offset, "compareAndSwapInt");
      return calls.result.get(JAVA_INT, 0);
    } finally {
      calls.exit();
    }
  }

  /**
   * Adds each of {@code count} ints to an element from {@code offset}, the values before into
   * {@code previous}: {@code fi_fetch_atomic(FI_SUM, FI_UINT32, count)}, default flags. One thread
   * at a time (see the class comment).
   *
   * @param offset the first element's byte offset in the region, a multiple of 4
   * @param deltas the {@code count} ints to add, in native byte order
   * @param previous receives the {@code count} values before: native memory, writable
   * @param count how many elements, 1 to {@link #MAX_VECTOR_BYTES} / 4
   * @throws FiException {@code FI_EFAULT} when the elements leave the region, {@code FI_EINVAL}
   *     when {@code offset} is misaligned, {@code count} is below 1 or a segment is too short,
   *     {@code FI_EMSGSIZE} when {@code count} is too large, {@code FI_EACCES} when the region is
   *     not readable and writable; and the errors of every call (see the class comment)
   */
  public void fetchAddInts(long offset, MemorySegment deltas, MemorySegment previous, int count) {
    many(FiOp.SUM, FiDatatype.UINT32, deltas, previous, count, offset, "fetchAddInts");
  }

  /**
   * Reads {@code count} ints from {@code offset} into {@code into}: {@code
   * fi_fetch_atomic(FI_ATOMIC_READ, FI_UINT32, count)}, default flags. One thread at a time (see
   * the class comment).
   *
   * @param offset the first element's byte offset in the region, a multiple of 4
   * @param into receives the {@code count} elements: native memory, writable
   * @param count how many elements, 1 to {@link #MAX_VECTOR_BYTES} / 4
   * @throws FiException {@code FI_EFAULT} when the elements leave the region, {@code FI_EINVAL}
   *     when {@code offset} is misaligned, {@code count} is below 1 or a segment is too short,
   *     {@code FI_EMSGSIZE} when {@code count} is too large, {@code FI_EACCES} when the region is
   *     not readable; and the errors of every call (see the class comment)
   */
  public void getInts(long offset, MemorySegment into, int count) {
    many(FiOp.ATOMIC_READ, FiDatatype.UINT32, null, into, count, offset, "getInts");
  }

  /**
   * Writes {@code count} ints of {@code values} from {@code offset}: {@code
   * fi_atomic(FI_ATOMIC_WRITE, FI_UINT32, count)}, default flags; it returns once they are written.
   * One thread at a time (see the class comment).
   *
   * @param offset the first element's byte offset in the region, a multiple of 4
   * @param values the {@code count} new values, in native byte order
   * @param count how many elements, 1 to {@link #MAX_VECTOR_BYTES} / 4
   * @throws FiException {@code FI_EFAULT} when the elements leave the region, {@code FI_EINVAL}
   *     when {@code offset} is misaligned, {@code count} is below 1 or a segment is too short,
   *     {@code FI_EMSGSIZE} when {@code count} is too large, {@code FI_EACCES} when the region is
   *     not writable; and the errors of every call (see the class comment)
   */
  public void setInts(long offset, MemorySegment values, int count) {
    many(FiOp.ATOMIC_WRITE, FiDatatype.UINT32, values, null, count, offset, "setInts");
  }

  // --- double ---

  /**
   * Reads the double at {@code offset}: {@code fi_fetch_atomic(FI_ATOMIC_READ, FI_DOUBLE, count
   * 1)}, default flags. One thread at a time (see the class comment).
   *
   * @param offset the element's byte offset in the region, a multiple of 8
   * @return the element
   * @throws FiException {@code FI_EFAULT} when the element leaves the region, {@code FI_EINVAL}
   *     when {@code offset} is misaligned, {@code FI_EACCES} when the region is not readable; and
   *     the errors of every call (see the class comment)
   */
  public double getDouble(long offset) {
    calls.enter();
    try {
      one(AtomicFamily.FETCH, FiOp.ATOMIC_READ, FiDatatype.DOUBLE, offset, "getDouble");
      return calls.result.get(JAVA_DOUBLE, 0);
    } finally {
      calls.exit();
    }
  }

  /**
   * Writes the double at {@code offset}: {@code fi_atomic(FI_ATOMIC_WRITE, FI_DOUBLE, count 1)},
   * default flags; it returns once the write is done at the target. One thread at a time (see the
   * class comment).
   *
   * @param offset the element's byte offset in the region, a multiple of 8
   * @param value the new value
   * @throws FiException {@code FI_EFAULT} when the element leaves the region, {@code FI_EINVAL}
   *     when {@code offset} is misaligned, {@code FI_EACCES} when the region is not writable; and
   *     the errors of every call (see the class comment)
   */
  public void setDouble(long offset, double value) {
    calls.enter();
    try {
      calls.operand.set(JAVA_DOUBLE, 0, value);
      one(AtomicFamily.BASE, FiOp.ATOMIC_WRITE, FiDatatype.DOUBLE, offset, "setDouble");
    } finally {
      calls.exit();
    }
  }

  /**
   * Swaps the double at {@code offset} for {@code value}: {@code fi_fetch_atomic(FI_ATOMIC_WRITE,
   * FI_DOUBLE, count 1)}, default flags. One thread at a time (see the class comment).
   *
   * @param offset the element's byte offset in the region, a multiple of 8
   * @param value the new value
   * @return the value before
   * @throws FiException {@code FI_EFAULT} when the element leaves the region, {@code FI_EINVAL}
   *     when {@code offset} is misaligned, {@code FI_EACCES} when the region is not readable and
   *     writable; and the errors of every call (see the class comment)
   */
  public double getAndSetDouble(long offset, double value) {
    calls.enter();
    try {
      calls.operand.set(JAVA_DOUBLE, 0, value);
      one(AtomicFamily.FETCH, FiOp.ATOMIC_WRITE, FiDatatype.DOUBLE, offset, "getAndSetDouble");
      return calls.result.get(JAVA_DOUBLE, 0);
    } finally {
      calls.exit();
    }
  }

  /**
   * Adds {@code delta} to the double at {@code offset} (emulated: a compare-and-swap loop on the
   * element): {@code fi_fetch_atomic(FI_SUM, FI_DOUBLE, count 1)}, default flags. One thread at a
   * time (see the class comment).
   *
   * @param offset the element's byte offset in the region, a multiple of 8
   * @param delta what to add
   * @return the value before the add
   * @throws FiException {@code FI_EFAULT} when the element leaves the region, {@code FI_EINVAL}
   *     when {@code offset} is misaligned, {@code FI_EACCES} when the region is not readable and
   *     writable; and the errors of every call (see the class comment)
   */
  public double fetchAddDouble(long offset, double delta) {
    calls.enter();
    try {
      calls.operand.set(JAVA_DOUBLE, 0, delta);
      one(AtomicFamily.FETCH, FiOp.SUM, FiDatatype.DOUBLE, offset, "fetchAddDouble");
      return calls.result.get(JAVA_DOUBLE, 0);
    } finally {
      calls.exit();
    }
  }

  /**
   * Writes {@code desired} at {@code offset} if the double there is {@code expected}: {@code
   * fi_compare_atomic(FI_CSWAP, FI_DOUBLE, count 1)}, default flags. The bytes are compared: {@code
   * -0.0} is not {@code 0.0}, a NaN matches its own bits. One thread at a time (see the class
   * comment).
   *
   * @param offset the element's byte offset in the region, a multiple of 8
   * @param expected the value to find
   * @param desired the value to write when it is found
   * @return the witness: the value before, equal to {@code expected} exactly when it was swapped
   * @throws FiException {@code FI_EFAULT} when the element leaves the region, {@code FI_EINVAL}
   *     when {@code offset} is misaligned, {@code FI_EACCES} when the region is not readable and
   *     writable; and the errors of every call (see the class comment)
   */
  public double compareAndSwapDouble(long offset, double expected, double desired) {
    calls.enter();
    try {
      calls.compare.set(JAVA_DOUBLE, 0, expected);
      calls.operand.set(JAVA_DOUBLE, 0, desired);
      one(AtomicFamily.COMPARE, FiOp.CSWAP, FiDatatype.DOUBLE, offset, "compareAndSwapDouble");
      return calls.result.get(JAVA_DOUBLE, 0);
    } finally {
      calls.exit();
    }
  }

  /**
   * Adds each of {@code count} doubles to an element from {@code offset} (emulated: a
   * compare-and-swap loop on the element), the values before into {@code previous}: {@code
   * fi_fetch_atomic(FI_SUM, FI_DOUBLE, count)}, default flags. One thread at a time (see the class
   * comment).
   *
   * @param offset the first element's byte offset in the region, a multiple of 8
   * @param deltas the {@code count} doubles to add, in native byte order
   * @param previous receives the {@code count} values before: native memory, writable
   * @param count how many elements, 1 to {@link #MAX_VECTOR_BYTES} / 8
   * @throws FiException {@code FI_EFAULT} when the elements leave the region, {@code FI_EINVAL}
   *     when {@code offset} is misaligned, {@code count} is below 1 or a segment is too short,
   *     {@code FI_EMSGSIZE} when {@code count} is too large, {@code FI_EACCES} when the region is
   *     not readable and writable; and the errors of every call (see the class comment)
   */
  public void fetchAddDoubles(
      long offset, MemorySegment deltas, MemorySegment previous, int count) {
    many(FiOp.SUM, FiDatatype.DOUBLE, deltas, previous, count, offset, "fetchAddDoubles");
  }

  /**
   * Reads {@code count} doubles from {@code offset} into {@code into}: {@code
   * fi_fetch_atomic(FI_ATOMIC_READ, FI_DOUBLE, count)}, default flags. One thread at a time (see
   * the class comment).
   *
   * @param offset the first element's byte offset in the region, a multiple of 8
   * @param into receives the {@code count} elements: native memory, writable
   * @param count how many elements, 1 to {@link #MAX_VECTOR_BYTES} / 8
   * @throws FiException {@code FI_EFAULT} when the elements leave the region, {@code FI_EINVAL}
   *     when {@code offset} is misaligned, {@code count} is below 1 or a segment is too short,
   *     {@code FI_EMSGSIZE} when {@code count} is too large, {@code FI_EACCES} when the region is
   *     not readable; and the errors of every call (see the class comment)
   */
  public void getDoubles(long offset, MemorySegment into, int count) {
    many(FiOp.ATOMIC_READ, FiDatatype.DOUBLE, null, into, count, offset, "getDoubles");
  }

  /**
   * Writes {@code count} doubles of {@code values} from {@code offset}: {@code
   * fi_atomic(FI_ATOMIC_WRITE, FI_DOUBLE, count)}, default flags; it returns once they are written.
   * One thread at a time (see the class comment).
   *
   * @param offset the first element's byte offset in the region, a multiple of 8
   * @param values the {@code count} new values, in native byte order
   * @param count how many elements, 1 to {@link #MAX_VECTOR_BYTES} / 8
   * @throws FiException {@code FI_EFAULT} when the elements leave the region, {@code FI_EINVAL}
   *     when {@code offset} is misaligned, {@code count} is below 1 or a segment is too short,
   *     {@code FI_EMSGSIZE} when {@code count} is too large, {@code FI_EACCES} when the region is
   *     not writable; and the errors of every call (see the class comment)
   */
  public void setDoubles(long offset, MemorySegment values, int count) {
    many(FiOp.ATOMIC_WRITE, FiDatatype.DOUBLE, values, null, count, offset, "setDoubles");
  }

  /** Closes the region's endpoint and completion queue, after a call another thread is inside. */
  @Override
  public void close() {
    calls.close();
  }
}
