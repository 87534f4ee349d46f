package dev.fiucx.completion;

import java.util.concurrent.TimeUnit;

/**
 * A coarse clock for operation timeouts: a tick every {@link #TICK_MILLIS}, counted by one daemon
 * thread per JVM (started on first use, it sleeps between ticks). Reading it is one volatile load,
 * which an operation's start can afford where {@code System.nanoTime} (tens of ns here) is too
 * dear.
 */
public final class OperationClock {
  /** Milliseconds per tick: the resolution of an operation timeout. */
  public static final long TICK_MILLIS = 100;

  private static volatile int ticks;

  static {
    Thread.ofPlatform()
        .daemon()
        .name("fiucx-operation-clock")
        .start(
            () -> {
              while (true) {
                try {
                  TimeUnit.MILLISECONDS.sleep(TICK_MILLIS);
                } catch (InterruptedException e) {
                  return;
                }
                ticks = ticks + 1; // the one writer
              }
            });
  }

  private OperationClock() {}

  /**
   * {@return the ticks since the clock started; they wrap after years, and only differences count}
   */
  public static int ticks() {
    return ticks;
  }

  /**
   * {@return {@code millis} in whole ticks, at least one}
   *
   * @param millis a duration in milliseconds
   */
  public static int ticksOf(long millis) {
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE / 2, millis / TICK_MILLIS));
  }
}
