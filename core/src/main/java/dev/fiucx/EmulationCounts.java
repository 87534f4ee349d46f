package dev.fiucx;

/**
 * What a domain's emulation engines did since it opened: the CAS loop (MIN, MAX, PROD, logical ops,
 * ordered compares, MSWAP, 8- and 16-bit integers, floats) and the remote lock (complex and long
 * double). A live view ({@link Domain#emulationCounts()}): each read sums counters that the
 * domain's threads keep adding to, so reads are racy by nature and never block. The same figures
 * are in {@code dev.fiucx.metrics.FiucxMetrics} for Micrometer.
 */
public interface EmulationCounts {
  /** {@return elements carried out by the CAS loop (finished, successfully or not)} */
  long casElements();

  /** {@return compare-and-swaps posted} */
  long casAttempts();

  /**
   * {@return compare-and-swaps that found another value than the one read: each one cost a retry}
   */
  long casRetries();

  /** {@return elements whose op changed nothing, so no swap was posted after the read} */
  long swapsSkipped();

  /** {@return elements carried out under a remote lock (finished, successfully or not)} */
  long lockElements();

  /** {@return remote locks taken (a restarted element takes its lock again)} */
  long lockAcquisitions();

  /** {@return lock elements that found their stripe held at least once and waited} */
  long lockWaits();

  /**
   * Turns waited by lock elements, added up: for each ticket an element took, the tickets ahead of
   * it then (an element that entered a free stripe at once waited none).
   *
   * @return the turns, added up
   */
  long lockTurns();

  /**
   * The most turns one lock element waited, over all the tickets it took (an element that lost its
   * turn while it was not looking takes another).
   *
   * @return the most turns
   */
  long maxLockTurns();

  /**
   * {@return tickets taken: lock elements that found their stripe held or queued, and took a place}
   */
  long tickets();

  /**
   * The most tickets ahead of one ticket when it was taken: the turns its element waits when it
   * looks in time, which the ticket order bounds by the elements then in flight on the stripe.
   *
   * @return the most tickets ahead
   */
  long maxTicketTurns();

  /**
   * Turns that nobody claimed in time and that this domain's initiators skipped: tickets of waiters
   * that died, or that were not looking (their thread set aside), which then take a new ticket.
   *
   * @return the turns skipped
   */
  long turnsSkipped();

  /** {@return locks this domain's initiators took over from a holder whose lease ran out} */
  long locksTakenOver();

  /** {@return locks this domain, as a target, freed because their holder's connection failed} */
  long locksReclaimed();

  /**
   * Elements that held their lock for half a lease before they could write, gave it back and
   * started over (a stalled initiator, never a healthy one).
   *
   * @return the restarts
   */
  long lockRestarts();

  /** {@return releases that found the lock taken over: a holder stalled for a whole lease} */
  long locksLost();

  /**
   * {@return wide elements whose write a holder that died mid-copy left in its stripe's redo
   * record, completed by this domain: as the target reclaiming the dead holder's turn, or as the
   * next holder of the element}
   */
  long writesRedone();

  /** {@return lock elements whose op changed nothing, so nothing was written back} */
  long putsSkipped();
}
