package dev.fiucx.perf.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The final table, in ucx_perftest's spirit: latency percentiles of every sample, average, the
 * overall time per call, and the overall rate in calls and elements per second; one row per run
 * (one, or one per window of a sweep, or one per round). The percentile columns are those asked
 * ({@code -R}), p50, p90, p99 and p99.9 unless told otherwise.
 */
final class ResultTable {
  /** Width of a latency column: room for tcp's tails in microseconds. */
  static final int LAT = 11;

  static final int RATE = 13;

  private final Percentiles percentiles;

  /** Latency columns: the percentiles, max, average, overall. */
  private final int latencyColumns;

  private final String row;
  private final String rule;

  ResultTable(Percentiles percentiles) {
    this.percentiles = percentiles;
    this.latencyColumns = percentiles.size() + 3;
    this.row =
        "| %-7s | %6s | %12s |"
            + ("%" + LAT + "s").repeat(latencyColumns)
            + " |"
            + "%"
            + RATE
            + "s%"
            + RATE
            + "s |%n";
    this.rule =
        "+---------+--------+--------------+"
            + "-".repeat(latencyColumns * LAT + 1)
            + "+"
            + "-".repeat(2 * RATE + 1)
            + "+";
  }

  /**
   * @param latencyKind what a latency sample is: "round trip", "per op", or both for a sweep
   */
  void header(PrintStream out, String latencyKind) {
    out.println(rule);
    out.printf(
        "| %-7s | %6s | %12s |%-" + (latencyColumns * LAT + 1) + "s|%-" + (2 * RATE + 1) + "s|%n",
        "",
        "",
        "",
        center("latency (usec), " + latencyKind, latencyColumns * LAT + 1),
        center("rate (per second)", 2 * RATE + 1));
    List<Object> heads = new ArrayList<>(List.of("stage", "window", "# calls"));
    for (int i = 0; i < percentiles.size(); i++) {
      heads.add(percentiles.head(i));
    }
    heads.addAll(List.of("max", "average", "overall", "calls", "elements"));
    out.printf(row, heads.toArray());
    out.println(rule);
  }

  void row(PrintStream out, String stage, BenchResult r) {
    LatencySummary l = r.latency(percentiles);
    List<Object> cells =
        new ArrayList<>(
            List.of(stage, r.config().window(), String.format(Locale.ROOT, "%d", r.ops())));
    for (double v : l.values()) {
      cells.add(Figures.micros(v));
    }
    cells.add(Figures.micros(l.max()));
    cells.add(Figures.micros(l.mean()));
    cells.add(Figures.micros(r.overallNanosPerOp()));
    cells.add(String.format(Locale.ROOT, "%.0f", r.opsPerSecond()));
    cells.add(String.format(Locale.ROOT, "%.0f", r.elementsPerSecond()));
    out.printf(row, cells.toArray());
  }

  void footer(PrintStream out) {
    out.println(rule);
  }

  static String center(String s, int width) {
    int pad = Math.max(0, (width - s.length()) / 2);
    return " ".repeat(pad) + s;
  }
}
