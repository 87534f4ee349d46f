package dev.fiucx.perf.bench;

import org.HdrHistogram.Histogram;

/**
 * The latency figures of a run, in nanoseconds, taken from every sample (not a last-N window).
 *
 * @param roundTrip true when a sample is one call's round trip (window 1), false when it is the
 *     time per call with several in flight
 */
record LatencySummary(
    boolean roundTrip,
    long samples,
    double p50,
    double p90,
    double p99,
    double p999,
    double max,
    double mean) {

  static LatencySummary of(Histogram h, boolean roundTrip) {
    if (h.getTotalCount() == 0) {
      return new LatencySummary(roundTrip, 0, 0, 0, 0, 0, 0, 0);
    }
    return new LatencySummary(
        roundTrip,
        h.getTotalCount(),
        h.getValueAtPercentile(50),
        h.getValueAtPercentile(90),
        h.getValueAtPercentile(99),
        h.getValueAtPercentile(99.9),
        h.getMaxValue(),
        h.getMean());
  }

  /** What the latency column says a sample is. */
  String kind() {
    return roundTrip ? "round trip" : "per op";
  }

  /** The same in JSON and CSV. */
  String kindKey() {
    return roundTrip ? "round_trip" : "per_op";
  }
}
