package dev.fiucx.perf.bench;

import java.io.PrintStream;
import java.util.Locale;

/**
 * The final table, in ucx_perftest's spirit: latency percentiles of every sample, average, the
 * overall time per call, and the overall rate in calls and elements per second; one row per run
 * (one, or one per window of a sweep, or one per round).
 */
final class ResultTable {
  /** Seven latency columns of this width: room for tcp's tails in microseconds. */
  private static final int LAT = 11;

  private static final int RATE = 13;
  private static final String LATENCY_COLUMNS = ("%" + LAT + "s").repeat(7);
  private static final String ROW =
      "| %-7s | %6s | %12s |" + LATENCY_COLUMNS + " |" + "%" + RATE + "s%" + RATE + "s |%n";
  private static final String RULE =
      "+---------+--------+--------------+"
          + "-".repeat(7 * LAT + 1)
          + "+"
          + "-".repeat(2 * RATE + 1)
          + "+";

  private ResultTable() {}

  /**
   * @param latencyKind what a latency sample is: "round trip", "per op", or both for a sweep
   */
  static void header(PrintStream out, String latencyKind) {
    out.println(RULE);
    out.printf(
        "| %-7s | %6s | %12s |%-" + (7 * LAT + 1) + "s|%-" + (2 * RATE + 1) + "s|%n",
        "",
        "",
        "",
        center("latency (usec), " + latencyKind, 7 * LAT + 1),
        center("rate (per second)", 2 * RATE + 1));
    out.printf(
        ROW,
        "stage",
        "window",
        "# calls",
        "p50",
        "p90",
        "p99",
        "p99.9",
        "max",
        "average",
        "overall",
        "calls",
        "elements");
    out.println(RULE);
  }

  static void row(PrintStream out, String stage, BenchResult r) {
    LatencySummary l = r.latency();
    out.printf(
        ROW,
        stage,
        r.config().window(),
        String.format(Locale.ROOT, "%d", r.ops()),
        Figures.micros(l.p50()),
        Figures.micros(l.p90()),
        Figures.micros(l.p99()),
        Figures.micros(l.p999()),
        Figures.micros(l.max()),
        Figures.micros(l.mean()),
        Figures.micros(r.overallNanosPerOp()),
        String.format(Locale.ROOT, "%.0f", r.opsPerSecond()),
        String.format(Locale.ROOT, "%.0f", r.elementsPerSecond()));
  }

  static void footer(PrintStream out) {
    out.println(RULE);
  }

  private static String center(String s, int width) {
    int pad = Math.max(0, (width - s.length()) / 2);
    return " ".repeat(pad) + s;
  }
}
