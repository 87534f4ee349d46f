package dev.fiucx.perf.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.DomainAttr;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.util.Collection;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The JMH harness works: one short iteration of a post-path benchmark runs in this JVM through the
 * Runner API (no fork), and afterwards every call has completed through the completion queue, each
 * completion named a call in flight, and every target element holds exactly what the calls made of
 * it. Correctness only: no time is judged.
 */
@RequiresProvider("ucx")
class JmhHarnessTest {
  @ParameterizedTest(name = "{0}.{1}, {2}, count {3}")
  @CsvSource({
    "FetchSumUint64, latency, MANUAL, 8",
    "FetchMinInt64, window, AUTO, 8",
  })
  void aBenchmarkRunsInProcessAndLeavesTheTargetExact(
      String benchmark, String method, DomainAttr.Progress progress, int count) throws Exception {
    PostPathBenchmark.lastTrial = null;
    Options options =
        new OptionsBuilder()
            .include(
                "^"
                    + PostPathBenchmark.class.getPackageName()
                    + "."
                    + benchmark
                    + "."
                    + method
                    + "$")
            .param("progress", progress.name())
            .param("count", Integer.toString(count))
            .forks(0)
            .warmupIterations(0)
            .measurementIterations(1)
            .measurementTime(TimeValue.milliseconds(300))
            .timeUnit(TimeUnit.NANOSECONDS)
            .shouldFailOnError(true)
            .addProfiler(WorkerAllocationProfiler.class)
            .build();
    Collection<RunResult> results = new Runner(options).run();

    assertEquals(1, results.size());
    Result<?> primary = results.iterator().next().getPrimaryResult();
    assertTrue(primary.getScore() > 0 && Double.isFinite(primary.getScore()), "score " + primary);
    Result<?> perElement = results.iterator().next().getSecondaryResults().get("elements");
    assertNotNull(perElement, "the per-element result");
    assertEquals(primary.getScore() / count, perElement.getScore(), primary.getScore() * 1e-9);
    assertNotNull(
        results.iterator().next().getSecondaryResults().get("alloc.worker.norm"),
        "the benchmark thread's allocation per call");

    PostPathBenchmark.TrialCheck check = PostPathBenchmark.lastTrial;
    assertNotNull(check, "the trial's check");
    assertNull(check.error());
    assertEquals(benchmark, check.benchmark());
    assertEquals(progress, check.progress());
    assertEquals(count, check.count());
    assertTrue(check.posted() > 0, "calls posted: " + check.posted());
    assertEquals(check.posted(), check.completed(), "every call completed through the CQ");
    assertEquals(PostPathBenchmark.WINDOW * count, check.elementsChecked());
  }
}
