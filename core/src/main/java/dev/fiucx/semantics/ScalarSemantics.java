package dev.fiucx.semantics;

import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;

/**
 * What one (op, datatype) does to one element of 8 bytes or less, on raw bits: the value the target
 * holds afterwards, given what it held ({@code old}), the operand and the compare value. Bits are
 * the element's little-endian memory image, zero-extended to 64 (a FLOAT_COMPLEX has its real part
 * in the low half). The CAS-loop engine computes with this, so it allocates nothing.
 */
public final class ScalarSemantics {
  private static final int FLOAT_ONE = 0x3F800000;
  private static final long DOUBLE_ONE = 0x3FF0000000000000L;

  private ScalarSemantics() {}

  /**
   * The new target bits. ATOMIC_READ returns {@code old}; an operand the op ignores may be
   * anything.
   */
  public static long compute(FiOp op, FiDatatype dt, long old, long operand, long compare) {
    return switch (dt) {
      case INT8, UINT8, INT16, UINT16, INT32, UINT32, INT64, UINT64 ->
          integer(op, dt, old, operand, compare) & mask(dt);
      case FLOAT -> floating(op, (int) old, (int) operand, (int) compare) & 0xFFFFFFFFL;
      case DOUBLE -> floating(op, old, operand, compare);
      case FLOAT_COMPLEX -> floatComplex(op, old, operand, compare);
      default -> throw new IllegalArgumentException(dt.fiName() + " is wider than 8 bytes");
    };
  }

  /** The bits of an element of that size: all ones in its low {@code 8 * size} bits. */
  public static long mask(FiDatatype dt) {
    return dt.size() == 8 ? -1L : (1L << (8 * dt.size())) - 1;
  }

  private static long integer(FiOp op, FiDatatype dt, long a, long b, long c) {
    return switch (op) {
      case MIN -> compareInt(dt, a, b) > 0 ? b : a;
      case MAX -> compareInt(dt, a, b) < 0 ? b : a;
      case SUM -> a + b;
      case PROD -> a * b;
      case LOR -> truth(dt, a) || truth(dt, b) ? 1 : 0;
      case LAND -> truth(dt, a) && truth(dt, b) ? 1 : 0;
      case LXOR -> truth(dt, a) != truth(dt, b) ? 1 : 0;
      case BOR -> a | b;
      case BAND -> a & b;
      case BXOR -> a ^ b;
      case ATOMIC_READ -> a;
      case ATOMIC_WRITE -> b;
      case CSWAP -> compareInt(dt, c, a) == 0 ? b : a;
      case CSWAP_NE -> compareInt(dt, c, a) != 0 ? b : a;
      case CSWAP_LE -> compareInt(dt, c, a) <= 0 ? b : a;
      case CSWAP_LT -> compareInt(dt, c, a) < 0 ? b : a;
      case CSWAP_GE -> compareInt(dt, c, a) >= 0 ? b : a;
      case CSWAP_GT -> compareInt(dt, c, a) > 0 ? b : a;
      case MSWAP -> (b & c) | (a & ~c);
    };
  }

  private static boolean truth(FiDatatype dt, long v) {
    return (v & mask(dt)) != 0;
  }

  /** Compares as the C type does: signed types sign-extended, unsigned ones unsigned. */
  private static int compareInt(FiDatatype dt, long x, long y) {
    if (dt.isUnsigned()) {
      return Long.compareUnsigned(x & mask(dt), y & mask(dt));
    }
    int shift = 64 - 8 * dt.size();
    return Long.compare((x << shift) >> shift, (y << shift) >> shift);
  }

  private static int floating(FiOp op, int a, int b, int c) {
    float x = Float.intBitsToFloat(a);
    float y = Float.intBitsToFloat(b);
    float z = Float.intBitsToFloat(c);
    return switch (op) {
      case MIN -> x > y ? b : a;
      case MAX -> x < y ? b : a;
      case SUM -> Sse.addF(a, b);
      case PROD -> Sse.mulF(a, b);
      case LOR -> x != 0 || y != 0 ? FLOAT_ONE : 0;
      case LAND -> x != 0 && y != 0 ? FLOAT_ONE : 0;
      case LXOR -> (x != 0) != (y != 0) ? FLOAT_ONE : 0;
      case ATOMIC_READ -> a;
      case ATOMIC_WRITE -> b;
      case CSWAP -> c == a ? b : a; // bytes, as libfabric's atomic compare-exchange
      case CSWAP_NE -> z != x ? b : a;
      case CSWAP_LE -> z <= x ? b : a;
      case CSWAP_LT -> z < x ? b : a;
      case CSWAP_GE -> z >= x ? b : a;
      case CSWAP_GT -> z > x ? b : a;
      default -> throw undefined(op, FiDatatype.FLOAT);
    };
  }

  private static long floating(FiOp op, long a, long b, long c) {
    double x = Double.longBitsToDouble(a);
    double y = Double.longBitsToDouble(b);
    double z = Double.longBitsToDouble(c);
    return switch (op) {
      case MIN -> x > y ? b : a;
      case MAX -> x < y ? b : a;
      case SUM -> Sse.addD(a, b);
      case PROD -> Sse.mulD(a, b);
      case LOR -> x != 0 || y != 0 ? DOUBLE_ONE : 0;
      case LAND -> x != 0 && y != 0 ? DOUBLE_ONE : 0;
      case LXOR -> (x != 0) != (y != 0) ? DOUBLE_ONE : 0;
      case ATOMIC_READ -> a;
      case ATOMIC_WRITE -> b;
      case CSWAP -> c == a ? b : a; // bytes, as libfabric's atomic compare-exchange
      case CSWAP_NE -> z != x ? b : a;
      case CSWAP_LE -> z <= x ? b : a;
      case CSWAP_LT -> z < x ? b : a;
      case CSWAP_GE -> z >= x ? b : a;
      case CSWAP_GT -> z > x ? b : a;
      default -> throw undefined(op, FiDatatype.DOUBLE);
    };
  }

  private static long floatComplex(FiOp op, long a, long b, long c) {
    return switch (op) {
      case SUM ->
          (Sse.addF((int) a, (int) b) & 0xFFFFFFFFL)
              | ((long) Sse.addF((int) (a >>> 32), (int) (b >>> 32)) << 32);
      case PROD -> Sse.mulComplexF(a, b);
      case LOR -> complexTruth(a) || complexTruth(b) ? FLOAT_ONE : 0;
      case LAND -> complexTruth(a) && complexTruth(b) ? FLOAT_ONE : 0;
      case LXOR -> complexTruth(a) != complexTruth(b) ? FLOAT_ONE : 0;
      case ATOMIC_READ -> a;
      case ATOMIC_WRITE -> b;
      case CSWAP -> c == a ? b : a; // bytes, as libfabric's atomic compare-exchange
      case CSWAP_NE -> complexEquals(c, a) ? a : b;
      default -> throw undefined(op, FiDatatype.FLOAT_COMPLEX);
    };
  }

  /** C's {@code z != 0} on a float complex: either part nonzero, NaN included. */
  private static boolean complexTruth(long z) {
    return Float.intBitsToFloat((int) z) != 0 || Float.intBitsToFloat((int) (z >>> 32)) != 0;
  }

  private static boolean complexEquals(long z, long w) {
    return Float.intBitsToFloat((int) z) == Float.intBitsToFloat((int) w)
        && Float.intBitsToFloat((int) (z >>> 32)) == Float.intBitsToFloat((int) (w >>> 32));
  }

  static IllegalArgumentException undefined(FiOp op, FiDatatype dt) {
    return new IllegalArgumentException(op.fiName() + " is not defined on " + dt.fiName());
  }
}
