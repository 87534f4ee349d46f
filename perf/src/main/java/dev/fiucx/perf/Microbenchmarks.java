package dev.fiucx.perf;

import dev.fiucx.perf.jmh.WorkerAllocationProfiler;
import java.util.List;

/**
 * The JMH microbenchmarks of {@code dev.fiucx.perf.jmh}, run by JMH's own command line: what {@code
 * fiucx jmh} starts. JMH finds the benchmarks and starts its forks by class path, so a run belongs
 * on the class path.
 */
public final class Microbenchmarks {
  /**
   * The JMH profiler ({@code -prof NAME}) whose {@code alloc.worker.norm} counts the benchmark
   * thread's allocations alone, where {@code -prof gc} counts every thread's.
   */
  public static final String WORKER_ALLOCATION_PROFILER = WorkerAllocationProfiler.class.getName();

  private Microbenchmarks() {}

  /**
   * Runs JMH's command line ({@code org.openjdk.jmh.Main}) with {@code args}, e.g. {@code -l},
   * {@code -prof gc -f 1 FetchSumUint64.latency}.
   *
   * @param args JMH's arguments
   * @throws Exception what JMH throws: a bad option, a benchmark that failed
   */
  public static void run(List<String> args) throws Exception {
    org.openjdk.jmh.Main.main(args.toArray(String[]::new));
  }
}
