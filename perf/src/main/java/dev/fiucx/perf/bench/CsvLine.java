package dev.fiucx.perf.bench;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/** {@code --csv}: one header line and one row per run, latencies in nanoseconds. */
final class CsvLine {
  static final List<String> COLUMNS =
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
          "latency_kind",
          "p50_ns",
          "p90_ns",
          "p99_ns",
          "p99_9_ns",
          "max_ns",
          "mean_ns",
          "overall_ns_per_op",
          "target_check");

  private CsvLine() {}

  static void header(PrintStream out) {
    out.println(String.join(",", COLUMNS));
  }

  static void row(PrintStream out, RunFacts facts, BenchResult r) {
    BenchConfig c = r.config();
    LatencySummary l = r.latency();
    String check = !r.check().checked() ? "unchecked" : r.check().ok() ? "ok" : "wrong";
    out.println(
        String.join(
            ",",
            c.family().label(),
            c.op().fiName(),
            c.datatype().fiName(),
            Integer.toString(c.count()),
            Integer.toString(c.window()),
            Integer.toString(c.threads()),
            quoted(c.transport()),
            c.progress().name().toLowerCase(Locale.ROOT),
            facts.attr().mechanism().name(),
            quoted(facts.path()),
            Long.toString(r.ops()),
            Long.toString(r.elements()),
            num(r.seconds()),
            num(r.opsPerSecond()),
            num(r.elementsPerSecond()),
            l.kindKey(),
            num(l.p50()),
            num(l.p90()),
            num(l.p99()),
            num(l.p999()),
            num(l.max()),
            num(l.mean()),
            num(r.overallNanosPerOp()),
            check));
  }

  private static String num(double v) {
    return String.format(Locale.ROOT, "%.3f", v);
  }

  /** A UCX_TLS list has commas: quote it as RFC 4180 does. */
  private static String quoted(String s) {
    return s.contains(",") || s.contains("\"") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
  }
}
