package dev.fiucx;

import java.lang.foreign.MemorySegment;

/**
 * One provider instance: libfabric's {@code struct fid_domain}, the factory of every other object,
 * and the home of {@code fi_query_atomic}. Set-up calls throw {@link FiException} (never a {@code
 * NullPointerException} or the like): {@code FI_EINVAL} for null or out-of-range arguments, {@code
 * FI_EOPBADSTATE} once the domain is closed. Closing a domain closes everything it opened (their
 * calls then return or throw {@code FI_EOPBADSTATE}, except a counter's {@code read}, {@code
 * readErr}, {@code add} and {@code set}, which keep working on its counts); closing it twice does
 * nothing.
 *
 * <p><b>Threads.</b> {@link DomainAttr.Threading} governs the calls of the domain's endpoints,
 * completion queues and counters (see {@link Endpoint}), not the domain's own calls. Of those,
 * {@link #openEndpoint} and {@link #close} are synchronized; {@link #setErrorHandler}, {@link
 * #errorCount} and {@link #emulationCounts} may be called from any thread at any time. The other
 * calls (opening queues, counters and address vectors, registering and allocating memory) are
 * set-up: make them before the objects they make are in use, and from one thread at a time.
 *
 * <p><b>Errors.</b> Beyond {@code FI_EINVAL} and {@code FI_EOPBADSTATE}: {@link #queryAtomic}
 * throws {@code FI_EBADFLAGS} and {@code FI_EOPNOTSUPP} as it says; {@link #registerMemory} throws
 * {@code FI_EACCES} for remote write to a read-only segment; {@link #allocateMemory} throws what
 * the provider reports when it cannot allocate (ucx: {@code FI_EINVAL} for a size out of range,
 * {@code FI_ENOMEM} beyond {@link DomainAttr#allocationLimit} or what the machine can back).
 */
public interface Domain extends AutoCloseable {
  /** {@return the provider's name, e.g. {@code ucx}} */
  String providerName();

  /**
   * {@code fi_query_atomic}: flags 0 (base), {@code FETCH_ATOMIC} or {@code COMPARE_ATOMIC},
   * optionally with {@code TAGGED}. Throws {@code FI_EBADFLAGS} for other flags or FETCH with
   * COMPARE, {@code FI_EOPNOTSUPP} when the cell is not supported.
   *
   * @param datatype the elements' datatype
   * @param op the operation
   * @param flags 0, {@code FETCH_ATOMIC} or {@code COMPARE_ATOMIC}, optionally with {@code TAGGED}
   * @return the cell's count, element size and mechanism
   */
  AtomicAttr queryAtomic(FiDatatype datatype, FiOp op, long flags);

  /** {@return {@code fi_endpoint}: an RDM endpoint} */
  Endpoint openEndpoint();

  /** {@return {@code fi_av_open}, type {@code FI_AV_TABLE}} */
  AddressVector openAddressVector();

  /**
   * {@code fi_cq_open} with room for {@code size} entries (0: the provider's default; negative or
   * beyond the provider's maximum: {@code FI_EINVAL}).
   *
   * @param size room for this many entries
   * @return the queue
   */
  CompletionQueue openCompletionQueue(int size);

  /** {@return {@code fi_cntr_open}} */
  Counter openCounter();

  /**
   * {@code fi_mr_reg} of user memory for remote {@code access} ({@code REMOTE_READ}, {@code
   * REMOTE_WRITE}). The segment must be native, 8-byte aligned and a multiple of 8 bytes long.
   *
   * @param segment the memory to expose
   * @param access {@code FiFlags.REMOTE_READ} and/or {@code FiFlags.REMOTE_WRITE}
   * @return the region, with its key
   */
  MemoryRegion registerMemory(MemorySegment segment, long access);

  /**
   * Memory that the provider allocates and registers, zeroed: the fast path where the transport can
   * use CPU atomics (UCX shared memory). No libfabric call does this; it is {@code fi_mr_reg} of
   * memory the provider chose.
   *
   * @param size the region's length in bytes
   * @param access {@code FiFlags.REMOTE_READ} and/or {@code FiFlags.REMOTE_WRITE}
   * @return the region, with its key and local memory
   */
  MemoryRegion allocateMemory(long size, long access);

  /**
   * What the provider says about itself, as {@code fi_info} and {@code ucx_info} would: library
   * version, transports in use, atomic mode, and the native ops its self-test demoted.
   *
   * @return facts by name, e.g. {@code ucx.version}
   */
  java.util.Map<String, String> describe();

  /**
   * Who hears of an exception the domain caught instead of letting it stop its progress (the
   * progress thread, or a CQ or counter read under manual progress) or escape a call that never
   * throws. The domain counts it ({@link #errorCount}, {@code describe()}'s {@code errors}) and
   * keeps serving; the handler runs on the thread that caught it, possibly the progress thread, so
   * it must return quickly and must not call the domain's objects. Null restores the default: a log
   * line at ERROR on the {@code System.Logger} named {@code dev.fiucx.engine} (the first ten of
   * each kind, then the 16th, 32nd, 64th..., so an exception that recurs cannot flood the log).
   *
   * @param handler the handler, or null for the default
   */
  void setErrorHandler(java.util.function.Consumer<? super Throwable> handler);

  /** {@return how many exceptions the domain has caught and survived so far} */
  long errorCount();

  /**
   * What the domain's emulation engines (CAS loop, remote lock) did since it opened: a live view,
   * read without blocking, valid after close.
   *
   * @return the counts, live
   */
  EmulationCounts emulationCounts();

  @Override
  void close();
}
