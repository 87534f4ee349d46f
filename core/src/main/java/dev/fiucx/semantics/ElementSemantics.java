package dev.fiucx.semantics;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

/**
 * The reference semantics of fi_atomic(3) on one element in memory: what libfabric's {@code
 * util_atomic.c} does, bit for bit, for every valid (op, datatype). The caller has checked validity
 * against {@link AtomicTable}; the fetch and compare families pass a result segment that receives
 * the initial value.
 */
public final class ElementSemantics {
  static {
    if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
      throw new ExceptionInInitializerError("fiucx's memory images are little-endian (x86-64)");
    }
  }

  private ElementSemantics() {}

  /**
   * The scratch of callers that pass none: one per thread, made on its first long-double element.
   * The remote lock passes its own ({@link #apply(FiOp, FiDatatype, MemorySegment, long,
   * MemorySegment, long, MemorySegment, long, MemorySegment, long, ElementScratch)}).
   */
  private static final ThreadLocal<ElementScratch> THREAD_SCRATCH =
      ThreadLocal.withInitial(ElementScratch::new);

  /**
   * Applies {@code op} to the element at {@code target[t]}. {@code operand} is ignored (may be
   * null) for ATOMIC_READ, {@code compare} outside the compare family, {@code result} in the base
   * family. LONG_DOUBLE and LONG_DOUBLE_COMPLEX compute in this thread's {@link ElementScratch}.
   */
  public static void apply(
      FiOp op,
      FiDatatype dt,
      MemorySegment target,
      long t,
      MemorySegment operand,
      long o,
      MemorySegment compare,
      long c,
      MemorySegment result,
      long r) {
    apply(op, dt, target, t, operand, o, compare, c, result, r, null);
  }

  /**
   * {@link #apply(FiOp, FiDatatype, MemorySegment, long, MemorySegment, long, MemorySegment, long,
   * MemorySegment, long)} with the caller's {@code scratch} for LONG_DOUBLE and LONG_DOUBLE_COMPLEX
   * arithmetic (null: this thread's). Allocates nothing for any (op, datatype).
   */
  public static void apply(
      FiOp op,
      FiDatatype dt,
      MemorySegment target,
      long t,
      MemorySegment operand,
      long o,
      MemorySegment compare,
      long c,
      MemorySegment result,
      long r,
      ElementScratch scratch) {
    if (result != null) {
      MemorySegment.copy(target, t, result, r, dt.size());
    }
    if (op == FiOp.ATOMIC_READ) {
      return;
    }
    if (dt.size() > 8) {
      if (scratch == null && dt != FiDatatype.DOUBLE_COMPLEX) {
        scratch = THREAD_SCRATCH.get();
      }
      WideSemantics.apply(op, dt, target, t, operand, o, compare, c, scratch);
      return;
    }
    long old = load(target, t, dt.size());
    long next =
        ScalarSemantics.compute(
            op,
            dt,
            old,
            load(operand, o, dt.size()),
            compare == null ? 0 : load(compare, c, dt.size()));
    if (next != old) {
      store(target, t, dt.size(), next);
    }
  }

  /** The element's bits, little-endian, zero-extended. */
  public static long load(MemorySegment s, long off, int size) {
    return switch (size) {
      case 1 -> s.get(JAVA_BYTE, off) & 0xFFL;
      case 2 -> s.get(JAVA_SHORT_UNALIGNED, off) & 0xFFFFL;
      case 4 -> s.get(JAVA_INT_UNALIGNED, off) & 0xFFFFFFFFL;
      case 8 -> s.get(JAVA_LONG_UNALIGNED, off);
      default -> throw new IllegalArgumentException("no scalar of " + size + " bytes");
    };
  }

  /** Writes the low {@code size} bytes of {@code bits}, little-endian. */
  public static void store(MemorySegment s, long off, int size, long bits) {
    switch (size) {
      case 1 -> s.set(JAVA_BYTE, off, (byte) bits);
      case 2 -> s.set(JAVA_SHORT_UNALIGNED, off, (short) bits);
      case 4 -> s.set(JAVA_INT_UNALIGNED, off, (int) bits);
      case 8 -> s.set(JAVA_LONG_UNALIGNED, off, bits);
      default -> throw new IllegalArgumentException("no scalar of " + size + " bytes");
    }
  }

  /**
   * Copies an element of {@code size} bytes. Elements of whole words (the remote lock's 16- and
   * 32-byte ones) move a word at a time: at these sizes a bulk {@link MemorySegment#copy} spends
   * several times longer choosing how to copy than copying.
   */
  public static void copy(
      MemorySegment src, long srcOff, MemorySegment dst, long dstOff, int size) {
    if ((size & 7) != 0) {
      MemorySegment.copy(src, srcOff, dst, dstOff, size);
      return;
    }
    for (int i = 0; i < size; i += 8) {
      dst.set(JAVA_LONG_UNALIGNED, dstOff + i, src.get(JAVA_LONG_UNALIGNED, srcOff + i));
    }
  }

  /**
   * Whether two elements of {@code size} bytes hold the same bytes; word by word, as {@link #copy}.
   */
  public static boolean sameBytes(
      MemorySegment a, long aOff, MemorySegment b, long bOff, int size) {
    if ((size & 7) != 0) {
      return MemorySegment.mismatch(a, aOff, aOff + size, b, bOff, bOff + size) == -1;
    }
    for (int i = 0; i < size; i += 8) {
      if (a.get(JAVA_LONG_UNALIGNED, aOff + i) != b.get(JAVA_LONG_UNALIGNED, bOff + i)) {
        return false;
      }
    }
    return true;
  }
}
