package dev.fiucx.perf.bench;

import java.util.Locale;

/** How bench prints numbers: latencies in microseconds, rates with an SI prefix. */
final class Figures {
  private Figures() {}

  /** Nanoseconds as microseconds with three decimals, as ucx_perftest prints them. */
  static String micros(double nanos) {
    return String.format(Locale.ROOT, "%.3f", nanos / 1e3);
  }

  /** A rate: 1234 -> "1.23 k", 22700000 -> "22.70 M". */
  static String rate(double perSecond) {
    if (perSecond >= 1e9) {
      return String.format(Locale.ROOT, "%.2f G", perSecond / 1e9);
    }
    if (perSecond >= 1e6) {
      return String.format(Locale.ROOT, "%.2f M", perSecond / 1e6);
    }
    if (perSecond >= 1e3) {
      return String.format(Locale.ROOT, "%.2f k", perSecond / 1e3);
    }
    return String.format(Locale.ROOT, "%.1f ", perSecond);
  }

  /** A ratio with two decimals and an x: 0.24x. */
  static String ratio(double r) {
    return String.format(Locale.ROOT, "%.2fx", r);
  }
}
