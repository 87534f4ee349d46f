package dev.fiucx.emulation;

/**
 * The remote lock's clock rules for waiters: how long a waiter pauses before it looks at the lock
 * word again, and how long a served ticket may stay unclaimed before waiters skip it. Both are
 * learned from what waiters saw: how fast the served ticket moved (the length of a turn) and how
 * long a look's round trip took.
 *
 * <p>The two figures are plain fields, written by the posting and the draining thread without
 * ordering, on purpose: any value is a usable guess, and a wrong one costs a look too early or too
 * late, never a wrong result.
 */
final class TurnPacing {
  /** The longest pause between two looks at the word while waiting for a turn. */
  static final long MAX_PAUSE_NANOS = 1_000_000;

  /**
   * How long a served ticket is left unclaimed before a waiter skips it, besides sixteen looks'
   * round trips: a waiter whose thread runs looks at every progress when it is next in line.
   */
  static final long MIN_CLAIM_NANOS = 5_000;

  /** The longest a served ticket may stay unclaimed (nobody inside) before waiters skip it. */
  private final long turnTimeoutNanos;

  private final long maxPauseNanos;

  /**
   * How long one turn of a contended stripe took, as waiters saw the served ticket move: the pause
   * before the next look is the turns ahead of the next in line times this.
   */
  private long turnNanos = 1_000;

  /**
   * The longest recent round trip of a look that went pending (0 while every look completed in the
   * call), decaying by a sixteenth a look.
   */
  private long lookNanos;

  /**
   * @param leaseNanos the lease: an unclaimed turn is skipped after an eighth of it at most
   */
  TurnPacing(long leaseNanos) {
    this.turnTimeoutNanos = Math.max(1, leaseNanos / 8);
    this.maxPauseNanos = Math.min(MAX_PAUSE_NANOS, turnTimeoutNanos / 4);
  }

  /**
   * A look that went pending came back after {@code nanos}. A decaying maximum: round trips under
   * load vary, and a turn skipped too early costs its waiter a place at the back.
   */
  void lookTook(long nanos) {
    long sample = Math.min(MAX_PAUSE_NANOS, nanos);
    lookNanos = Math.max(sample, lookNanos - (lookNanos >> 4));
  }

  /** A waiter saw the served ticket move on by {@code moved} turns in {@code nanos}. */
  void turnsPassed(int moved, long nanos) {
    if (moved > 0) {
      long sample = Math.min(MAX_PAUSE_NANOS, nanos / moved);
      turnNanos += (sample - turnNanos) >> 3;
    }
  }

  /**
   * How long a turn may stay unclaimed: {@link #MIN_CLAIM_NANOS} and sixteen looks' round trips
   * (the next in line looks at every progress and enters with one more round trip), at most an
   * eighth of the lease. It does not follow how long turns take, which unclaimed turns would
   * lengthen in turn. A waiter whose thread the scheduler set aside for longer loses its turn and
   * takes a new ticket; without this, with more spinning threads than cores, every turn would wait
   * for its waiter's next time slice.
   */
  long claimNanos() {
    return Math.min(turnTimeoutNanos, MIN_CLAIM_NANOS + 16 * lookNanos);
  }

  /**
   * How long a waiter with {@code ahead} turns before its own pauses before it looks again: the
   * next in line (one ahead) looks at every progress; the others about when the turns ahead of the
   * next in line should have passed, so that looks do not load the target.
   */
  long pauseNanos(int ahead) {
    long pause = Math.min((ahead - 1) * Math.max(100, turnNanos), ahead * claimNanos() / 2);
    return Math.min(maxPauseNanos, pause);
  }
}
