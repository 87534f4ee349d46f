package dev.fiucx.emulation;

import java.util.concurrent.atomic.LongAdder;

/**
 * What the emulation engines did, since the domain opened: plain counters that endpoints add to
 * (from the posting thread and from the progress thread) and a metrics binder reads. Reading is
 * racy by nature (a sum of cells), never blocking.
 */
public final class EmulationCounters {
  private final LongAdder casElements = new LongAdder();
  private final LongAdder casAttempts = new LongAdder();
  private final LongAdder casRetries = new LongAdder();
  private final LongAdder swapsSkipped = new LongAdder();

  /** Elements carried out by the CAS loop (finished, successfully or not). */
  public long casElements() {
    return casElements.sum();
  }

  /** Compare-and-swaps posted. */
  public long casAttempts() {
    return casAttempts.sum();
  }

  /** Compare-and-swaps that found another value than the one read: each one cost a retry. */
  public long casRetries() {
    return casRetries.sum();
  }

  /** Elements whose op changed nothing, so no swap was posted after the read. */
  public long swapsSkipped() {
    return swapsSkipped.sum();
  }

  /** One finished element: a few adds, once per element rather than once per step. */
  void element(int attempts, int retries, boolean skipped) {
    casElements.increment();
    if (attempts != 0) {
      casAttempts.add(attempts);
    }
    if (retries != 0) {
      casRetries.add(retries);
    }
    if (skipped) {
      swapsSkipped.increment();
    }
  }

  @Override
  public String toString() {
    return "EmulationCounters[casElements="
        + casElements()
        + ", casAttempts="
        + casAttempts()
        + ", casRetries="
        + casRetries()
        + ", swapsSkipped="
        + swapsSkipped()
        + "]";
  }
}
