package dev.fiucx.perf.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The files of one cell's run besides its JSON and CSV: the page ({@code --html}, one cell of
 * {@link MatrixPage}), HdrHistogram's percentile distribution ({@code --hgrm}) and the plot ({@code
 * --plot}); of a run in one process and of bench -P's, whose figures are every initiator's added up
 * and whose plot and page add each initiator's.
 */
final class RunFiles {
  private RunFiles() {}

  /**
   * The facts at the top of the page: what ran, against what, on what.
   *
   * @param cells the cell, or a matrix's selection, in words
   * @param cpus the CPUs each measuring thread is pinned to, or null
   */
  static Map<String, String> pageFacts(BenchConfig cfg, RunFacts facts, String cells, CpuSet cpus) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("fiucx", facts.machine().get("fiucx"));
    m.put(
        "machine",
        String.join(
            ", ",
            facts.machine().get("host"),
            facts.machine().get("cores") + " cores",
            facts.machine().get("os"),
            facts.machine().get("jdk")));
    m.put("cells", cells);
    m.put(
        "calls",
        String.format(
            Locale.ROOT,
            "%d element%s per call, window %d, %d thread%s, %s after %d to warm up",
            cfg.count(),
            cfg.count() == 1 ? "" : "s",
            cfg.window(),
            cfg.threads(),
            cfg.threads() == 1 ? "" : "s",
            cfg.duration() == null
                ? cfg.iterations() + " calls per thread"
                : cfg.duration().toMillis() / 1e3 + " s",
            cfg.warmup()));
    m.put("target", BenchHeader.targetWords(facts));
    m.put(
        "ucx",
        String.join(
            ", ",
            facts.ucxVersion(),
            "UCX_TLS " + facts.ucxTls(),
            "progress " + cfg.progress().name().toLowerCase(Locale.ROOT),
            "threading " + cfg.domainAttr().threading().name().toLowerCase(Locale.ROOT)));
    m.put("path", facts.path());
    m.put("pinning", cpus == null ? "none" : "each measuring thread on CPUs " + cpus);
    return m;
  }

  /**
   * Writes what {@code outputs} asks of these: the page, the distribution, the plot.
   *
   * @param cfg the run's configuration (one process's)
   * @param page the page's facts ({@link #pageFacts})
   * @param main the run the files show (the last of a sweep or a comparison; bench -P's: all
   *     initiators')
   * @param sweep a window sweep's runs, plotted as the rate against the window, or null
   * @param curves the latency curves to plot (bench -P: all initiators' and each one's), or null
   *     for {@code main}'s alone
   * @param who words the plot's title ends with (bench -P: how many initiators), or empty
   */
  static void write(
      BenchOutputs outputs,
      BenchConfig cfg,
      RunFacts facts,
      Map<String, String> page,
      BenchResult main,
      List<BenchResult> sweep,
      List<PlotWriter.Curve> curves,
      String who)
      throws IOException {
    if (outputs.html() != null) {
      MatrixPage.write(
          outputs.html(),
          page,
          List.of(MatrixCell.timed(cfg, facts.attr(), main)),
          outputs.matrixRanks());
    }
    if (outputs.hgrm() != null) {
      try (PrintStream out =
          new PrintStream(Files.newOutputStream(outputs.hgrm()), true, "UTF-8")) {
        // values are nanoseconds; HdrHistogram's tools expect the unit of the plot: microseconds
        main.histogram().outputPercentileDistribution(out, 1000.0);
      }
    }
    if (outputs.plot() != null) {
      String title =
          cfg.cellLabel() + " over " + cfg.transport() + ", " + facts.mechanismWord() + who;
      if (sweep != null) {
        PlotWriter.rateAgainstWindow(outputs.plot(), sweep, title);
      } else {
        PlotWriter.percentiles(
            outputs.plot(),
            title + ", window " + cfg.window(),
            main.latency().kind(),
            curves != null ? curves : List.of(new PlotWriter.Curve("latency", main.histogram())));
      }
    }
  }
}
