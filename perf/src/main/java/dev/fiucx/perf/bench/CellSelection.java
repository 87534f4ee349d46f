package dev.fiucx.perf.bench;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import dev.fiucx.semantics.AtomicCell;
import dev.fiucx.semantics.AtomicTable;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * The cells a run covers: {@code --family}, {@code -o} and {@code -z}, each one name, a comma list
 * or {@code all}. Without {@code --family} each op takes its own family (compare for CSWAP ..
 * MSWAP, else fetch), as one cell does. The cells come in the atomic table's order (family, op,
 * datatype), whatever order they were named in; whether each is valid, and how it is carried out,
 * is the provider's answer, asked when the run opens its domain.
 *
 * @param families the families named, or null for each op's own
 */
record CellSelection(Set<AtomicFamily> families, Set<FiOp> ops, Set<FiDatatype> datatypes) {
  /** One cell's coordinates. */
  record Cell(AtomicFamily family, FiOp op, FiDatatype datatype) {
    /** {@code fetch FI_SUM FI_UINT64}. */
    String label() {
      return family.label() + " " + op.fiName() + " " + datatype.fiName();
    }
  }

  /**
   * @param families {@code --family}'s value, or null when not given
   * @throws BenchUsageException naming a name that is none of its kind
   */
  static CellSelection parse(String families, String ops, String datatypes) {
    return new CellSelection(
        families == null
            ? null
            : names(
                families,
                AtomicFamily.class,
                AtomicSpellings::family,
                "--family",
                "base, fetch, compare, a list of them or all"),
        names(
            ops, FiOp.class, AtomicSpellings::op, "op", "e.g. sum, cswap_le, read, write, FI_SUM"),
        names(
            datatypes,
            FiDatatype.class,
            AtomicSpellings::datatype,
            "datatype",
            "e.g. int8, uint64, double_complex, FI_UINT64"));
  }

  private static <E extends Enum<E>> Set<E> names(
      String list, Class<E> type, Function<String, E> byName, String what, String examples) {
    if (list.trim().equalsIgnoreCase("all")) {
      return EnumSet.allOf(type);
    }
    EnumSet<E> set = EnumSet.noneOf(type);
    for (String name : list.split(",", -1)) {
      E e = name.isBlank() ? null : byName.apply(name);
      if (e == null) {
        throw new BenchUsageException(
            (what.startsWith("-") ? "unknown family '" : "unknown " + what + " '")
                + name.trim()
                + "' ("
                + examples
                + ")");
      }
      set.add(e);
    }
    return set;
  }

  /** The family an op takes when none is named: compare for CSWAP .. MSWAP, else fetch. */
  static AtomicFamily familyOf(FiOp op) {
    return op.isCompareOp() ? AtomicFamily.COMPARE : AtomicFamily.FETCH;
  }

  /** Every cell selected, in the table's order: family, op, datatype. */
  List<Cell> cells() {
    return AtomicTable.reference().cells().stream()
        .filter(this::selects)
        .map(c -> new Cell(c.family(), c.op(), c.datatype()))
        .toList();
  }

  private boolean selects(AtomicCell c) {
    boolean family =
        families == null ? familyOf(c.op()) == c.family() : families.contains(c.family());
    return family && ops.contains(c.op()) && datatypes.contains(c.datatype());
  }

  /** Whether the family was named ({@code --family}) rather than taken from the op. */
  boolean familyNamed() {
    return families != null;
  }

  /** The selection in words, for the header: {@code 19 ops x 14 datatypes, each op's family}. */
  String describe() {
    String fam =
        families == null
            ? "each op's family"
            : String.join(
                ",",
                Arrays.stream(AtomicFamily.values())
                    .filter(families::contains)
                    .map(AtomicFamily::label)
                    .toList());
    return ops.size()
        + " op"
        + (ops.size() == 1 ? "" : "s")
        + " x "
        + datatypes.size()
        + " datatype"
        + (datatypes.size() == 1 ? "" : "s")
        + ", "
        + fam;
  }
}
