package dev.fiucx.perf.bench;

/** A request bench cannot carry out as asked (exit status 2, one line). */
final class BenchUsageException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  BenchUsageException(String message) {
    super(message);
  }
}
