package dev.fiucx.perf.bench;

import java.util.Arrays;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * What one measured run gave.
 *
 * @param opsPerThread calls each thread completed while measuring
 * @param callsPerThread calls each thread made in all, warm-up included (what the target saw)
 * @param seconds from the moment every thread started measuring to the moment the last finished
 * @param histogram every sample of every thread
 * @param error 0, or the negative fi_errno that stopped a thread
 * @param check what the target's region held afterwards
 * @param cpusAllowed each measuring thread's {@code Cpus_allowed_list}, read by the thread itself
 *     after it was pinned ({@code -c}); empty when nothing was pinned
 * @param startNanos when the first thread started measuring ({@code System.nanoTime}: the host's
 *     monotonic clock, which every process of the host shares)
 * @param endNanos when the last thread finished measuring, on the same clock
 */
record BenchResult(
    BenchConfig config,
    long[] opsPerThread,
    long[] callsPerThread,
    double seconds,
    Histogram histogram,
    int error,
    TargetCheck check,
    List<String> cpusAllowed,
    long startNanos,
    long endNanos) {

  /** Calls completed while measuring, all threads. */
  long ops() {
    return Arrays.stream(opsPerThread).sum();
  }

  long elements() {
    return ops() * config.count();
  }

  double opsPerSecond() {
    return seconds > 0 ? ops() / seconds : 0;
  }

  double elementsPerSecond() {
    return seconds > 0 ? elements() / seconds : 0;
  }

  /**
   * ucx_perftest's "overall" latency: the run's time divided by one thread's calls, in ns (with a
   * window of 1 the mean round trip, otherwise the mean time per call).
   */
  double overallNanosPerOp() {
    long ops = ops();
    return ops > 0 ? seconds * 1e9 * config.threads() / ops : 0;
  }

  /** The latency figures at the default ranks (p50, p90, p99, p99.9). */
  LatencySummary latency() {
    return latency(Percentiles.DEFAULT);
  }

  LatencySummary latency(Percentiles percentiles) {
    return LatencySummary.of(histogram, config.window() == 1, percentiles);
  }
}
