package dev.fiucx.cli;

import dev.fiucx.conformance.remote.FaultRun;
import dev.fiucx.conformance.remote.FaultRun.Fault;
import dev.fiucx.conformance.remote.FaultRun.Result;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code fiucx soak --faults}: every fault of {@link FaultRun} in turn, again and again, until the
 * time is up (a run in progress finishes); a line per run, then a table per fault: runs,
 * operations, their outcomes, the longest operation and the largest recovery time, and what broke.
 */
final class FaultSoak {
  private FaultSoak() {}

  /**
   * Runs {@code faults} in turn for {@code minutes}; returns 0 when every check of every run held,
   * else 1.
   */
  static int run(double minutes, List<Fault> faults, PrintStream out) throws Exception {
    if (!FaultRun.available()) {
      out.println("soak --faults: needs root and iproute2 (network namespaces, iptables, signals)");
      return 1;
    }
    long deadline = System.nanoTime() + (long) (minutes * 60e9);
    Path dir = Files.createTempDirectory("fiucx-faults");
    Map<Fault, List<Result>> results = new EnumMap<>(Fault.class);
    out.printf(
        "soak --faults: %d faults in turn for %.1f min, %d initiators each run%n",
        faults.size(), minutes, FaultRun.INITIATORS);
    int i = 0;
    do {
      Fault fault = faults.get(i++ % faults.size());
      Result r = FaultRun.run(fault, dir);
      results.computeIfAbsent(fault, f -> new ArrayList<>()).add(r);
      out.printf(
          Locale.ROOT,
          "  %-30s %8d ops %8d ok %4d failed %4d uncertain, longest %6d ms, again after %6d ms,"
              + " target %+d KiB%s%n",
          fault.title(),
          r.operations(),
          r.ok(),
          r.failed(),
          r.uncertain(),
          r.longestMillis(),
          r.recoveryMillis(),
          r.targetRssGrowthKib(),
          r.violations().isEmpty() ? "" : ": " + String.join("; ", r.violations()));
    } while (System.nanoTime() - deadline < 0);
    Files.deleteIfExists(dir);
    return table(results, out) ? 0 : 1;
  }

  /** Prints the table; returns whether every check held. */
  private static boolean table(Map<Fault, List<Result>> results, PrintStream out) {
    out.println();
    out.println(
        "| fault | transport | runs | operations | ok | failed | uncertain | longest op | largest"
            + " recovery | checks |");
    out.println("|---|---|---|---|---|---|---|---|---|---|");
    boolean held = true;
    long[] total = new long[5];
    long recoveryMax = 0;
    for (Map.Entry<Fault, List<Result>> e : results.entrySet()) {
      List<Result> rs = e.getValue();
      long ops = rs.stream().mapToLong(Result::operations).sum();
      long ok = rs.stream().mapToLong(Result::ok).sum();
      long failed = rs.stream().mapToLong(Result::failed).sum();
      long uncertain = rs.stream().mapToLong(Result::uncertain).sum();
      long longest = rs.stream().mapToLong(Result::longestMillis).max().orElse(0);
      long recovery = rs.stream().mapToLong(Result::recoveryMillis).max().orElse(0);
      long broken = rs.stream().filter(r -> !r.violations().isEmpty()).count();
      held &= broken == 0;
      total[0] += rs.size();
      total[1] += ops;
      total[2] += ok;
      total[3] += failed;
      total[4] += uncertain;
      recoveryMax = Math.max(recoveryMax, recovery);
      out.printf(
          Locale.ROOT,
          "| %s | %s | %d | %,d | %,d | %,d | %,d | %,d ms | %,d ms | %s |%n",
          e.getKey().title(),
          e.getKey().transport(),
          rs.size(),
          ops,
          ok,
          failed,
          uncertain,
          longest,
          recovery,
          broken == 0 ? "held" : broken + " runs broke");
    }
    out.printf(
        Locale.ROOT,
        "| all | | %d | %,d | %,d | %,d | %,d | | %,d ms | %s |%n",
        total[0],
        total[1],
        total[2],
        total[3],
        total[4],
        recoveryMax,
        held ? "held: nothing lost, nothing twice" : "BROKEN");
    return held;
  }
}
