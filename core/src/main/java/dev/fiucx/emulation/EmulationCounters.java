package dev.fiucx.emulation;

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
public final class EmulationCounters {
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
  private final LongAdder turnsSkipped = new LongAdder();
  private final LongAdder lockTurns = new LongAdder();
  private final java.util.concurrent.atomic.AtomicLong maxLockTurns =
      new java.util.concurrent.atomic.AtomicLong();
  private final LongAdder tickets = new LongAdder();
  private final java.util.concurrent.atomic.AtomicLong maxTicketTurns =
      new java.util.concurrent.atomic.AtomicLong();

  /** Elements carried out by the CAS loop (finished, successfully or not). */
  public long casElements() {
    return casElements.sum() + plainCasElements;
  }

  /** Compare-and-swaps posted. */
  public long casAttempts() {
    return casAttempts.sum() + plainCasAttempts;
  }

  /** Compare-and-swaps that found another value than the one read: each one cost a retry. */
  public long casRetries() {
    return casRetries.sum() + plainCasRetries;
  }

  /** Elements whose op changed nothing, so no swap was posted after the read. */
  public long swapsSkipped() {
    return swapsSkipped.sum() + plainSwapsSkipped;
  }

  /** Elements carried out under a remote lock (finished, successfully or not). */
  public long lockElements() {
    return lockElements.sum() + plainLockElements;
  }

  /** Remote locks taken (a restarted element takes its lock again). */
  public long lockAcquisitions() {
    return lockAcquisitions.sum() + plainLockAcquisitions;
  }

  /** Lock elements that found their stripe held at least once and waited. */
  public long lockWaits() {
    return lockWaits.sum() + plainLockWaits;
  }

  /**
   * Turns waited by lock elements, added up: for each ticket an element took, the tickets ahead of
   * it then (an element that entered a free stripe at once waited none).
   */
  public long lockTurns() {
    return lockTurns.sum() + plainLockTurns;
  }

  /**
   * The most turns one lock element waited, over all the tickets it took (an element that lost its
   * turn while it was not looking takes another).
   */
  public long maxLockTurns() {
    return Math.max(maxLockTurns.get(), plainMaxLockTurns);
  }

  /** Tickets taken: lock elements that found their stripe held or queued, and took a place. */
  public long tickets() {
    return tickets.sum() + plainTickets;
  }

  /**
   * The most tickets ahead of one ticket when it was taken: the turns its element waits when it
   * looks in time, which the ticket order bounds by the elements then in flight on the stripe.
   */
  public long maxTicketTurns() {
    return Math.max(maxTicketTurns.get(), plainMaxTicketTurns);
  }

  /**
   * Turns that nobody claimed in time and that this domain's initiators skipped: tickets of waiters
   * that died, or that were not looking (their thread set aside), which then take a new ticket.
   */
  public long turnsSkipped() {
    return turnsSkipped.sum();
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

  void lockPutSkipped() {
    putsSkipped.increment();
  }

  /** Locks freed at the target because their holder died. */
  public void locksReclaimed(int n) {
    locksReclaimed.add(n);
  }

  /** One finished element: a few adds, once per element rather than once per step. */
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
