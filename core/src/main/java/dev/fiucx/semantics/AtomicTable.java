package dev.fiucx.semantics;

import dev.fiucx.AtomicAttr;
import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.Mechanism;
import dev.fiucx.spi.RemoteAtomicOp;
import java.util.Arrays;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The one table that decides, for every (family, op, datatype), validity, count, size, mechanism
 * and the remote atomic of NATIVE cells. Valid and query calls, dispatch, {@code info} and the
 * conformance matrix all read it. {@link #reference()} is docs/semantics.md's table; a provider
 * derives its own view with {@link #map} (cells it has not built, or that its self-test demoted).
 */
public final class AtomicTable {
  /** Bytes one call may cover; the count of a cell is this divided by the element size. */
  public static final int MAX_ATOMIC_BYTES = 4096;

  private static final FiOp[] OPS = FiOp.values();
  private static final FiDatatype[] TYPES = FiDatatype.values();
  private static final AtomicFamily[] FAMILIES = AtomicFamily.values();
  private static final AtomicTable REFERENCE = new AtomicTable(buildReference());

  private final AtomicCell[] cells;

  private AtomicTable(AtomicCell[] cells) {
    this.cells = cells;
  }

  /** docs/semantics.md's table: 354 valid cells and the mechanism each gets by default. */
  public static AtomicTable reference() {
    return REFERENCE;
  }

  /** The cell; never null (invalid cells say why). */
  public AtomicCell cell(AtomicFamily family, FiOp op, FiDatatype datatype) {
    return cells[index(family, op, datatype)];
  }

  /** All cells, family by family, op by op, datatype by datatype (libfabric order). */
  public List<AtomicCell> cells() {
    return List.of(cells);
  }

  /** The valid cells. */
  public List<AtomicCell> validCells() {
    return Arrays.stream(cells).filter(AtomicCell::valid).toList();
  }

  /** {@code fi_*atomicvalid}: the count, or {@code -FI_EOPNOTSUPP}. */
  public long valid(AtomicFamily family, FiOp op, FiDatatype datatype) {
    AtomicCell c = cells[index(family, op, datatype)];
    return c.valid() ? c.count() : -FiErrno.EOPNOTSUPP;
  }

  /**
   * {@code fi_query_atomic}: flags first (libfabric's order), then the cell. Throws {@code
   * FI_EBADFLAGS} or {@code FI_EOPNOTSUPP} as {@link FiException}.
   */
  public AtomicAttr query(FiDatatype datatype, FiOp op, long flags) {
    AtomicFamily family = familyOfQueryFlags(flags);
    if ((flags & FiFlags.TAGGED) != 0) {
      throw new FiException(
          FiErrno.EOPNOTSUPP, "atomics on tagged receive buffers (FI_TAGGED) are not supported");
    }
    AtomicCell c = cell(family, op, datatype);
    if (!c.valid()) {
      throw new FiException(FiErrno.EOPNOTSUPP, c.reason());
    }
    return c.attr();
  }

  /**
   * The family that {@code fi_query_atomic} flags select; throws {@code FI_EBADFLAGS} for flags
   * outside FETCH_ATOMIC, COMPARE_ATOMIC and TAGGED, or FETCH with COMPARE.
   */
  public static AtomicFamily familyOfQueryFlags(long flags) {
    if ((flags & ~FiFlags.QUERY_FLAGS) != 0) {
      throw new FiException(
          FiErrno.EBADFLAGS,
          "query flags 0x" + Long.toHexString(flags & ~FiFlags.QUERY_FLAGS) + " are not allowed");
    }
    boolean fetch = (flags & FiFlags.FETCH_ATOMIC) != 0;
    boolean compare = (flags & FiFlags.COMPARE_ATOMIC) != 0;
    if (fetch && compare) {
      throw new FiException(FiErrno.EBADFLAGS, "FI_FETCH_ATOMIC and FI_COMPARE_ATOMIC together");
    }
    return fetch ? AtomicFamily.FETCH : compare ? AtomicFamily.COMPARE : AtomicFamily.BASE;
  }

  /** A table with every cell passed through {@code change} (which must keep its coordinates). */
  public AtomicTable map(UnaryOperator<AtomicCell> change) {
    AtomicCell[] next = new AtomicCell[cells.length];
    for (int i = 0; i < cells.length; i++) {
      AtomicCell c = change.apply(cells[i]);
      if (c.family() != cells[i].family()
          || c.op() != cells[i].op()
          || c.datatype() != cells[i].datatype()) {
        throw new IllegalArgumentException("a mapped cell moved: " + cells[i] + " -> " + c);
      }
      next[i] = c;
    }
    return new AtomicTable(next);
  }

  private static int index(AtomicFamily family, FiOp op, FiDatatype datatype) {
    return (family.ordinal() * OPS.length + op.ordinal()) * TYPES.length + datatype.ordinal();
  }

  private static AtomicCell[] buildReference() {
    AtomicCell[] all = new AtomicCell[FAMILIES.length * OPS.length * TYPES.length];
    for (AtomicFamily f : FAMILIES) {
      for (FiOp op : OPS) {
        for (FiDatatype dt : TYPES) {
          all[index(f, op, dt)] = referenceCell(f, op, dt);
        }
      }
    }
    return all;
  }

  private static AtomicCell referenceCell(AtomicFamily f, FiOp op, FiDatatype dt) {
    String undefined = whyUndefined(f, op, dt);
    if (undefined != null) {
      return new AtomicCell(f, op, dt, false, 0, dt.size(), null, null, undefined);
    }
    long count = MAX_ATOMIC_BYTES / dt.size();
    RemoteAtomicOp nativeOp = nativeOp(op, dt);
    if (nativeOp != null) {
      return new AtomicCell(
          f,
          op,
          dt,
          true,
          count,
          dt.size(),
          Mechanism.NATIVE,
          nativeOp,
          nativeReason(op, nativeOp));
    }
    if (dt.size() <= 8) {
      String why =
          dt.size() < 4
              ? dt.size() + "-byte element: compare-and-swap on its aligned 4-byte word"
              : "no remote atomic computes " + op.fiName() + " on " + dt.fiName();
      return new AtomicCell(f, op, dt, true, count, dt.size(), Mechanism.CAS_LOOP, null, why);
    }
    return new AtomicCell(
        f,
        op,
        dt,
        true,
        count,
        dt.size(),
        Mechanism.REMOTE_LOCK,
        null,
        dt.size() + "-byte element is wider than any remote atomic");
  }

  /** Null when docs/semantics.md's table has the cell, else why not. */
  private static String whyUndefined(AtomicFamily f, FiOp op, FiDatatype dt) {
    boolean ordered = dt.isInteger() || dt.isRealFloating();
    boolean inFamily =
        switch (op) {
          case ATOMIC_READ -> f == AtomicFamily.FETCH;
          case CSWAP, CSWAP_NE, CSWAP_LE, CSWAP_LT, CSWAP_GE, CSWAP_GT, MSWAP ->
              f == AtomicFamily.COMPARE;
          default -> f != AtomicFamily.COMPARE;
        };
    if (!inFamily) {
      return op.fiName() + " is not a " + f.label() + " atomic";
    }
    boolean typed =
        switch (op) {
          case MIN, MAX, CSWAP_LE, CSWAP_LT, CSWAP_GE, CSWAP_GT -> ordered;
          case BOR, BAND, BXOR, MSWAP -> dt.isInteger();
          default -> true;
        };
    return typed ? null : op.fiName() + " is not defined on " + dt.fiName();
  }

  /**
   * The remote atomic that computes the op in one step, for 4- and 8-byte elements: arithmetic and
   * bitwise ops on integers, and the bit-pattern ops (read, write, swap on equal bytes) on any type
   * of that size. Null otherwise.
   */
  private static RemoteAtomicOp nativeOp(FiOp op, FiDatatype dt) {
    if (dt.size() != 4 && dt.size() != 8) {
      return null;
    }
    RemoteAtomicOp bitPattern =
        switch (op) {
          case ATOMIC_READ -> RemoteAtomicOp.ADD;
          case ATOMIC_WRITE -> RemoteAtomicOp.SWAP;
          case CSWAP -> RemoteAtomicOp.CSWAP;
          default -> null;
        };
    if (bitPattern != null || !dt.isInteger()) {
      return bitPattern;
    }
    return switch (op) {
      case SUM -> RemoteAtomicOp.ADD;
      case BOR -> RemoteAtomicOp.OR;
      case BAND -> RemoteAtomicOp.AND;
      case BXOR -> RemoteAtomicOp.XOR;
      default -> null;
    };
  }

  private static String nativeReason(FiOp op, RemoteAtomicOp nativeOp) {
    return switch (op) {
      case ATOMIC_READ -> "one remote fetching ADD of 0";
      case CSWAP -> "one remote CSWAP (compares bytes)";
      default -> "one remote " + nativeOp;
    };
  }
}
