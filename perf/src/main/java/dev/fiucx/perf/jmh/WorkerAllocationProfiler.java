package dev.fiucx.perf.jmh;

import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * A JMH profiler ({@code -prof dev.fiucx.perf.jmh.WorkerAllocationProfiler}; {@code fiucx jmh} adds
 * it) that reports {@code alloc.worker.norm}: the bytes the benchmark thread allocated per call, as
 * {@link WorkerAllocation} measured them, for the benchmarks that take that state (the post path
 * and {@code SemanticsBenchmark.apply}). Beside {@code -prof gc}'s {@code gc.alloc.rate.norm},
 * which counts every thread.
 */
public final class WorkerAllocationProfiler implements InternalProfiler {
  @Override
  public String getDescription() {
    return "bytes the benchmark thread allocates per call (fiucx post-path benchmarks)";
  }

  @Override
  public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
    WorkerAllocation.take();
  }

  @Override
  public Collection<? extends Result> afterIteration(
      BenchmarkParams benchmarkParams, IterationParams iterationParams, IterationResult result) {
    WorkerAllocation.Totals t = WorkerAllocation.take();
    if (t.calls() == 0) {
      return List.of();
    }
    return List.of(
        new ScalarResult(
            "alloc.worker.norm", (double) t.bytes() / t.calls(), "B/op", AggregationPolicy.AVG));
  }
}
