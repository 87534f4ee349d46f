package dev.fiucx.cli;

import dev.fiucx.conformance.report.OpMatrix;
import dev.fiucx.semantics.AtomicCell;
import dev.fiucx.semantics.AtomicTable;
import java.io.PrintStream;

/**
 * Prints an atomic table as text: one block per family, ops as rows, datatypes as columns, each
 * cell its mechanism ({@code native}, {@code cas}, {@code lock}) or a dash.
 */
final class CapabilityTableView {
  private CapabilityTableView() {}

  static void print(AtomicTable table, PrintStream out) {
    OpMatrix.print(
        out,
        f ->
            String.format(
                "%s atomics (%d valid)",
                f.label(),
                table.cells().stream().filter(c -> c.family() == f && c.valid()).count()),
        (f, op, dt) -> label(table.cell(f, op, dt)));
    out.println(OpMatrix.LEGEND);
  }

  private static String label(AtomicCell c) {
    return c.valid() ? OpMatrix.word(c.mechanism()) : "-";
  }
}
