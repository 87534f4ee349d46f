package dev.fiucx.perf.bench;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * The latency percentiles a report shows: {@code -R/--percentiles 50,99,99.99} (ucx_perftest's
 * {@code -R} takes one rank; this takes a list), else p50, p90, p99 and p99.9 for one cell and p50
 * for a matrix. The same list heads the table's columns, names the JSON's keys ({@code p99_99}) and
 * the CSV's columns ({@code p99_99_ns}).
 *
 * @param ranks ascending, distinct, each above 0 and at most 100
 */
record Percentiles(List<Double> ranks) {
  /** What one cell's table, JSON and CSV show unless told otherwise. */
  static final Percentiles DEFAULT = new Percentiles(List.of(50.0, 90.0, 99.0, 99.9));

  /** What a matrix's table shows unless told otherwise. */
  static final Percentiles MEDIAN = new Percentiles(List.of(50.0));

  Percentiles {
    ranks = List.copyOf(ranks);
  }

  /**
   * The ranks of {@code list} ({@code 50,99,99.99}), sorted and without repeats.
   *
   * @throws BenchUsageException for anything but numbers above 0 and at most 100
   */
  static Percentiles parse(String list) {
    double[] ranks;
    try {
      ranks =
          Arrays.stream(list.split(",", -1))
              .map(String::trim)
              .mapToDouble(Double::parseDouble)
              .sorted()
              .distinct()
              .toArray();
    } catch (NumberFormatException e) {
      throw new BenchUsageException(
          "-R/--percentiles takes ranks such as 50,99,99.99, not '" + list + "'");
    }
    for (double r : ranks) {
      if (!(r > 0 && r <= 100)) {
        throw new BenchUsageException(
            "-R/--percentiles: a rank is above 0 and at most 100, not " + plain(r));
      }
    }
    return new Percentiles(Arrays.stream(ranks).boxed().toList());
  }

  int size() {
    return ranks.size();
  }

  /** The column head of rank {@code i}: {@code p50}, {@code p99.9}. */
  String head(int i) {
    return "p" + plain(ranks.get(i));
  }

  /** The JSON key of rank {@code i}: {@code p50}, {@code p99_9}. */
  String key(int i) {
    return head(i).replace('.', '_');
  }

  /** The ranks as given to {@code -R}: {@code 50,99,99.99}. */
  String text() {
    return String.join(",", ranks.stream().map(Percentiles::plain).toList());
  }

  /** Each rank's value in {@code h} (0 for an empty histogram). */
  double[] of(Histogram h) {
    double[] v = new double[ranks.size()];
    if (h.getTotalCount() > 0) {
      for (int i = 0; i < v.length; i++) {
        v[i] = h.getValueAtPercentile(ranks.get(i));
      }
    }
    return v;
  }

  /** 50.0 as 50, 99.9 as 99.9. */
  static String plain(double rank) {
    return BigDecimal.valueOf(rank).stripTrailingZeros().toPlainString();
  }
}
