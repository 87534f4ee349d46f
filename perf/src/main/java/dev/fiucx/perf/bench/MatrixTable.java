package dev.fiucx.perf.bench;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiOp;
import dev.fiucx.conformance.report.OpMatrix;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A matrix run's table: one row per valid cell in the table's order (family, op, datatype), its
 * mechanism, latency percentiles (p50 unless {@code -R} says otherwise), rate, and target check;
 * then the invalid cells, grouped by family and op, and a count of each outcome.
 */
final class MatrixTable {
  private static final int LAT = 12;
  private static final int RATE = 13;

  private final Percentiles percentiles;
  private final String row;
  private final String rule;

  MatrixTable(Percentiles percentiles) {
    this.percentiles = percentiles;
    this.row =
        "| %-7s | %-15s | %-22s | %-6s |"
            + ("%" + LAT + "s").repeat(percentiles.size())
            + " |%"
            + RATE
            + "s%"
            + RATE
            + "s | %-9s |%n";
    this.rule =
        "+---------+-----------------+------------------------+--------+"
            + "-".repeat(percentiles.size() * LAT + 1)
            + "+"
            + "-".repeat(2 * RATE + 1)
            + "+-----------+";
  }

  void print(PrintStream out, List<MatrixCell> cells) {
    out.println();
    out.println(rule);
    List<Object> heads = new ArrayList<>(List.of("family", "op", "datatype", "mech."));
    for (int i = 0; i < percentiles.size(); i++) {
      heads.add(percentiles.head(i) + " us");
    }
    heads.addAll(List.of("calls/s", "elements/s", "check"));
    out.printf(row, heads.toArray());
    out.println(rule);
    for (MatrixCell c : cells) {
      if (c.valid()) {
        row(out, c);
      }
    }
    out.println(rule);
    BenchResult any =
        cells.stream()
            .filter(c -> c.result() != null)
            .map(MatrixCell::result)
            .findFirst()
            .orElse(null);
    if (any != null) {
      out.println(
          "latency: "
              + (any.config().window() == 1
                  ? "each call's round trip (one in flight)"
                  : "time per call with " + any.config().window() + " in flight")
              + ", in microseconds, over every sample of every thread; rate: calls and elements"
              + " per second, all threads");
    }
    invalid(out, cells);
    out.println(summary(cells));
  }

  private void row(PrintStream out, MatrixCell c) {
    BenchConfig cfg = c.cfg();
    List<Object> cells =
        new ArrayList<>(
            List.of(
                cfg.family().label(),
                cfg.op().fiName(),
                cfg.datatype().fiName(),
                c.mechanismWord()));
    BenchResult r = c.result();
    if (r != null) {
      for (double v : r.latency(percentiles).values()) {
        cells.add(Figures.micros(v));
      }
      cells.add(String.format(Locale.ROOT, "%.0f", r.opsPerSecond()));
      cells.add(String.format(Locale.ROOT, "%.0f", r.elementsPerSecond()));
    } else {
      for (int i = 0; i < percentiles.size() + 2; i++) {
        cells.add("-");
      }
    }
    cells.add(c.status().word());
    out.printf(row, cells.toArray());
  }

  /** The invalid cells, one line per family and op: {@code base FI_MIN FLTC DBLC LDBLC}. */
  private static void invalid(PrintStream out, List<MatrixCell> cells) {
    Map<String, List<String>> byOp = new LinkedHashMap<>();
    for (MatrixCell c : cells) {
      if (!c.valid()) {
        AtomicFamily f = c.cfg().family();
        FiOp op = c.cfg().op();
        byOp.computeIfAbsent(
                String.format("  %-7s %-15s", f.label(), op.fiName()), k -> new ArrayList<>())
            .add(OpMatrix.shortName(c.cfg().datatype()));
      }
    }
    if (byOp.isEmpty()) {
      return;
    }
    long n = cells.stream().filter(c -> !c.valid()).count();
    out.println(
        "invalid, not timed: "
            + n
            + " cell"
            + (n == 1 ? "" : "s")
            + " the provider refuses (queryAtomic; the JSON and the page say why)");
    long types = cells.stream().map(c -> c.cfg().datatype()).distinct().count();
    byOp.forEach(
        (k, v) ->
            out.println(
                k
                    + " "
                    + (v.size() == types && types > 1
                        ? "every datatype asked"
                        : String.join(" ", v))));
  }

  /** How many cells came to each end: {@code cells: 354 timed (120 exact, ...), 444 invalid}. */
  static String summary(List<MatrixCell> cells) {
    Map<MatrixCell.Status, Long> n = new java.util.EnumMap<>(MatrixCell.Status.class);
    for (MatrixCell c : cells) {
      n.merge(c.status(), 1L, Long::sum);
    }
    long timed = cells.stream().filter(c -> c.status().timed()).count();
    StringBuilder s =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "cells: %d selected, %d timed (target check: %d exact, %d with no exactly known"
                    + " value, %d wrong, %d failed)",
                cells.size(),
                timed,
                n.getOrDefault(MatrixCell.Status.OK, 0L),
                n.getOrDefault(MatrixCell.Status.UNCHECKED, 0L),
                n.getOrDefault(MatrixCell.Status.WRONG, 0L),
                n.getOrDefault(MatrixCell.Status.FAILED, 0L)));
    for (MatrixCell.Status st :
        List.of(MatrixCell.Status.INVALID, MatrixCell.Status.SKIPPED, MatrixCell.Status.NOT_RUN)) {
      if (n.containsKey(st)) {
        s.append(", ").append(n.get(st)).append(' ').append(st.word());
      }
    }
    return s.toString();
  }
}
