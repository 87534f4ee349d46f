package dev.fiucx.completion;

import dev.fiucx.Counter;
import dev.fiucx.FiErrno;
import dev.fiucx.spi.Progress;
import java.util.concurrent.atomic.AtomicLong;

/** A completion counter: success and error counts, readable from any thread. */
public final class CompletionCounter implements Counter {
  private final AtomicLong count = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();
  private final Progress progress;

  public CompletionCounter(Progress progress) {
    this.progress = progress;
  }

  /** One operation completed. Producer side. */
  public void increment() {
    count.incrementAndGet();
  }

  /** One operation failed. Producer side. */
  public void incrementErrors() {
    errors.incrementAndGet();
  }

  @Override
  public long read() {
    progress.progress();
    return count.get();
  }

  @Override
  public long readErr() {
    progress.progress();
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

  @Override
  public int waitFor(long threshold, long timeoutMillis) {
    long deadline =
        timeoutMillis < 0 ? Long.MAX_VALUE : System.nanoTime() + timeoutMillis * 1_000_000;
    long errorsBefore = errors.get();
    while (count.get() < threshold) {
      if (errors.get() != errorsBefore) {
        return -FiErrno.EAVAIL;
      }
      if (System.nanoTime() - deadline >= 0) {
        return -FiErrno.ETIMEDOUT;
      }
      if (progress.progress() == 0) {
        Thread.onSpinWait();
      }
    }
    return 0;
  }

  @Override
  public void close() {}
}
