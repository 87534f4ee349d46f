package dev.fiucx.perf.bench;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * bench's options for what it reports and which extra runs it makes: CSV, JSON, the HTML page,
 * HdrHistogram's distribution, the plot, the percentiles shown, the window sweep and the comparison
 * with ucx_perftest. Those that are about one cell (the sweep, the comparison, the plot, the
 * distribution) are refused for a matrix.
 */
final class ReportOptions {
  @Option(
      names = "--csv",
      description =
          "print a CSV header and one row per run (per window of a sweep, per cell of a matrix) to"
              + " stdout (table: stderr)")
  boolean csv;

  @Option(
      names = "--json",
      paramLabel = "FILE",
      description = "write every input and figure (a matrix: the run's facts once, every cell)")
  Path json;

  @Option(
      names = "--html",
      paramLabel = "FILE",
      description =
          "write one self-contained page: ops by datatypes per family, each cell coloured by its"
              + " mechanism with its p50 and rate, the rest on hover")
  Path html;

  @Option(
      names = {"-R", "--percentiles"},
      paramLabel = "P[,P..]",
      description =
          "latency percentiles for the table, JSON and CSV, e.g. 50,99,99.99 (default 50,90,99,99.9;"
              + " a matrix's table: 50)")
  String percentiles;

  @Option(
      names = "--hgrm",
      paramLabel = "FILE",
      description = "write HdrHistogram's percentile distribution (microseconds)")
  Path hgrm;

  @Option(
      names = "--plot",
      paramLabel = "FILE.png",
      description = "draw the latency percentiles (with --sweep-window: rate against window)")
  Path plot;

  @Option(names = "--sweep-window", description = "run windows 1, 2, 4, ... up to -O, one run each")
  boolean sweepWindow;

  @Option(
      names = "--vs-ucx-perftest",
      description = "alternate rounds with ucx_perftest's matching test and print the ratios")
  boolean vsPerftest;

  @Option(
      names = "--perftest-test",
      paramLabel = "TEST",
      description =
          "with --vs-ucx-perftest: ucx_perftest's test to run beside the cell instead of its"
              + " counterpart (ucp_add, ucp_fadd, ucp_swap, ucp_cswap), so that any cell, e.g. an"
              + " emulated one, can be put beside UCX's native op")
  String perftestTest;

  @Option(
      names = "--rounds",
      paramLabel = "N",
      defaultValue = "3",
      description = "rounds of each with --vs-ucx-perftest, at least 3 (default ${DEFAULT-VALUE})")
  int rounds;

  /** The ranks of {@code -R}, or null for the defaults. */
  Percentiles ranks() {
    return percentiles == null ? null : Percentiles.parse(percentiles);
  }

  /**
   * What a matrix of {@code cells} cells refuses: the options about one cell, in one line.
   *
   * @throws BenchUsageException naming the first such option given
   */
  void checkMatrix(int cells, Path fetched) {
    String one =
        vsPerftest
            ? "--vs-ucx-perftest"
            : sweepWindow
                ? "--sweep-window"
                : plot != null
                    ? "--plot"
                    : hgrm != null ? "--hgrm" : fetched != null ? "--fetched" : null;
    if (one != null) {
      throw new BenchUsageException(
          one + " is about one cell; this selection has " + cells + " (one -o, -z and --family)");
    }
  }
}
