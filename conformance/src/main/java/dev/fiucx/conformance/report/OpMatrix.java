package dev.fiucx.conformance.report;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import dev.fiucx.Mechanism;
import java.io.PrintStream;

/**
 * The op x datatype matrix as text, one block per family: ops as rows, datatypes as columns, each
 * cell a short word. {@code ./fiucx info} prints the capability table with it and {@code ./fiucx
 * conformance} the checked one, so both read the same way.
 */
public final class OpMatrix {
  /** What one cell of the matrix shows. */
  @FunctionalInterface
  public interface CellLabel {
    /**
     * {@return the word for a cell, {@code "-"} when the cell is not carried out}
     *
     * @param family the call's family
     * @param op the operation
     * @param dt the datatype
     */
    String of(AtomicFamily family, FiOp op, FiDatatype dt);
  }

  private OpMatrix() {}

  /**
   * Prints one block per family headed by {@code heading(family)}; rows whose cells are all {@code
   * "-"} are left out.
   *
   * @param out where it goes
   * @param heading the line above the matrix
   * @param cells the word of each cell
   */
  public static void print(
      PrintStream out, java.util.function.Function<AtomicFamily, String> heading, CellLabel cells) {
    FiDatatype[] types = FiDatatype.values();
    for (AtomicFamily f : AtomicFamily.values()) {
      out.println(heading.apply(f));
      StringBuilder head = new StringBuilder(String.format("  %-13s", "op"));
      for (FiDatatype dt : types) {
        head.append(String.format(" %-6s", shortName(dt)));
      }
      out.println(head.toString().stripTrailing());
      for (FiOp op : FiOp.values()) {
        StringBuilder row = new StringBuilder(String.format("  %-13s", op.name()));
        boolean any = false;
        for (FiDatatype dt : types) {
          String label = cells.of(f, op, dt);
          any |= !label.equals("-");
          row.append(String.format(" %-6s", label));
        }
        if (any) {
          out.println(row.toString().stripTrailing());
        }
      }
      out.println();
    }
  }

  /**
   * {@return the matrix word of a mechanism: {@code native}, {@code cas}, {@code lock}}
   *
   * @param m the mechanism
   */
  public static String word(Mechanism m) {
    return switch (m) {
      case NATIVE -> "native";
      case CAS_LOOP -> "cas";
      case REMOTE_LOCK -> "lock";
    };
  }

  /**
   * {@return the column head of a datatype: its name, abbreviated for the floating types}
   *
   * @param dt the datatype
   */
  public static String shortName(FiDatatype dt) {
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

  /** The legend printed under a matrix. */
  public static final String LEGEND =
      "native: one remote atomic per element; cas: compare-and-swap loop; lock: remote lock";
}
