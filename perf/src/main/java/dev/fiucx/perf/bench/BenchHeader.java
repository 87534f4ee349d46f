package dev.fiucx.perf.bench;

import java.io.PrintStream;
import java.util.Locale;

/** The lines bench prints before it measures: what runs, against what, on what. */
final class BenchHeader {
  private BenchHeader() {}

  static void print(PrintStream out, BenchConfig cfg, RunFacts facts) {
    String length =
        cfg.duration() == null
            ? String.format(Locale.ROOT, "%,d calls", cfg.iterations())
            : "for " + cfg.duration().toMillis() / 1e3 + " s";
    out.printf(
        "fiucx bench: %s, %d element%s per call, window %d, %d thread%s, %s per thread after %,d"
            + " to warm up%n",
        cfg.cellLabel(),
        cfg.count(),
        cfg.count() == 1 ? "" : "s",
        cfg.window(),
        cfg.threads(),
        cfg.threads() == 1 ? "" : "s",
        length,
        cfg.warmup());
    out.printf(
        "  %-10s %s%s%n",
        "target",
        facts.target(),
        facts.servedRegion() != null
            ? " (a fiucx serve: region "
                + facts.servedRegion()
                + ", shared with its other initiators)"
            : facts.targetStarted() ? " (a process bench started)" : "");
    out.printf(
        "  %-10s %s (queryAtomic: count %d, size %d%s)%n",
        "mechanism",
        facts.mechanismWord(),
        facts.attr().count(),
        facts.attr().size(),
        facts.attr().reason() == null || facts.attr().reason().isEmpty()
            ? ""
            : "; " + facts.attr().reason());
    out.printf(
        "  %-10s %s (%s)%n",
        "path",
        facts.mechanismWord(),
        facts.path().equals("mapped")
            ? "mapped: CPU atomics on the target's region, mapped into this process"
            : facts.path() + ": every atomic through UCX");
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
  }
}
