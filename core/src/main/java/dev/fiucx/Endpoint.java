package dev.fiucx;

import java.lang.foreign.MemorySegment;

/**
 * An RDM endpoint that initiates atomics: libfabric's {@code struct fid_ep} with the calls of
 * fi_atomic(3). Every operation call returns 0 once the operation is posted, or a negative {@link
 * FiErrno} value and changes nothing; it never throws. {@code count} is in elements of {@code
 * datatype}; {@code addr} is a byte offset into the target region (or a virtual address when the
 * domain uses them); {@code desc} arguments may be null. Completions go to the bound CQ and
 * counters.
 *
 * <p><b>Local buffers.</b> Every buffer is checked before anything is posted: present, long enough
 * for its count, its arena open, and not confined to another thread; result buffers must also be
 * native and writable (not {@code asReadOnly()}, not a {@code READ_ONLY} file mapping). Any other
 * buffer is {@code -FI_EINVAL}. A result buffer is held by the endpoint until its operation
 * completes, so a segment of {@code Arena.ofAuto()} stays alive while the transport writes it; the
 * caller must not close the arena of a buffer whose operation is in flight.
 *
 * <p><b>Threads.</b> By default an endpoint follows {@code FI_THREAD_ENDPOINT}: one thread at a
 * time may be inside its calls. Different threads may use it one after another (the application
 * orders them); a thread that calls while another is inside gets {@code -FI_EBUSY} and nothing is
 * posted (set-up calls are not guarded). Under manual progress the whole domain is one thread's at
 * a time (its UCX worker is single-threaded): its endpoints, completion queues and counters share
 * one guard, so a CQ read during another thread's post is {@code -FI_EBUSY} too. The domain option
 * {@code threading=safe} ({@code DomainAttr.options}) gives {@code FI_THREAD_SAFE} instead: any
 * thread may call any endpoint, queue or counter of the domain at any time, and the domain's calls
 * are serialized by one lock (opt-in: it costs a lock per call).
 *
 * <p>After {@link #close} every call returns {@code -FI_EOPBADSTATE} and set-up calls throw it;
 * closing twice does nothing.
 */
public interface Endpoint extends AutoCloseable {
  /**
   * {@code fi_ep_bind} of a CQ: flags {@code FiFlags.TRANSMIT}, optionally with {@code
   * SELECTIVE_COMPLETION}.
   *
   * @param cq the completion queue
   * @param flags {@code TRANSMIT}, optionally with {@code SELECTIVE_COMPLETION}
   */
  void bind(CompletionQueue cq, long flags);

  /**
   * {@code fi_ep_bind} of a counter: flags {@code FiFlags.READ} and/or {@code FiFlags.WRITE}.
   *
   * @param counter the counter
   * @param flags {@code READ} and/or {@code WRITE}
   */
  void bind(Counter counter, long flags);

  /**
   * {@code fi_ep_bind} of an address vector.
   *
   * @param av the address vector whose {@code fi_addr} values the calls take
   */
  void bind(AddressVector av);

  /** {@code fi_enable}. */
  void enable();

  /** {@return {@code fi_getname}: the bytes a peer inserts into its address vector} */
  byte[] name();

  /**
   * {@code fi_atomic}.
   *
   * @param buf the operand elements, {@code count} of {@code datatype} (ignored, may be null, for
   *     {@code FI_ATOMIC_READ})
   * @param count how many elements of {@code datatype} (in the vector forms: how many entries of
   *     {@code iov})
   * @param desc the local region(s) of the operand buffer(s), or null
   * @param destAddr the target peer: its {@code fi_addr} in the bound address vector
   * @param addr where the elements start in the target's region: a byte offset, or the target's
   *     virtual address when the domain uses virtual addressing
   * @param key the target region's key
   * @param datatype the elements' datatype
   * @param op the operation
   * @param context handed back as the completion's {@code opContext}
   * @return 0 once the operation is posted, or a negative {@link FiErrno} value
   */
  int atomic(
      MemorySegment buf,
      long count,
      MemoryRegion desc,
      long destAddr,
      long addr,
      long key,
      FiDatatype datatype,
      FiOp op,
      Object context);

  /**
   * {@code fi_atomicv}: {@code count} entries of {@code iov}, laid end to end at {@code addr}.
   *
   * @param iov the operand buffers, laid end to end at {@code addr}
   * @param desc the local region(s) of the operand buffer(s), or null
   * @param count how many elements of {@code datatype} (in the vector forms: how many entries of
   *     {@code iov})
   * @param destAddr the target peer: its {@code fi_addr} in the bound address vector
   * @param addr where the elements start in the target's region: a byte offset, or the target's
   *     virtual address when the domain uses virtual addressing
   * @param key the target region's key
   * @param datatype the elements' datatype
   * @param op the operation
   * @param context handed back as the completion's {@code opContext}
   * @return 0 once the operation is posted, or a negative {@link FiErrno} value
   */
  int atomicv(
      Ioc[] iov,
      MemoryRegion[] desc,
      int count,
      long destAddr,
      long addr,
      long key,
      FiDatatype datatype,
      FiOp op,
      Object context);

  /**
   * {@code fi_atomicmsg}.
   *
   * @param msg the operands, the target peer, the target's ranges, datatype, op and context
   * @param flags {@link FiFlags} of the call ({@code COMPLETION}, {@code INJECT}, {@code FENCE},
   *     ...)
   * @return 0 once the operation is posted, or a negative {@link FiErrno} value
   */
  int atomicmsg(AtomicMsg msg, long flags);

  /**
   * {@code fi_inject_atomic}: {@code buf} is reusable on return, no completion is written.
   *
   * @param buf the operand elements, {@code count} of {@code datatype} (ignored, may be null, for
   *     {@code FI_ATOMIC_READ})
   * @param count how many elements of {@code datatype} (in the vector forms: how many entries of
   *     {@code iov})
   * @param destAddr the target peer: its {@code fi_addr} in the bound address vector
   * @param addr where the elements start in the target's region: a byte offset, or the target's
   *     virtual address when the domain uses virtual addressing
   * @param key the target region's key
   * @param datatype the elements' datatype
   * @param op the operation
   * @return 0 once the operation is posted, or a negative {@link FiErrno} value
   */
  int injectAtomic(
      MemorySegment buf,
      long count,
      long destAddr,
      long addr,
      long key,
      FiDatatype datatype,
      FiOp op);

  /**
   * {@code fi_fetch_atomic}: {@code result} receives the initial values.
   *
   * @param buf the operand elements, {@code count} of {@code datatype} (ignored, may be null, for
   *     {@code FI_ATOMIC_READ})
   * @param count how many elements of {@code datatype} (in the vector forms: how many entries of
   *     {@code iov})
   * @param desc the local region(s) of the operand buffer(s), or null
   * @param result receives the target's initial values, {@code count} elements
   * @param resultDesc the local region of the result buffer(s), or null
   * @param destAddr the target peer: its {@code fi_addr} in the bound address vector
   * @param addr where the elements start in the target's region: a byte offset, or the target's
   *     virtual address when the domain uses virtual addressing
   * @param key the target region's key
   * @param datatype the elements' datatype
   * @param op the operation
   * @param context handed back as the completion's {@code opContext}
   * @return 0 once the operation is posted, or a negative {@link FiErrno} value
   */
  int fetchAtomic(
      MemorySegment buf,
      long count,
      MemoryRegion desc,
      MemorySegment result,
      MemoryRegion resultDesc,
      long destAddr,
      long addr,
      long key,
      FiDatatype datatype,
      FiOp op,
      Object context);

  /**
   * {@code fi_fetch_atomicv}.
   *
   * @param iov the operand buffers, laid end to end at {@code addr}
   * @param desc the local region(s) of the operand buffer(s), or null
   * @param count how many elements of {@code datatype} (in the vector forms: how many entries of
   *     {@code iov})
   * @param resultv the result buffers, laid end to end
   * @param resultDesc the local region of the result buffer(s), or null
   * @param resultCount how many entries of {@code resultv} are used
   * @param destAddr the target peer: its {@code fi_addr} in the bound address vector
   * @param addr where the elements start in the target's region: a byte offset, or the target's
   *     virtual address when the domain uses virtual addressing
   * @param key the target region's key
   * @param datatype the elements' datatype
   * @param op the operation
   * @param context handed back as the completion's {@code opContext}
   * @return 0 once the operation is posted, or a negative {@link FiErrno} value
   */
  int fetchAtomicv(
      Ioc[] iov,
      MemoryRegion[] desc,
      int count,
      Ioc[] resultv,
      MemoryRegion[] resultDesc,
      int resultCount,
      long destAddr,
      long addr,
      long key,
      FiDatatype datatype,
      FiOp op,
      Object context);

  /**
   * {@code fi_fetch_atomicmsg}.
   *
   * @param msg the operands, the target peer, the target's ranges, datatype, op and context
   * @param resultv the result buffers, laid end to end
   * @param resultDesc the local region of the result buffer(s), or null
   * @param resultCount how many entries of {@code resultv} are used
   * @param flags {@link FiFlags} of the call ({@code COMPLETION}, {@code INJECT}, {@code FENCE},
   *     ...)
   * @return 0 once the operation is posted, or a negative {@link FiErrno} value
   */
  int fetchAtomicmsg(
      AtomicMsg msg, Ioc[] resultv, MemoryRegion[] resultDesc, int resultCount, long flags);

  /**
   * {@code fi_compare_atomic}.
   *
   * @param buf the operand elements, {@code count} of {@code datatype} (ignored, may be null, for
   *     {@code FI_ATOMIC_READ})
   * @param count how many elements of {@code datatype} (in the vector forms: how many entries of
   *     {@code iov})
   * @param desc the local region(s) of the operand buffer(s), or null
   * @param compare the values compared with the target's, {@code count} elements
   * @param compareDesc the local region of the compare buffer(s), or null
   * @param result receives the target's initial values, {@code count} elements
   * @param resultDesc the local region of the result buffer(s), or null
   * @param destAddr the target peer: its {@code fi_addr} in the bound address vector
   * @param addr where the elements start in the target's region: a byte offset, or the target's
   *     virtual address when the domain uses virtual addressing
   * @param key the target region's key
   * @param datatype the elements' datatype
   * @param op the operation
   * @param context handed back as the completion's {@code opContext}
   * @return 0 once the operation is posted, or a negative {@link FiErrno} value
   */
  int compareAtomic(
      MemorySegment buf,
      long count,
      MemoryRegion desc,
      MemorySegment compare,
      MemoryRegion compareDesc,
      MemorySegment result,
      MemoryRegion resultDesc,
      long destAddr,
      long addr,
      long key,
      FiDatatype datatype,
      FiOp op,
      Object context);

  /**
   * {@code fi_compare_atomicv}.
   *
   * @param iov the operand buffers, laid end to end at {@code addr}
   * @param desc the local region(s) of the operand buffer(s), or null
   * @param count how many elements of {@code datatype} (in the vector forms: how many entries of
   *     {@code iov})
   * @param comparev the compare buffers, laid end to end
   * @param compareDesc the local region of the compare buffer(s), or null
   * @param compareCount how many entries of {@code comparev} are used
   * @param resultv the result buffers, laid end to end
   * @param resultDesc the local region of the result buffer(s), or null
   * @param resultCount how many entries of {@code resultv} are used
   * @param destAddr the target peer: its {@code fi_addr} in the bound address vector
   * @param addr where the elements start in the target's region: a byte offset, or the target's
   *     virtual address when the domain uses virtual addressing
   * @param key the target region's key
   * @param datatype the elements' datatype
   * @param op the operation
   * @param context handed back as the completion's {@code opContext}
   * @return 0 once the operation is posted, or a negative {@link FiErrno} value
   */
  int compareAtomicv(
      Ioc[] iov,
      MemoryRegion[] desc,
      int count,
      Ioc[] comparev,
      MemoryRegion[] compareDesc,
      int compareCount,
      Ioc[] resultv,
      MemoryRegion[] resultDesc,
      int resultCount,
      long destAddr,
      long addr,
      long key,
      FiDatatype datatype,
      FiOp op,
      Object context);

  /**
   * {@code fi_compare_atomicmsg}.
   *
   * @param msg the operands, the target peer, the target's ranges, datatype, op and context
   * @param comparev the compare buffers, laid end to end
   * @param compareDesc the local region of the compare buffer(s), or null
   * @param compareCount how many entries of {@code comparev} are used
   * @param resultv the result buffers, laid end to end
   * @param resultDesc the local region of the result buffer(s), or null
   * @param resultCount how many entries of {@code resultv} are used
   * @param flags {@link FiFlags} of the call ({@code COMPLETION}, {@code INJECT}, {@code FENCE},
   *     ...)
   * @return 0 once the operation is posted, or a negative {@link FiErrno} value
   */
  int compareAtomicmsg(
      AtomicMsg msg,
      Ioc[] comparev,
      MemoryRegion[] compareDesc,
      int compareCount,
      Ioc[] resultv,
      MemoryRegion[] resultDesc,
      int resultCount,
      long flags);

  /**
   * {@code fi_atomicvalid}: the count a single base call takes (at least 1), or {@code
   * -FI_EOPNOTSUPP} ({@code -FI_EINVAL} for a null datatype or op). C returns the count through a
   * pointer; here it is the return value.
   *
   * @param datatype the elements' datatype
   * @param op the operation
   * @return the count, or a negative {@link FiErrno} value
   */
  long atomicValid(FiDatatype datatype, FiOp op);

  /**
   * {@code fi_fetch_atomicvalid}, returning the count or a negative error as {@link #atomicValid}.
   *
   * @param datatype the elements' datatype
   * @param op the operation
   * @return the count, or a negative {@link FiErrno} value
   */
  long fetchAtomicValid(FiDatatype datatype, FiOp op);

  /**
   * {@code fi_compare_atomicvalid}, returning the count or a negative error as {@link
   * #atomicValid}.
   *
   * @param datatype the elements' datatype
   * @param op the operation
   * @return the count, or a negative {@link FiErrno} value
   */
  long compareAtomicValid(FiDatatype datatype, FiOp op);

  @Override
  void close();

  /**
   * How this endpoint's atomics reach the region behind {@code key} at the peer {@code destAddr},
   * in the provider's words; for ucx {@code mapped} (the peer's region is mapped into this process
   * and native ops are CPU atomics on it) or {@code ucp} (every op goes through UCX). A set-up
   * call: resolves the key on first use and throws {@link FiException} when the peer or key is
   * unknown.
   *
   * @param destAddr the target peer: its {@code fi_addr} in the bound address vector
   * @param key the target region's key
   * @return the path's name, e.g. {@code mapped} or {@code ucp}
   */
  String atomicPath(long destAddr, long key);
}
