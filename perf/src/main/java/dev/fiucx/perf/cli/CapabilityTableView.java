package dev.fiucx.perf.cli;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
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
    FiDatatype[] types = FiDatatype.values();
    for (AtomicFamily f : AtomicFamily.values()) {
      long valid = table.cells().stream().filter(c -> c.family() == f && c.valid()).count();
      out.printf("%s atomics (%d valid)%n", f.label(), valid);
      StringBuilder head = new StringBuilder(String.format("  %-13s", "op"));
      for (FiDatatype dt : types) {
        head.append(String.format(" %-6s", shortName(dt)));
      }
      out.println(head.toString().stripTrailing());
      for (FiOp op : FiOp.values()) {
        StringBuilder row = new StringBuilder(String.format("  %-13s", op.name()));
        boolean any = false;
        for (FiDatatype dt : types) {
          AtomicCell c = table.cell(f, op, dt);
          any |= c.valid();
          row.append(String.format(" %-6s", label(c)));
        }
        if (any) {
          out.println(row.toString().stripTrailing());
        }
      }
      out.println();
    }
    out.println(
        "native: one remote atomic per element; cas: compare-and-swap loop; lock: remote lock");
  }

  private static String label(AtomicCell c) {
    if (!c.valid()) {
      return "-";
    }
    return switch (c.mechanism()) {
      case NATIVE -> "native";
      case CAS_LOOP -> "cas";
      case REMOTE_LOCK -> "lock";
    };
  }

  private static String shortName(FiDatatype dt) {
    return switch (dt) {
      case FLOAT -> "FLT";
      case DOUBLE -> "DBL";
      case FLOAT_COMPLEX -> "FLTC";
      case DOUBLE_COMPLEX -> "DBLC";
      case LONG_DOUBLE -> "LDBL";
      case LONG_DOUBLE_COMPLEX -> "LDBLC";
      default -> dt.name();
    };
  }
}
