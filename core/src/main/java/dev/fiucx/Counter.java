package dev.fiucx;

/**
 * Counts completed operations: libfabric's {@code struct fid_cntr}. Reading progresses the provider
 * when progress is manual.
 *
 * <p><b>Threads.</b> Any thread may call any method at any time, also while endpoints complete
 * operations into the counter: the counts are atomic. Where the domain guards its progress (manual
 * progress with {@code threading=endpoint}, or {@code threading=safe}), a read or wait progresses
 * only when no other thread is inside the domain's guard, and otherwise returns the count without
 * progressing; it is never refused with {@code -FI_EBUSY}. Under {@code threading=domain} the
 * application serializes the counter's reads with the domain's other calls, as {@link
 * DomainAttr.Threading#DOMAIN} says.
 *
 * <p><b>Errors.</b> {@link #read}, {@link #readErr}, {@link #add} and {@link #set} never fail and
 * never throw, also after {@link #close} (the counts stay readable; a closed counter no longer
 * progresses). Only {@link #waitFor} returns an error.
 */
public interface Counter extends AutoCloseable {
  /** {@return {@code fi_cntr_read}} */
  long read();

  /** {@return {@code fi_cntr_readerr}} */
  long readErr();

  /**
   * {@code fi_cntr_add}.
   *
   * @param value the amount
   */
  void add(long value);

  /**
   * {@code fi_cntr_set}.
   *
   * @param value the amount
   */
  void set(long value);

  /**
   * {@code fi_cntr_wait}: 0 once the count reaches {@code threshold}, {@code -FI_ETIMEDOUT} after
   * {@code timeoutMillis} (negative or too large to count in nanoseconds, such as {@code
   * Long.MAX_VALUE}: no limit), {@code -FI_EAVAIL} if the error count moved, {@code
   * -FI_EOPBADSTATE} once the counter (or its domain) is closed.
   *
   * @param threshold the count to wait for
   * @param timeoutMillis how long to wait, in milliseconds
   * @return 0, or a negative {@link FiErrno} value
   */
  int waitFor(long threshold, long timeoutMillis);

  @Override
  void close();
}
