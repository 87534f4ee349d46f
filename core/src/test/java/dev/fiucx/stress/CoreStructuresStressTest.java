package dev.fiucx.stress;

import org.junit.jupiter.api.Test;

/**
 * core's concurrent structures under jcstress, in one run (each run first probes the machine and
 * the JVM for half a minute): the completion queue in each of its producer modes ({@code
 * CompletionRingStress}), a completion racing its slot's open and an operation's guard ({@code
 * PendingOperationsStress}), and the emulation engines' ready stack ({@code ReadyStackStress}).
 */
class CoreStructuresStressTest {
  @Test
  void noForbiddenOutcome() throws Exception {
    Jcstress.run("dev\\.fiucx\\.(completion|emulation)\\..*Stress.*", 5);
  }
}
