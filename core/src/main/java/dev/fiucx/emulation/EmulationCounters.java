package dev.fiucx.emulation;

import dev.fiucx.EmulationCounts;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the emulation engines did, since the domain opened: plain counters that endpoints add to
 * (from the posting thread and from the progress thread) and a metrics binder reads. Reading is
 * racy by nature (a sum of cells), never blocking.
 *
 * <p>Under manual progress one thread at a time drives the domain, so the per-element counts (the
 * hot ones) are plain fields there, and the read-modify-writes of {@link LongAdder} are kept for
 * automatic progress, where the posting and the progress thread both finish elements.
 */
public final class EmulationCounters implements EmulationCounts {
  private final boolean concurrent;
  // the per-element counts under manual progress; read racily (opaque) by a metrics binder
  private long plainCasElements;
  private long plainCasAttempts;
  private long plainCasRetries;
  private long plainSwapsSkipped;
  private long plainLockElements;
  private long plainLockWaits;
  private long plainLockAcquisitions;
  private long plainLockTurns;
  private long plainMaxLockTurns;
  private long plainTickets;
  private long plainMaxTicketTurns;

  /** Counters that any thread may add to. */
  public EmulationCounters() {
    this(true);
  }

  /**
   * @param concurrent false when one thread at a time adds (manual progress)
   */
  public EmulationCounters(boolean concurrent) {
    this.concurrent = concurrent;
  }

  /** Whether elements may finish on several threads at once: the domain's thread model. */
  boolean concurrent() {
    return concurrent;
  }

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
  private final LongAdder writesRedone = new LongAdder();
  private final LongAdder turnsSkipped = new LongAdder();
  private final LongAdder lockTurns = new LongAdder();
  private final java.util.concurrent.atomic.AtomicLong maxLockTurns =
      new java.util.concurrent.atomic.AtomicLong();
  private final LongAdder tickets = new LongAdder();
  private final java.util.concurrent.atomic.AtomicLong maxTicketTurns =
      new java.util.concurrent.atomic.AtomicLong();

  @Override
  public long casElements() {
    return casElements.sum() + plainCasElements;
  }

  @Override
  public long casAttempts() {
    return casAttempts.sum() + plainCasAttempts;
  }

  @Override
  public long casRetries() {
    return casRetries.sum() + plainCasRetries;
  }

  @Override
  public long swapsSkipped() {
    return swapsSkipped.sum() + plainSwapsSkipped;
  }

  @Override
  public long lockElements() {
    return lockElements.sum() + plainLockElements;
  }

  @Override
  public long lockAcquisitions() {
    return lockAcquisitions.sum() + plainLockAcquisitions;
  }

  @Override
  public long lockWaits() {
    return lockWaits.sum() + plainLockWaits;
  }

  @Override
  public long lockTurns() {
    return lockTurns.sum() + plainLockTurns;
  }

  @Override
  public long maxLockTurns() {
    return Math.max(maxLockTurns.get(), plainMaxLockTurns);
  }

  @Override
  public long tickets() {
    return tickets.sum() + plainTickets;
  }

  @Override
  public long maxTicketTurns() {
    return Math.max(maxTicketTurns.get(), plainMaxTicketTurns);
  }

  @Override
  public long turnsSkipped() {
    return turnsSkipped.sum();
  }

  @Override
  public long locksTakenOver() {
    return locksTakenOver.sum();
  }

  @Override
  public long locksReclaimed() {
    return locksReclaimed.sum();
  }

  @Override
  public long lockRestarts() {
    return lockRestarts.sum();
  }

  @Override
  public long locksLost() {
    return locksLost.sum();
  }

  @Override
  public long putsSkipped() {
    return putsSkipped.sum();
  }

  void lockAcquired() {
    if (concurrent) {
      lockAcquisitions.increment();
    } else {
      plainLockAcquisitions++;
    }
  }

  void lockTakenOver() {
    locksTakenOver.increment();
  }

  void ticketTaken(int ahead) {
    if (!concurrent) {
      plainTickets++;
      plainMaxTicketTurns = Math.max(plainMaxTicketTurns, ahead);
      return;
    }
    tickets.increment();
    if (ahead > maxTicketTurns.get()) {
      maxTicketTurns.accumulateAndGet(ahead, Math::max);
    }
  }

  void turnSkipped() {
    turnsSkipped.increment();
  }

  void lockElement(boolean waited, int turns) {
    if (!concurrent) {
      plainLockElements++;
      plainLockWaits += waited ? 1 : 0;
      plainLockTurns += turns;
      plainMaxLockTurns = Math.max(plainMaxLockTurns, turns);
      return;
    }
    lockElements.increment();
    if (waited) {
      lockWaits.increment();
    }
    if (turns != 0) {
      lockTurns.add(turns);
      maxLockTurns.accumulateAndGet(turns, Math::max);
    }
  }

  void lockRestarted() {
    lockRestarts.increment();
  }

  void lockLost() {
    locksLost.increment();
  }

  @Override
  public long writesRedone() {
    return writesRedone.sum();
  }

  void writeRedone() {
    writesRedone.increment();
  }

  void lockPutSkipped() {
    putsSkipped.increment();
  }

  /** Locks freed at the target because their holder died. */
  public void locksReclaimed(int n) {
    locksReclaimed.add(n);
  }

  /** One finished element: a few adds, once per element rather than once per step. */
  /** Swaps tried and lost by an element that then goes on elsewhere (and is counted there). */
  void steps(int attempts, int retries) {
    if (!concurrent) {
      plainCasAttempts += attempts;
      plainCasRetries += retries;
      return;
    }
    casAttempts.add(attempts);
    casRetries.add(retries);
  }

  void element(int attempts, int retries, boolean skipped) {
    if (!concurrent) {
      plainCasElements++;
      plainCasAttempts += attempts;
      plainCasRetries += retries;
      plainSwapsSkipped += skipped ? 1 : 0;
      return;
    }
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
        + ", lockTurns="
        + lockTurns()
        + ", maxLockTurns="
        + maxLockTurns()
        + ", tickets="
        + tickets()
        + ", maxTicketTurns="
        + maxTicketTurns()
        + ", turnsSkipped="
        + turnsSkipped()
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
