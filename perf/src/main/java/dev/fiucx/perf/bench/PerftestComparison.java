package dev.fiucx.perf.bench;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * fiucx against ucx_perftest, round by round in one run (fiucx, perftest, fiucx, perftest, ...), as
 * ratios fiucx/perftest: latency (the overall time per call of each, as ucx_perftest's "overall"
 * column defines it) and rate (calls per second over the whole run). Below 1.0 fiucx is faster in
 * latency; above 1.0 it is faster in rate. fiucx's overall figures come from a clock-free run right
 * after the recorded one (the clock read only at its start and end): Java's clock costs a whole
 * shared-memory call per read here, while ucx_perftest reads the TSC.
 */
record PerftestComparison(
    PerftestMatch match, String ucxTls, int window, long iterations, List<Round> rounds) {

  /**
   * One fiucx run recorded (its percentiles and target check), the same run clock-free (its overall
   * figures), and the ucx_perftest run after them.
   */
  record Round(int round, BenchResult fiucx, BenchResult clockFree, PerftestResult perftest) {
    double latencyRatio() {
      return clockFree.overallNanosPerOp() / 1e3 / perftest.overallLatencyMicros();
    }

    double rateRatio() {
      return clockFree.opsPerSecond() / perftest.overallRate();
    }
  }

  /** Smallest, median and largest of the rounds' ratios. */
  record Spread(double min, double median, double max) {
    static Spread of(double[] values) {
      double[] v = values.clone();
      Arrays.sort(v);
      int n = v.length;
      double median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
      return new Spread(v[0], median, v[n - 1]);
    }

    String text() {
      return String.format(
          Locale.ROOT,
          "median %s (min %s, max %s)",
          Figures.ratio(median),
          Figures.ratio(min),
          Figures.ratio(max));
    }
  }

  Spread latency() {
    return Spread.of(rounds.stream().mapToDouble(Round::latencyRatio).toArray());
  }

  Spread rate() {
    return Spread.of(rounds.stream().mapToDouble(Round::rateRatio).toArray());
  }

  /** With one call in flight the comparison is about latency, otherwise about rate. */
  String mode() {
    return window == 1 ? "latency" : "rate";
  }

  void print(PrintStream out) {
    out.printf(
        "%nvs ucx_perftest -t %s -s %d -O %d (UCX_TLS=%s), %d rounds each, alternating; %s mode%n",
        match.test(), match.size(), window, ucxTls, rounds.size(), mode());
    out.printf(
        "  %-5s %14s %14s %9s %14s %14s %9s%n",
        "round",
        "fiucx us/call",
        "perftest us",
        "lat ratio",
        "fiucx calls/s",
        "perftest /s",
        "rate ratio");
    for (Round r : rounds) {
      out.printf(
          "  %-5d %14s %14.3f %9s %14s %14s %9s%n",
          r.round(),
          Figures.micros(r.clockFree().overallNanosPerOp()),
          r.perftest().overallLatencyMicros(),
          Figures.ratio(r.latencyRatio()),
          Figures.rate(r.clockFree().opsPerSecond()),
          Figures.rate(r.perftest().overallRate()),
          Figures.ratio(r.rateRatio()));
    }
    out.println("  latency fiucx/ucx_perftest: " + latency().text());
    out.println("  rate    fiucx/ucx_perftest: " + rate().text());
  }
}
