package dev.fiucx;

import java.lang.foreign.MemorySegment;

/**
 * An RDM endpoint that initiates atomics: libfabric's {@code struct fid_ep} with the calls of
 * fi_atomic(3). Every operation call returns 0 once the operation is posted, or a negative {@link
 * FiErrno} value and changes nothing; it never throws. {@code count} is in elements of {@code
 * datatype}; {@code addr} is a byte offset into the target region (or a virtual address when the
 * domain uses them); {@code desc} arguments may be null. Completions go to the bound CQ and
 * counters. Not thread-safe: one thread posts and progresses an endpoint, as UCX requires.
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
   * -FI_EOPNOTSUPP}. C returns the count through a pointer; here it is the return value.
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
