package dev.fiucx.perf.bench;

import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Once a second while a run measures, one line to stderr: time so far, calls so far, and the rate
 * over the last second, summed over the threads' published counters (read, never written here).
 */
final class ProgressLine implements AutoCloseable {
  private final AtomicLong[] counters;
  private final PrintStream out;
  private final Thread thread;
  private volatile boolean running = true;

  ProgressLine(AtomicLong[] counters, PrintStream out, String label) {
    this.counters = counters;
    this.out = out;
    this.thread =
        Thread.ofPlatform()
            .daemon()
            .name("fiucx-bench-progress")
            .start(() -> report(label, System.nanoTime()));
  }

  private void report(String label, long start) {
    long lastOps = 0;
    long lastNanos = start;
    while (running) {
      try {
        Thread.sleep(1000);
      } catch (InterruptedException e) {
        return;
      }
      if (!running) {
        return;
      }
      long now = System.nanoTime();
      long ops = 0;
      for (AtomicLong c : counters) {
        ops += c.get();
      }
      double rate = (ops - lastOps) / ((now - lastNanos) / 1e9);
      out.printf(
          "  %s %6.1f s %,15d ops %12s ops/s%n",
          label, (now - start) / 1e9, ops, Figures.rate(rate));
      lastOps = ops;
      lastNanos = now;
    }
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
  }
}
