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
   */
  void bind(CompletionQueue cq, long flags);

  /** {@code fi_ep_bind} of a counter: flags {@code FiFlags.READ} and/or {@code FiFlags.WRITE}. */
  void bind(Counter counter, long flags);

  /** {@code fi_ep_bind} of an address vector. */
  void bind(AddressVector av);

  /** {@code fi_enable}. */
  void enable();

  /** {@code fi_getname}: the bytes a peer inserts into its address vector. */
  byte[] name();

  /** {@code fi_atomic}. */
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

  /** {@code fi_atomicv}: {@code count} entries of {@code iov}, laid end to end at {@code addr}. */
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

  /** {@code fi_atomicmsg}. */
  int atomicmsg(AtomicMsg msg, long flags);

  /** {@code fi_inject_atomic}: {@code buf} is reusable on return, no completion is written. */
  int injectAtomic(
      MemorySegment buf,
      long count,
      long destAddr,
      long addr,
      long key,
      FiDatatype datatype,
      FiOp op);

  /** {@code fi_fetch_atomic}: {@code result} receives the initial values. */
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

  /** {@code fi_fetch_atomicv}. */
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

  /** {@code fi_fetch_atomicmsg}. */
  int fetchAtomicmsg(
      AtomicMsg msg, Ioc[] resultv, MemoryRegion[] resultDesc, int resultCount, long flags);

  /** {@code fi_compare_atomic}. */
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

  /** {@code fi_compare_atomicv}. */
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

  /** {@code fi_compare_atomicmsg}. */
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
   */
  long atomicValid(FiDatatype datatype, FiOp op);

  /**
   * {@code fi_fetch_atomicvalid}, returning the count or a negative error as {@link #atomicValid}.
   */
  long fetchAtomicValid(FiDatatype datatype, FiOp op);

  /**
   * {@code fi_compare_atomicvalid}, returning the count or a negative error as {@link
   * #atomicValid}.
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
   */
  String atomicPath(long destAddr, long key);
}
