package dev.fiucx.completion;

import dev.fiucx.Counter;
import dev.fiucx.FiErrno;
import dev.fiucx.spi.Progress;
import dev.fiucx.validation.CallGuard;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A completion counter: success and error counts, readable from any thread. A counter of a
 * manual-progress or {@code threading=safe} domain progresses inside the domain's {@link
 * CallGuard}; a read that finds another thread inside skips progress and returns the count.
 */
public final class CompletionCounter implements Counter {
  private final AtomicLong count = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();
  private final Progress progress;
  private final CallGuard guard;
  private volatile boolean closed;

  public CompletionCounter(Progress progress) {
    this(progress, null);
  }

  /**
   * @param guard what progress enters (the domain's, under manual progress or {@code
   *     threading=safe}), or null
   */
  public CompletionCounter(Progress progress, CallGuard guard) {
    this.progress = progress;
    this.guard = guard;
  }

  /** One operation completed. Producer side. */
  public void increment() {
    count.incrementAndGet();
  }

  /** One operation failed. Producer side. */
  public void incrementErrors() {
    errors.incrementAndGet();
  }

  /** Whether {@code p} is the progress this counter was opened with (its domain's). */
  public boolean progressedBy(Progress p) {
    return progress == p;
  }

  /** Whether {@link #close} was called. */
  public boolean isClosed() {
    return closed;
  }

  private int progress() {
    if (closed) {
      return 0;
    }
    CallGuard g = guard;
    if (g == null) {
      return progress.progress();
    }
    if (!g.tryEnter()) {
      return 0;
    }
    try {
      return progress.progress();
    } finally {
      g.exit();
    }
  }

  @Override
  public long read() {
    progress();
    return count.get();
  }

  @Override
  public long readErr() {
    progress();
    return errors.get();
  }

  @Override
  public void add(long value) {
    count.addAndGet(value);
  }

  @Override
  public void set(long value) {
    count.set(value);
  }

  /**
   * {@inheritDoc} A negative timeout, or one too long to count in nanoseconds ({@code
   * Long.MAX_VALUE}), waits without limit; {@code -FI_EOPBADSTATE} once closed.
   */
  @Override
  public int waitFor(long threshold, long timeoutMillis) {
    long deadline = Deadline.of(timeoutMillis);
    long errorsBefore = errors.get();
    long idleSince = 0;
    while (count.get() < threshold) {
      if (closed) {
        return -FiErrno.EOPBADSTATE;
      }
      if (errors.get() != errorsBefore) {
        return -FiErrno.EAVAIL;
      }
      if (Deadline.passed(deadline)) {
        return -FiErrno.ETIMEDOUT;
      }
      if (progress() != 0) {
        idleSince = 0;
        continue;
      }
      // as CompletionRing.sread: spin a round trip's time, then sleep in the transport
      long now = System.nanoTime();
      if (idleSince == 0) {
        idleSince = now;
      } else if (now - idleSince >= CompletionRing.SPIN_BEFORE_AWAIT_NANOS) {
        long left = deadline == Deadline.NEVER ? Long.MAX_VALUE : deadline - now;
        if (await(Math.min(CompletionRing.MAX_AWAIT_NANOS, Math.max(0, left)))) {
          continue;
        }
      }
      Thread.onSpinWait();
    }
    return 0;
  }

  /** Sleeps in the transport under the guard progress takes; false where it cannot. */
  private boolean await(long nanos) {
    CallGuard g = guard;
    if (g == null) {
      return !closed && progress.await(nanos);
    }
    if (!g.tryEnter()) {
      return false;
    }
    try {
      return !closed && progress.await(nanos);
    } finally {
      g.exit();
    }
  }

  @Override
  public void close() {
    closed = true;
  }
}
