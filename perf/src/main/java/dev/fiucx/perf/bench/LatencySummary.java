package dev.fiucx.perf.bench;

import org.HdrHistogram.Histogram;

/**
 * The latency figures of a run, in nanoseconds, taken from every sample (not a last-N window).
 *
 * @param roundTrip true when a sample is one call's round trip (window 1), false when it is the
 *     time per call with several in flight
 * @param percentiles the ranks of {@code values}
 * @param values the value at each rank of {@code percentiles}
 * @param p50 the median, whatever the ranks asked (the comparison with ucx_perftest reports it)
 */
record LatencySummary(
    boolean roundTrip,
    long samples,
    Percentiles percentiles,
    double[] values,
    double p50,
    double max,
    double mean) {

  static LatencySummary of(Histogram h, boolean roundTrip, Percentiles percentiles) {
    if (h.getTotalCount() == 0) {
      return new LatencySummary(roundTrip, 0, percentiles, new double[percentiles.size()], 0, 0, 0);
    }
    return new LatencySummary(
        roundTrip,
        h.getTotalCount(),
        percentiles,
        percentiles.of(h),
        h.getValueAtPercentile(50),
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
