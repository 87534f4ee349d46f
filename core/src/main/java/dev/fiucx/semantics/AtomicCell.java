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
