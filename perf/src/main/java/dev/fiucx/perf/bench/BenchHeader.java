package dev.fiucx.perf.bench;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/** The lines bench prints before it measures: what runs, against what, on what. */
final class BenchHeader {
  private BenchHeader() {}

  /**
   * One cell's header.
   *
   * @param cpus the CPUs the measuring threads pin themselves to, or null
   */
  static void print(PrintStream out, BenchConfig cfg, RunFacts facts, CpuSet cpus) {
    out.printf("fiucx bench: %s, %s%n", cfg.cellLabel(), shape(cfg, ""));
    target(out, facts);
    out.printf(
        "  %-10s %s (queryAtomic: count %d, size %d%s)%n",
        "mechanism",
        facts.mechanismWord(),
        facts.attr().count(),
        facts.attr().size(),
        facts.attr().reason() == null || facts.attr().reason().isEmpty()
            ? ""
            : "; " + facts.attr().reason());
    out.printf("  %-10s %s (%s)%n", "path", facts.mechanismWord(), pathWords(facts));
    common(out, cfg, facts, cpus);
  }

  /**
   * A matrix's header: the selection and the run's shape, then the facts every cell shares (the
   * mechanism is each cell's, in the table).
   */
  static void printMatrix(
      PrintStream out,
      BenchConfig cfg,
      RunFacts facts,
      CellSelection selection,
      List<MatrixCell> plan,
      CpuSet cpus) {
    long valid = plan.stream().filter(MatrixCell::valid).count();
    out.printf(
        "fiucx bench: %d cells (%s): %d valid, %d invalid; %s%n",
        plan.size(), selection.describe(), valid, plan.size() - valid, shape(cfg, " per cell"));
    target(out, facts);
    out.printf("  %-10s %s%n", "path", pathWords(facts));
    common(out, cfg, facts, cpus);
  }

  /** {@code 1 element per call, window 1, 1 thread, 100,000 calls per thread after ...}. */
  private static String shape(BenchConfig cfg, String each) {
    String length =
        cfg.duration() == null
            ? String.format(Locale.ROOT, "%,d calls", cfg.iterations())
            : "for " + cfg.duration().toMillis() / 1e3 + " s";
    return String.format(
        Locale.ROOT,
        "%d element%s per call, window %d, %d thread%s, %s per thread%s after %,d to warm up",
        cfg.count(),
        cfg.count() == 1 ? "" : "s",
        cfg.window(),
        cfg.threads(),
        cfg.threads() == 1 ? "" : "s",
        length,
        each,
        cfg.warmup());
  }

  private static void target(PrintStream out, RunFacts facts) {
    out.printf("  %-10s %s%n", "target", targetWords(facts));
  }

  /** The target and what it is, as the header and the page say it. */
  static String targetWords(RunFacts facts) {
    return facts.target()
        + (facts.servedRegion() != null && facts.targetStarted()
            ? " (a serve bench runs in its own process: region " + facts.servedRegion() + ")"
            : facts.servedRegion() != null
                ? " (a fiucx serve: region "
                    + facts.servedRegion()
                    + ", shared with its other initiators)"
                : facts.targetStarted() ? " (a process bench started)" : "");
  }

  private static String pathWords(RunFacts facts) {
    return facts.path().equals("mapped")
        ? "mapped: CPU atomics on the target's region, mapped into this process"
        : facts.path() + ": every atomic through UCX";
  }

  /** UCX, its series, the lanes, the machine and, when asked, the pinning. */
  private static void common(PrintStream out, BenchConfig cfg, RunFacts facts, CpuSet cpus) {
    out.printf(
        "  %-10s %s, UCX_TLS %s, atomic mode %s, progress %s, threading %s%s%n",
        "ucx",
        facts.ucxVersion(),
        facts.ucxTls(),
        facts.domain().getOrDefault("ucx.atomic_mode", "?"),
        cfg.progress().name().toLowerCase(Locale.ROOT),
        cfg.domainAttr().threading().name().toLowerCase(Locale.ROOT),
        cfg.directPath() == null ? "" : ", direct_path " + cfg.directPath());
    // the series as the provider judges it (proven or not) and the protocols UCX runs
    if (facts.domain().containsKey("ucx.series")) {
      out.printf(
          "  %-10s %s; protocols %s%n",
          "series",
          facts.domain().get("ucx.series"),
          facts.domain().getOrDefault("ucx.protocols", "?"));
    }
    // one line per lane: UCX describes each with its transport, device and what it carries
    facts.lanes().values().stream()
        .flatMap(v -> java.util.Arrays.stream(v.split(";\\s*")))
        .forEach(lane -> out.printf("  %-10s %s%n", "lane", lane));
    out.printf(
        "  %-10s %s, %s cores, %s, %s%n",
        "machine",
        facts.machine().get("host"),
        facts.machine().get("cores"),
        facts.machine().get("os"),
        facts.machine().get("jdk"));
    if (cpus != null) {
      out.printf(
          "  %-10s each measuring thread on CPUs %s (sched_setaffinity; the target and the JVM's"
              + " other threads unpinned)%n",
          "pinning", cpus);
    }
  }
}
