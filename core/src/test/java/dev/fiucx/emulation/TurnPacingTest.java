package dev.fiucx.emulation;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The waiters' clock rules, value by value: claim times, pauses, and what they learn from. */
class TurnPacingTest {
  private static final long LEASE = TimeUnit.SECONDS.toNanos(10);

  @Test
  void atFirstATurnMayStayUnclaimedFiveMicrosecondsAndTheNextInLineDoesNotPause() {
    TurnPacing pacing = new TurnPacing(LEASE);
    assertEquals(TurnPacing.MIN_CLAIM_NANOS, pacing.claimNanos());
    assertEquals(0, pacing.pauseNanos(1));
    // two turns before the next in line, a microsecond each; a claim time and a half is more
    assertEquals(2_000, pacing.pauseNanos(3));
  }

  @Test
  void theClaimTimeFollowsSixteenLooksAndForgetsASlowOneBySixteenths() {
    TurnPacing pacing = new TurnPacing(LEASE);
    pacing.lookTook(10_000);
    assertEquals(5_000 + 16 * 10_000, pacing.claimNanos());
    pacing.lookTook(0);
    assertEquals(5_000 + 16 * 9_375, pacing.claimNanos(), "a sixteenth forgotten");
    pacing.lookTook(20_000);
    assertEquals(5_000 + 16 * 20_000, pacing.claimNanos(), "a slower look counts at once");
    pacing.lookTook(TimeUnit.SECONDS.toNanos(1));
    assertEquals(
        5_000 + 16 * TurnPacing.MAX_PAUSE_NANOS, pacing.claimNanos(), "a look counts 1 ms at most");
  }

  @Test
  void theClaimTimeIsAnEighthOfTheLeaseAtMost() {
    TurnPacing pacing = new TurnPacing(80_000);
    assertEquals(5_000, pacing.claimNanos());
    pacing.lookTook(1_000);
    assertEquals(10_000, pacing.claimNanos());
  }

  @Test
  void pausesFollowTheTurnsSeenByAnEighthAndStopAtAMillisecond() {
    TurnPacing pacing = new TurnPacing(LEASE);
    pacing.lookTook(100_000); // claim times long enough not to cap the pauses below
    pacing.turnsPassed(4, 8_000); // 2 us a turn
    assertEquals(1_000 + 1_000 / 8, pacing.pauseNanos(2));
    pacing.turnsPassed(0, 1_000_000);
    pacing.turnsPassed(-3, 1_000_000);
    assertEquals(1_125, pacing.pauseNanos(2), "no turn passed: nothing learned");
    pacing.turnsPassed(1, TimeUnit.SECONDS.toNanos(1)); // counts as 1 ms
    assertEquals(1_125 + (1_000_000 - 1_125) / 8, pacing.pauseNanos(2));
    assertEquals(TurnPacing.MAX_PAUSE_NANOS, pacing.pauseNanos(100));
  }

  @Test
  void aWaiterPausesHalfAClaimTimeATurnAtMost() {
    TurnPacing pacing = new TurnPacing(LEASE);
    pacing.turnsPassed(1, TimeUnit.SECONDS.toNanos(1)); // turns of about 125 us
    assertEquals(100 * TurnPacing.MIN_CLAIM_NANOS / 2, pacing.pauseNanos(100));
  }

  @Test
  void turnsSeenToTakeNoTimeStillPauseAHundredNanosecondsATurn() {
    TurnPacing pacing = new TurnPacing(LEASE);
    for (int i = 0; i < 100; i++) {
      pacing.turnsPassed(1, 0);
    }
    assertEquals(100, pacing.pauseNanos(2));
    assertEquals(300, pacing.pauseNanos(4));
  }

  @Test
  void aShortLeaseShortensTheLongestPause() {
    TurnPacing pacing = new TurnPacing(800_000); // claim times up to 100 us, pauses up to 25 us
    pacing.lookTook(TimeUnit.SECONDS.toNanos(1));
    pacing.turnsPassed(1, TimeUnit.SECONDS.toNanos(1));
    assertEquals(25_000, pacing.pauseNanos(1_000));
  }
}
