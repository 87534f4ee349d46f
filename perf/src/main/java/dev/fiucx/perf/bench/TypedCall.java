package dev.fiucx.perf.bench;

import dev.fiucx.AtomicFamily;
import dev.fiucx.AtomicRegion;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import java.lang.foreign.MemorySegment;

/**
 * One thread's call of one cell through the typed layer ({@code --api typed}): the {@link
 * AtomicRegion} method that makes the same fi_atomic call as the mirror's loop, with the same
 * operand (one) and compare (zero), chosen once. It returns when the call is done and throws {@code
 * FiException} when it failed.
 */
@FunctionalInterface
interface TypedCall {
  /** {@return the fetched element's raw bits, zero-extended (0 for a call that fetches nothing)} */
  long call();

  /** What {@code --api typed} says of a cell the layer makes no call for, or null when it does. */
  static String unsupported(BenchConfig cfg) {
    FiDatatype dt = cfg.datatype();
    if (dt != FiDatatype.UINT64 && dt != FiDatatype.UINT32 && dt != FiDatatype.DOUBLE) {
      return "--api typed: the layer's elements are uint64, uint32 and double, not " + dt.fiName();
    }
    boolean one = cfg.count() == 1;
    boolean made =
        switch (cfg.family()) {
          case FETCH ->
              cfg.op() == FiOp.SUM
                  || cfg.op() == FiOp.ATOMIC_READ
                  || one && cfg.op() == FiOp.ATOMIC_WRITE;
          case BASE -> cfg.op() == FiOp.ATOMIC_WRITE;
          case COMPARE -> one && cfg.op() == FiOp.CSWAP;
        };
    if (!made) {
      return "--api typed has no call for "
          + cfg.cellLabel()
          + (one ? "" : " of " + cfg.count() + " elements")
          + " (one element: fetch SUM, ATOMIC_READ, ATOMIC_WRITE, base ATOMIC_WRITE, compare"
          + " CSWAP; several: fetch SUM, ATOMIC_READ, base ATOMIC_WRITE)";
    }
    return cfg.window() == 1 ? null : "--api typed is blocking: one call in flight (-O 1)";
  }

  /**
   * The call of {@code cfg}'s cell on the elements at {@code offset}; a call of several elements
   * takes its operands from {@code operands} and writes what it fetches to {@code results}.
   */
  static TypedCall of(
      AtomicRegion r, BenchConfig cfg, long offset, MemorySegment operands, MemorySegment results) {
    int n = cfg.count();
    FiOp op = cfg.op();
    AtomicFamily family = cfg.family();
    if (n > 1) {
      return switch (cfg.datatype()) {
        case UINT32 ->
            op == FiOp.ATOMIC_WRITE
                ? () -> call(() -> r.setInts(offset, operands, n))
                : op == FiOp.ATOMIC_READ
                    ? () -> call(() -> r.getInts(offset, results, n))
                    : () -> call(() -> r.fetchAddInts(offset, operands, results, n));
        case DOUBLE ->
            op == FiOp.ATOMIC_WRITE
                ? () -> call(() -> r.setDoubles(offset, operands, n))
                : op == FiOp.ATOMIC_READ
                    ? () -> call(() -> r.getDoubles(offset, results, n))
                    : () -> call(() -> r.fetchAddDoubles(offset, operands, results, n));
        default ->
            op == FiOp.ATOMIC_WRITE
                ? () -> call(() -> r.setLongs(offset, operands, n))
                : op == FiOp.ATOMIC_READ
                    ? () -> call(() -> r.getLongs(offset, results, n))
                    : () -> call(() -> r.fetchAddLongs(offset, operands, results, n));
      };
    }
    if (family == AtomicFamily.BASE) {
      return switch (cfg.datatype()) {
        case UINT32 -> () -> call(() -> r.setInt(offset, 1));
        case DOUBLE -> () -> call(() -> r.setDouble(offset, 1.0));
        default -> () -> call(() -> r.setLong(offset, 1));
      };
    }
    return switch (cfg.datatype()) {
      case UINT32 ->
          switch (op) {
            case ATOMIC_READ -> () -> Integer.toUnsignedLong(r.getInt(offset));
            case ATOMIC_WRITE -> () -> Integer.toUnsignedLong(r.getAndSetInt(offset, 1));
            case CSWAP -> () -> Integer.toUnsignedLong(r.compareAndSwapInt(offset, 0, 1));
            default -> () -> Integer.toUnsignedLong(r.fetchAddInt(offset, 1));
          };
      case DOUBLE ->
          switch (op) {
            case ATOMIC_READ -> () -> Double.doubleToRawLongBits(r.getDouble(offset));
            case ATOMIC_WRITE -> () -> Double.doubleToRawLongBits(r.getAndSetDouble(offset, 1.0));
            case CSWAP -> () -> Double.doubleToRawLongBits(r.compareAndSwapDouble(offset, 0, 1.0));
            default -> () -> Double.doubleToRawLongBits(r.fetchAddDouble(offset, 1.0));
          };
      default ->
          switch (op) {
            case ATOMIC_READ -> () -> r.getLong(offset);
            case ATOMIC_WRITE -> () -> r.getAndSetLong(offset, 1);
            case CSWAP -> () -> r.compareAndSwapLong(offset, 0, 1);
            default -> () -> r.fetchAddLong(offset, 1);
          };
    };
  }

  /** A call that returns nothing, as one that fetched 0. */
  private static long call(Runnable r) {
    r.run();
    return 0;
  }
}
