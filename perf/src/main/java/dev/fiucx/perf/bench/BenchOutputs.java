package dev.fiucx.perf.bench;

import java.nio.file.Path;

/**
 * What a bench run writes besides its table, and which extra runs it makes.
 *
 * @param csv print one CSV header and row to stdout (the table then goes to stderr)
 * @param json the JSON report's file, or null
 * @param hgrm HdrHistogram's percentile distribution's file, or null
 * @param plot a PNG plot's file, or null
 * @param sweepWindow run windows 1, 2, 4, ... up to the window, one run each
 * @param vsPerftest the ucx_perftest test to alternate rounds with ({@code --vs-ucx-perftest}), or
 *     null
 * @param rounds rounds of each when comparing
 * @param html the page's file ({@code --html}), or null
 * @param percentiles the ranks asked ({@code -R}), or null for the defaults (p50, p90, p99, p99.9
 *     for one cell; p50 in a matrix's table)
 */
record BenchOutputs(
    boolean csv,
    Path json,
    Path hgrm,
    Path plot,
    boolean sweepWindow,
    PerftestMatch vsPerftest,
    int rounds,
    Path html,
    Percentiles percentiles) {

  /** The ranks of a run's table, JSON and CSV: those asked, else p50, p90, p99 and p99.9. */
  Percentiles ranks() {
    return percentiles != null ? percentiles : Percentiles.DEFAULT;
  }

  /** The ranks of a matrix's table and page: those asked, else p50. */
  Percentiles matrixRanks() {
    return percentiles != null ? percentiles : Percentiles.MEDIAN;
  }

  /** Whether ucx_perftest runs beside fiucx ({@code --vs-ucx-perftest}). */
  boolean comparesWithPerftest() {
    return vsPerftest != null;
  }
}
