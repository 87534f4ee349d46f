package dev.fiucx;

import java.lang.foreign.MemorySegment;

/**
 * An RDM endpoint that initiates atomics: libfabric's {@code struct fid_ep} with the calls of
 * fi_atomic(3). Every operation call returns 0 once the operation is posted (or deferred behind an
 * {@code FI_FENCE}, see below), or a negative {@link FiErrno} value and changes nothing; it never
 * throws. {@code count} is in elements of {@code datatype}; {@code addr} is a byte offset into the
 * target region (or a virtual address when the domain uses them); {@code desc} arguments may be
 * null. Completions go to the bound CQ and counters.
 *
 * <p><b>Local buffers.</b> Every buffer is checked before anything is posted: present, long enough
 * for its count, its arena open, and not confined to another thread; result buffers must also be
 * native and writable (not {@code asReadOnly()}, not a {@code READ_ONLY} file mapping). Any other
 * buffer is {@code -FI_EINVAL}. A result buffer is held by the endpoint until its operation
 * completes, so a segment of {@code Arena.ofAuto()} stays alive while the transport writes it; the
 * caller must not close the arena of a buffer whose operation is in flight.
 *
 * <p><b>Threads.</b> Who may be inside the operation calls ({@code atomic} to {@code
 * compareAtomicmsg}) at once is the domain's {@link DomainAttr.Threading}:
 *
 * <ul>
 *   <li>{@code ENDPOINT} (the default) with automatic progress: each endpoint has a guard of its
 *       own. One thread at a time may be inside its calls; different threads may use it one after
 *       another (the application orders them), and no thread owns it between calls. A thread that
 *       calls while another is inside gets {@code -FI_EBUSY} and nothing is posted. Different
 *       endpoints of the domain may be used by different threads at the same time.
 *   <li>{@code ENDPOINT} with manual progress: the domain's UCX worker is single-threaded, so its
 *       endpoints, completion queue reads and counter progress share one guard: a call while
 *       another thread is inside any of them gets {@code -FI_EBUSY}, even on another endpoint.
 *   <li>{@code SAFE}: any thread may make operation calls on any endpoint of the domain at any
 *       time; they are serialized, with the domain's queue reads and counter progress, by one lock,
 *       so a second thread waits (a lock per call).
 *   <li>{@code DOMAIN}: nothing is checked. The application must make sure that one thread at a
 *       time is inside the calls of the domain's endpoints, queues and counters; a second one is
 *       not detected and may corrupt the endpoint's state.
 * </ul>
 *
 * <p>{@link #atomicPath} and {@link #close} enter the same guard but wait for a call another thread
 * is inside instead of being refused. The set-up calls ({@code bind}, {@link #enable}) and the
 * {@code *Valid} calls are not guarded: make the set-up calls on one thread before the endpoint's
 * operation calls begin.
 *
 * <p><b>Errors.</b> The operation calls return 0 or a negative {@link FiErrno} value and do not
 * throw: what throws inside a call (an engine or transport failure, or a buffer closed by a racing
 * thread after its checks) is returned as {@code -FI_EOTHER}, counted and handed to the domain's
 * error handler ({@link Domain#setErrorHandler}). The first check that fails decides the value, and
 * nothing is posted; the logger {@code dev.fiucx.engine.refusals} at DEBUG logs why:
 *
 * <table>
 *   <caption>What the operation calls return</caption>
 *   <tr><th>value</th><th>when</th></tr>
 *   <tr><td>{@code -FI_EBUSY}</td><td>another thread is inside the guard ({@code
 *       threading=endpoint}, see above)</td></tr>
 *   <tr><td>{@code -FI_EOPBADSTATE}</td><td>the endpoint is closed or not enabled</td></tr>
 *   <tr><td>{@code -FI_EBADFLAGS}</td><td>a message call's flags hold anything but {@code
 *       COMPLETION}, {@code INJECT}, {@code FENCE}, {@code MORE}, {@code INJECT_COMPLETE}, {@code
 *       TRANSMIT_COMPLETE}, {@code DELIVERY_COMPLETE}</td></tr>
 *   <tr><td>{@code -FI_EINVAL}</td><td>a null op, datatype, message, array or array entry; no
 *       elements; no or too many iov entries; a local buffer that is not usable (see above) or
 *       whose element count differs from the target side's; a target address not aligned to the
 *       element</td></tr>
 *   <tr><td>{@code -FI_EOPNOTSUPP}</td><td>the (family, op, datatype) cell is not carried out
 *       ({@link Domain#queryAtomic} says so)</td></tr>
 *   <tr><td>{@code -FI_EMSGSIZE}</td><td>more elements than the cell's count ({@link
 *       #atomicValid})</td></tr>
 *   <tr><td>{@code -FI_EADDRNOTAVAIL}</td><td>{@code destAddr} names no peer of the bound
 *       address vector</td></tr>
 *   <tr><td>{@code -FI_ECONNRESET}</td><td>the peer is known to have failed</td></tr>
 *   <tr><td>{@code -FI_EKEYREJECTED}</td><td>the peer knows no such key, or it was revoked (the
 *       region closed)</td></tr>
 *   <tr><td>{@code -FI_ETIMEDOUT}, {@code -FI_EIO}</td><td>the peer did not answer the key's
 *       resolution (first use of a key, within {@link DomainAttr#controlTimeout})</td></tr>
 *   <tr><td>{@code -FI_EACCES}</td><td>the region does not grant the access the operation needs
 *       (remote write unless it only reads, remote read when it fetches)</td></tr>
 *   <tr><td>{@code -FI_EFAULT}</td><td>the target range leaves the region</td></tr>
 *   <tr><td>{@code -FI_ENOCQ}</td><td>the call wants a completion and no completion queue is
 *       bound</td></tr>
 *   <tr><td>{@code -FI_EAGAIN}</td><td>no room now: the completion queue is full of completions
 *       not yet read, too many operations are in flight, an emulation engine is full, or 4096
 *       calls wait behind an {@code FI_FENCE}; read the queue and call again</td></tr>
 * </table>
 *
 * <p>Beyond these, the post itself may fail with what the transport reports. An operation that
 * fails after it was posted is reported by its completion queue as an error entry ({@link
 * CompletionQueue#readErr}) and by its counter's error count, not by the call.
 *
 * <p><b>{@code FI_FENCE}</b> (a message call's flag) never blocks the caller. A fenced call is
 * checked as any call and refused at once with the same value. When an earlier operation of the
 * endpoint is still in flight, it returns 0 and is deferred; every call made while one is deferred
 * is checked, then deferred behind it, fenced or not. Progress (a completion-queue or counter read;
 * the domain's progress thread under automatic progress) starts the deferred calls in the order
 * they were made, a fenced one once every operation before it has completed. A deferred call keeps
 * copies of its operands and compare values (an {@code INJECT} operand's buffer, the iov arrays and
 * the message are the caller's again when the call returns; result buffers must stay usable until
 * the completion, as for any call). It ends as any operation: its completion, or an error entry
 * with its context ({@code -FI_ECONNRESET} when its peer failed before it started).
 *
 * <p>Set-up calls throw {@link FiException}: {@code bind} {@code FI_EINVAL} (an object of another
 * provider or domain, a second binding of the same kind), {@code FI_EBADFLAGS} (flags other than
 * those documented), {@code FI_EOPBADSTATE} (the endpoint or the bound object closed, or the
 * endpoint already enabled), and for a queue under automatic progress {@code FI_EBUSY} when a
 * second endpoint binds it while completions of the first one's operations are not yet read; {@link
 * #enable} {@code FI_ENOAV} without an address vector, {@code FI_EOPBADSTATE} when closed or
 * already enabled.
 *
 * <p>After {@link #close} every operation call returns {@code -FI_EOPBADSTATE}, and {@code bind},
 * {@link #enable} and {@link #atomicPath} throw it; closing twice does nothing. {@link #close} ends
 * every call still deferred by {@code FI_FENCE} with an {@code -FI_ECANCELED} error entry, then
 * waits for the operations in flight (up to 30 s).
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
   * @return 0 once the operation is posted or deferred ({@code FENCE}), or a negative {@link
   *     FiErrno} value
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
   * @return 0 once the operation is posted or deferred ({@code FENCE}), or a negative {@link
   *     FiErrno} value
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
   * @return 0 once the operation is posted or deferred ({@code FENCE}), or a negative {@link
   *     FiErrno} value
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
