package dev.fiucx;

/**
 * Completions of an endpoint's operations: libfabric's {@code struct fid_cq} with {@code
 * FI_CQ_FORMAT_TAGGED}. Reading progresses the provider when progress is manual.
 *
 * <p><b>Threads.</b> One thread at a time reads a queue ({@link #read}, {@link #sread}); the
 * endpoints that write it may run on other threads. How that is enforced is the domain's {@link
 * DomainAttr.Threading}: with {@code ENDPOINT} and manual progress a read enters the domain's guard
 * (shared with its endpoints and counters) and gets {@code -FI_EBUSY} while another thread is
 * inside it; with {@code SAFE} it waits for the domain's lock; with {@code ENDPOINT} and automatic
 * progress, and with {@code DOMAIN}, nothing is checked, and two threads reading at once is the
 * application's error. {@link #readErr} takes no guard. {@link #close} may be called from any
 * thread; reads after it return {@code -FI_EOPBADSTATE}.
 *
 * <p><b>Errors.</b> The calls return a count or a negative {@link FiErrno} value and do not throw:
 * {@code -FI_EAGAIN} when nothing is ready, {@code -FI_EAVAIL} when an error entry waits for {@link
 * #readErr}, {@code -FI_EINVAL} for bad arguments, {@code -FI_EBUSY} as above, {@code
 * -FI_EOPBADSTATE} once the queue (or its domain) is closed.
 */
public interface CompletionQueue extends AutoCloseable {
  /**
   * {@code fi_cq_read}: fills up to {@code max} entries; returns how many, {@code -FI_EAGAIN} when
   * none is ready, or {@code -FI_EAVAIL} when an error entry is waiting for {@link #readErr};
   * {@code -FI_EINVAL} for a null array, a negative {@code max} or a null first entry, {@code
   * -FI_EBUSY} when another thread is inside the domain's guard ({@code threading=endpoint} with
   * manual progress), {@code -FI_EOPBADSTATE} once closed. Never throws.
   *
   * @param entries where the completions go
   * @param max at most this many
   * @return how many entries were written, or a negative {@link FiErrno} value
   */
  int read(CqEntry[] entries, int max);

  /**
   * {@return {@code fi_cq_readerr}: 1 when an entry was written, {@code -FI_EAGAIN} when none
   * waits, {@code -FI_EINVAL} for a null entry, {@code -FI_EOPBADSTATE} once closed}
   *
   * @param entry filled with the error entry
   */
  int readErr(CqErrEntry entry);

  /**
   * {@code fi_cq_sread}: like {@link #read} but waits up to {@code timeoutMillis} (negative or too
   * large to count in nanoseconds, such as {@code Long.MAX_VALUE}: no limit; 0: one read); {@code
   * -FI_EAGAIN} on timeout, and otherwise what {@link #read} returns ({@code -FI_EOPBADSTATE} once
   * the queue is closed, also while waiting).
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
