package dev.fiucx.completion;

/**
 * A wait's deadline in {@link System#nanoTime} without overflow: a negative timeout, or one whose
 * nanoseconds do not fit in a {@code long}, never passes.
 */
final class Deadline {
  /** The deadline that never passes. */
  static final long NEVER = Long.MIN_VALUE;

  private static final long MAX_MILLIS = Long.MAX_VALUE / 1_000_000 / 2;

  private Deadline() {}

  /** The deadline {@code timeoutMillis} from now, or {@link #NEVER}. */
  static long of(long timeoutMillis) {
    if (timeoutMillis < 0 || timeoutMillis > MAX_MILLIS) {
      return NEVER;
    }
    long d = System.nanoTime() + timeoutMillis * 1_000_000;
    // nanoTime may be any value: a deadline that happens to equal NEVER moves by a nanosecond
    return d == NEVER ? d + 1 : d;
  }

  /** Whether {@code deadline} has passed (compared by difference: nanoTime may wrap). */
  static boolean passed(long deadline) {
    return deadline != NEVER && System.nanoTime() - deadline >= 0;
  }
}
