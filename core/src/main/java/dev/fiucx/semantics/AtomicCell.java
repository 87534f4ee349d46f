package dev.fiucx.semantics;

import dev.fiucx.AtomicAttr;
import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import dev.fiucx.Mechanism;
import dev.fiucx.spi.RemoteAtomicOp;

/**
 * One (family, op, datatype) of the atomic table: whether it is valid, how many elements a call
 * takes, the element size, how it is carried out and, for NATIVE cells, which remote atomic does
 * it. {@code reason} says why the mechanism was chosen, or why the cell is not supported.
 */
public record AtomicCell(
    AtomicFamily family,
    FiOp op,
    FiDatatype datatype,
    boolean valid,
    long count,
    int size,
    Mechanism mechanism,
    RemoteAtomicOp nativeOp,
    String reason) {

  /** The attributes {@code fi_query_atomic} reports for a valid cell. */
  /**
   * The alignment a remote element address must have: the element size up to 8 bytes (the native 4-
   * and 8-byte atomics need it, and 1- and 2-byte elements must not straddle their 4-byte word), 8
   * for DOUBLE_COMPLEX (two doubles) and 16 for the long doubles, as C aligns them on x86-64.
   */
  public int alignment() {
    return ALIGNMENT[datatype.ordinal()]; // every call's range check asks: a load, not a switch
  }

  private static final int[] ALIGNMENT = new int[FiDatatype.values().length];

  static {
    for (FiDatatype t : FiDatatype.values()) {
      ALIGNMENT[t.ordinal()] =
          switch (t) {
            case DOUBLE_COMPLEX -> 8;
            case LONG_DOUBLE, LONG_DOUBLE_COMPLEX -> 16;
            default -> t.size();
          };
    }
  }

  public AtomicAttr attr() {
    return new AtomicAttr(count, size, mechanism, reason);
  }

  /** The same cell carried out by another mechanism, with the reason. */
  public AtomicCell withMechanism(Mechanism newMechanism, String why) {
    return new AtomicCell(
        family,
        op,
        datatype,
        valid,
        count,
        size,
        newMechanism,
        newMechanism == Mechanism.NATIVE ? nativeOp : null,
        why);
  }

  /** The same cell reported unsupported, with the reason. */
  public AtomicCell unsupported(String why) {
    return new AtomicCell(family, op, datatype, false, 0, size, null, null, why);
  }
}
