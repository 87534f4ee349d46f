package dev.fiucx;

/**
 * Counts completed operations: libfabric's {@code struct fid_cntr}. Reading progresses the provider
 * when progress is manual.
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
