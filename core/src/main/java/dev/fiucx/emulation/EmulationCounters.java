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
  private final LongAdder lockElements = new LongAdder();
  private final LongAdder lockAcquisitions = new LongAdder();
  private final LongAdder lockWaits = new LongAdder();
  private final LongAdder locksTakenOver = new LongAdder();
  private final LongAdder locksReclaimed = new LongAdder();
  private final LongAdder lockRestarts = new LongAdder();
  private final LongAdder locksLost = new LongAdder();
  private final LongAdder putsSkipped = new LongAdder();

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

  /** Elements carried out under a remote lock (finished, successfully or not). */
  public long lockElements() {
    return lockElements.sum();
  }

  /** Remote locks taken (a restarted element takes its lock again). */
  public long lockAcquisitions() {
    return lockAcquisitions.sum();
  }

  /** Lock elements that found their stripe held at least once and waited. */
  public long lockWaits() {
    return lockWaits.sum();
  }

  /** Locks this domain's initiators took over from a holder whose lease ran out. */
  public long locksTakenOver() {
    return locksTakenOver.sum();
  }

  /** Locks this domain, as a target, freed because their holder's connection failed. */
  public long locksReclaimed() {
    return locksReclaimed.sum();
  }

  /**
   * Elements that held their lock for half a lease before they could write, gave it back and
   * started over (a stalled initiator, never a healthy one).
   */
  public long lockRestarts() {
    return lockRestarts.sum();
  }

  /** Releases that found the lock taken over: a holder stalled for a whole lease. */
  public long locksLost() {
    return locksLost.sum();
  }

  /** Lock elements whose op changed nothing, so nothing was written back. */
  public long putsSkipped() {
    return putsSkipped.sum();
  }

  void lockAcquired(boolean tookOver) {
    lockAcquisitions.increment();
    if (tookOver) {
      locksTakenOver.increment();
    }
  }

  void lockElement(boolean waited) {
    lockElements.increment();
    if (waited) {
      lockWaits.increment();
    }
  }

  void lockRestarted() {
    lockRestarts.increment();
  }

  void lockLost() {
    locksLost.increment();
  }

  void lockPutSkipped() {
    putsSkipped.increment();
  }

  /** Locks freed at the target because their holder died. */
  public void locksReclaimed(int n) {
    locksReclaimed.add(n);
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
        + ", lockElements="
        + lockElements()
        + ", lockAcquisitions="
        + lockAcquisitions()
        + ", lockWaits="
        + lockWaits()
        + ", locksTakenOver="
        + locksTakenOver()
        + ", locksReclaimed="
        + locksReclaimed()
        + ", lockRestarts="
        + lockRestarts()
        + ", locksLost="
        + locksLost()
        + ", putsSkipped="
        + putsSkipped()
        + "]";
  }
}
