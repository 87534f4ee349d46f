package dev.fiucx.conformance.replay;

import dev.fiucx.FiOp;
import dev.fiucx.conformance.vectors.VectorCase;
import dev.fiucx.semantics.AtomicCell;
import dev.fiucx.semantics.AtomicTable;
import dev.fiucx.semantics.ElementSemantics;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Replays cases through the reference semantics, in this process's memory. */
public final class ReferenceEngine implements ReplayEngine {
  /** An engine with nothing to set up: the reference semantics are static. */
  public ReferenceEngine() {}

  @Override
  public String name() {
    return "reference";
  }

  @Override
  public Outcome run(VectorCase c) {
    AtomicCell cell = AtomicTable.reference().cell(c.family(), c.op(), c.datatype());
    if (!cell.valid()) {
      return Outcome.unsupported(cell.reason());
    }
    if (c.operand() == null && c.op() != FiOp.ATOMIC_READ) {
      return Outcome.error("operand is null but " + c.op().fiName() + " needs one");
    }
    if (c.compare() == null && c.op().isCompareOp()) {
      return Outcome.error("compare is null but " + c.op().fiName() + " needs one");
    }
    int size = c.datatype().size();
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment target = copyOf(arena, c.initialTarget());
      MemorySegment operand = c.operand() == null ? null : copyOf(arena, c.operand());
      MemorySegment compare = c.compare() == null ? null : copyOf(arena, c.compare());
      MemorySegment result =
          c.family().fetches() ? arena.allocate((long) c.count() * size, 16) : null;
      for (int i = 0; i < c.count(); i++) {
        long off = (long) i * size;
        ElementSemantics.apply(
            c.op(), c.datatype(), target, off, operand, off, compare, off, result, off);
      }
      return Outcome.ran(
          target.toArray(ValueLayout.JAVA_BYTE),
          result == null ? null : result.toArray(ValueLayout.JAVA_BYTE));
    }
  }

  private static MemorySegment copyOf(Arena arena, byte[] bytes) {
    MemorySegment s = arena.allocate(bytes.length, 16);
    MemorySegment.copy(bytes, 0, s, ValueLayout.JAVA_BYTE, 0, bytes.length);
    return s;
  }
}
