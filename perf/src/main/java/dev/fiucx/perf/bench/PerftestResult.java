package dev.fiucx.perf.bench;

import java.io.IOException;
import java.util.List;

/**
 * ucx_perftest's final line ({@code Final: iterations p50 avg-lat overall-lat avg-bw overall-bw
 * avg-rate overall-rate}). Its "average" columns cover only the last report interval and its
 * percentile only the last samples, so comparisons use the overall columns.
 *
 * @param p50Micros its 50th percentile latency (last samples only)
 * @param overallLatencyMicros the run's time per iteration
 * @param overallRate iterations per second over the whole run
 */
public record PerftestResult(
    long iterations,
    double p50Micros,
    double averageLatencyMicros,
    double overallLatencyMicros,
    double averageBandwidthMBs,
    double overallBandwidthMBs,
    double averageRate,
    double overallRate) {

  /** Parses the last {@code Final:} line of ucx_perftest's standard output. */
  static PerftestResult parse(List<String> stdout) throws IOException {
    for (int i = stdout.size() - 1; i >= 0; i--) {
      String line = stdout.get(i).trim();
      if (!line.startsWith("Final:")) {
        continue;
      }
      String[] w = line.substring("Final:".length()).trim().split("\\s+");
      if (w.length < 8) {
        throw new IOException("ucx_perftest's final line has " + w.length + " columns: " + line);
      }
      try {
        return new PerftestResult(
            Long.parseLong(w[0]),
            number(w[1]),
            number(w[2]),
            number(w[3]),
            number(w[4]),
            number(w[5]),
            number(w[6]),
            number(w[7]));
      } catch (NumberFormatException e) {
        throw new IOException("cannot read ucx_perftest's final line: " + line, e);
      }
    }
    throw new IOException("ucx_perftest printed no 'Final:' line");
  }

  /**
   * One column as C's printf wrote it: a number, or {@code inf}, {@code -inf}, {@code nan}, {@code
   * -nan} (an "average" over a last report interval that took no measurable time prints inf: seen
   * under an emulated CPU).
   */
  private static double number(String column) {
    return switch (column) {
      case "inf" -> Double.POSITIVE_INFINITY;
      case "-inf" -> Double.NEGATIVE_INFINITY;
      case "nan", "-nan" -> Double.NaN;
      default -> Double.parseDouble(column);
    };
  }
}
