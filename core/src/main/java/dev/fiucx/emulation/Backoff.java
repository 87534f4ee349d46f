package dev.fiucx.emulation;

/**
 * The pause between two compare-and-swaps of one element that lost to another writer: a short
 * exponential spin, bounded, so contending initiators stop colliding in lockstep without anybody
 * sleeping or taking a lock. Past a few failures the engine stops spinning altogether and retries
 * after the next progress instead.
 */
final class Backoff {
  /** At most 2^6 spin hints (a few hundred nanoseconds on x86). */
  private static final int LONGEST = 6;

  private Backoff() {}

  static void pause(int failures) {
    int spins = 1 << Math.min(failures, LONGEST);
    for (int i = 0; i < spins; i++) {
      Thread.onSpinWait();
    }
  }
}
