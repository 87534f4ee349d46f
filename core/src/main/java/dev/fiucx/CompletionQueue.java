package dev.fiucx;

/**
 * Completions of an endpoint's operations: libfabric's {@code struct fid_cq} with {@code
 * FI_CQ_FORMAT_TAGGED}. Reading progresses the provider when progress is manual.
 */
public interface CompletionQueue extends AutoCloseable {
  /**
   * {@code fi_cq_read}: fills up to {@code max} entries; returns how many, {@code -FI_EAGAIN} when
   * none is ready, or {@code -FI_EAVAIL} when an error entry is waiting for {@link #readErr};
   * {@code -FI_EINVAL} for a null array or a negative {@code max}, {@code -FI_EOPBADSTATE} once
   * closed. Never throws.
   *
   * @param entries where the completions go
   * @param max at most this many
   * @return how many entries were written, or a negative {@link FiErrno} value
   */
  int read(CqEntry[] entries, int max);

  /**
   * {@return {@code fi_cq_readerr}: 1 when an entry was written, {@code -FI_EAGAIN} when none
   * waits}
   *
   * @param entry filled with the error entry
   */
  int readErr(CqErrEntry entry);

  /**
   * {@code fi_cq_sread}: like {@link #read} but waits up to {@code timeoutMillis} (negative or too
   * large to count in nanoseconds, such as {@code Long.MAX_VALUE}: no limit; 0: one read); {@code
   * -FI_EAGAIN} on timeout.
   *
   * @param entries where the completions go
   * @param max at most this many
   * @param timeoutMillis how long to wait, in milliseconds
   * @return how many entries were written, or a negative {@link FiErrno} value
   */
  int sread(CqEntry[] entries, int max, long timeoutMillis);

  @Override
  void close();
}
