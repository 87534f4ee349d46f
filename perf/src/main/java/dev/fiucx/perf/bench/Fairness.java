package dev.fiucx.perf.bench;

/**
 * How evenly initiators shared the target: the slowest rate over the fastest, and Jain's fairness
 * index {@code (sum x)^2 / (n * sum x^2)}, which is 1 when every rate is the same and 1/n when one
 * initiator had it all (R. Jain, D. Chiu, W. Hawe, DEC-TR-301, 1984).
 *
 * @param minOverMax the smallest rate divided by the largest (1 for one initiator; 0 when the
 *     largest is 0)
 * @param jain Jain's index over the rates (1 when they are all 0)
 */
record Fairness(double minOverMax, double jain) {
  /** Over {@code rates}, one per initiator; at least one. */
  static Fairness of(double[] rates) {
    if (rates.length == 0) {
      throw new IllegalArgumentException("fairness needs one rate at least");
    }
    double min = Double.POSITIVE_INFINITY;
    double max = 0;
    double sum = 0;
    double squares = 0;
    for (double x : rates) {
      min = Math.min(min, x);
      max = Math.max(max, x);
      sum += x;
      squares += x * x;
    }
    double jain = squares == 0 ? 1 : sum * sum / (rates.length * squares);
    return new Fairness(max == 0 ? 0 : min / max, jain);
  }
}
