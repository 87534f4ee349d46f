package dev.fiucx.perf.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * {@code --csv}: one header line, then one row per run: the run of one cell, each window of a
 * sweep, or each cell of a matrix (a cell that was not timed has its figures empty and says why in
 * {@code target_check}). Latencies in nanoseconds, durations in seconds, rates per second; the
 * percentile columns are those asked ({@code -R}), {@code p50_ns} .. {@code p99_9_ns} unless told
 * otherwise. Under bench -P a row per initiator and one for all of them, each with the columns of
 * {@link #PROCESS_COLUMNS} after the usual ones. docs/bench.md lists the columns.
 */
final class CsvLine {
  /** The columns with the default percentiles. */
  static final List<String> COLUMNS = columns(Percentiles.DEFAULT);

  /**
   * The columns bench -P adds after the usual ones: the row's initiator ({@code 0} .. N-1, or
   * {@code all}), its process id, its calls with the warm-up (all initiators' for {@code all}: what
   * the target saw), and the fairness over the initiators' rates (in the {@code all} row only).
   */
  static final List<String> PROCESS_COLUMNS =
      List.of("initiator", "pid", "calls_with_warmup", "min_over_max", "jain_index");

  private CsvLine() {}

  /** The columns of one process's runs, with {@code percentiles}' columns. */
  static List<String> columns(Percentiles percentiles) {
    return columns(percentiles, false);
  }

  /** The columns, with bench -P's {@link #PROCESS_COLUMNS} at the end when {@code processes}. */
  static List<String> columns(Percentiles percentiles, boolean processes) {
    List<String> c =
        new ArrayList<>(
            List.of(
                "family",
                "op",
                "datatype",
                "count",
                "window",
                "threads",
                "transport",
                "progress",
                "mechanism",
                "path",
                "ops",
                "elements",
                "seconds",
                "ops_per_s",
                "elements_per_s",
                "latency_kind"));
    for (int i = 0; i < percentiles.size(); i++) {
      c.add(percentiles.key(i) + "_ns");
    }
    c.addAll(List.of("max_ns", "mean_ns", "overall_ns_per_op", "target_check"));
    if (processes) {
      c.addAll(PROCESS_COLUMNS);
    }
    return List.copyOf(c);
  }

  static void header(PrintStream out, Percentiles percentiles) {
    header(out, percentiles, false);
  }

  /** The header line, with bench -P's columns when {@code processes}. */
  static void header(PrintStream out, Percentiles percentiles, boolean processes) {
    out.println(String.join(",", columns(percentiles, processes)));
  }

  /**
   * One timed run.
   *
   * @param mechanism how the cell is carried out ({@code NATIVE}, {@code CAS_LOOP}, {@code
   *     REMOTE_LOCK})
   * @param path the path its calls take ({@code mapped}, {@code ucp})
   */
  static void row(
      PrintStream out, Percentiles percentiles, String mechanism, String path, BenchResult r) {
    row(out, percentiles, mechanism, path, r, List.of());
  }

  /**
   * One timed run, then {@code more} (bench -P's {@link #PROCESS_COLUMNS}, already as CSV fields).
   */
  static void row(
      PrintStream out,
      Percentiles percentiles,
      String mechanism,
      String path,
      BenchResult r,
      List<String> more) {
    BenchConfig c = r.config();
    LatencySummary l = r.latency(percentiles);
    String check = !r.check().checked() ? "unchecked" : r.check().ok() ? "ok" : "wrong";
    if (r.error() != 0) {
      check = "failed";
    }
    List<String> cells = new ArrayList<>(leading(c, mechanism, path));
    cells.addAll(
        List.of(
            Long.toString(r.ops()),
            Long.toString(r.elements()),
            num(r.seconds()),
            num(r.opsPerSecond()),
            num(r.elementsPerSecond()),
            l.kindKey()));
    for (double v : l.values()) {
      cells.add(num(v));
    }
    cells.addAll(List.of(num(l.max()), num(l.mean()), num(r.overallNanosPerOp()), check));
    cells.addAll(more);
    out.println(String.join(",", cells));
  }

  /**
   * A matrix cell that was not timed: its coordinates, its mechanism when it has one, empty
   * figures, and {@code status} ({@code invalid}, {@code skipped}, {@code not run}) as its check.
   */
  static void untimed(
      PrintStream out, Percentiles percentiles, BenchConfig c, String mechanism, String status) {
    List<String> cells = new ArrayList<>(leading(c, mechanism, ""));
    cells.addAll(Collections.nCopies(6 + percentiles.size() + 3, ""));
    cells.add(status);
    out.println(String.join(",", cells));
  }

  private static List<String> leading(BenchConfig c, String mechanism, String path) {
    return List.of(
        c.family().label(),
        c.op().fiName(),
        c.datatype().fiName(),
        Integer.toString(c.count()),
        Integer.toString(c.window()),
        Integer.toString(c.threads()),
        quoted(c.transport()),
        c.progress().name().toLowerCase(Locale.ROOT),
        mechanism,
        quoted(path));
  }

  /** A figure with three decimals, as every figure of the CSV. */
  static String num(double v) {
    return String.format(Locale.ROOT, "%.3f", v);
  }

  /** A UCX_TLS list has commas: quote it as RFC 4180 does. */
  private static String quoted(String s) {
    return s.contains(",") || s.contains("\"") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
  }
}
