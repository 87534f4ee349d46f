package dev.fiucx.perf.bench;

import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The values bench sends: every call's operand is one of the datatype (1, 1.0f, 1.0, 1+0i, 1.0L)
 * and every compare is zero, as fi_rdm_atomic uses fixed values; and what the target holds after
 * {@code n} such calls on a zeroed element, for the ops where that is determined.
 */
final class Operands {
  private Operands() {}

  /** One element's bytes holding one of {@code dt}. */
  static byte[] one(FiDatatype dt) {
    return of(dt, 1);
  }

  /** One element's bytes holding zero (every compare). */
  static byte[] zero(FiDatatype dt) {
    return new byte[dt.size()];
  }

  /**
   * The target element after {@code calls} calls of {@code op} with operand one (compare zero) on
   * an element that started at zero, or null when the op leaves nothing that can be checked exactly
   * (PROD, the logical ops, the ordered compares, MSWAP) or floating-point sums have grown past
   * exact integers.
   */
  static byte[] expected(FiOp op, FiDatatype dt, long calls) {
    return switch (op) {
      case SUM -> exactSum(dt, calls) ? of(dt, calls) : null;
      case ATOMIC_READ -> zero(dt);
      case ATOMIC_WRITE, MAX, BOR, CSWAP -> calls > 0 ? one(dt) : zero(dt);
      case MIN -> zero(dt);
      case BXOR -> calls % 2 == 1 ? one(dt) : zero(dt);
      default -> null;
    };
  }

  /** Whether a sum of {@code n} ones is an exact integer in {@code dt} (integers wrap exactly). */
  private static boolean exactSum(FiDatatype dt, long n) {
    return switch (dt) {
      case FLOAT, FLOAT_COMPLEX -> n <= 1L << 24;
      case DOUBLE, DOUBLE_COMPLEX -> n <= 1L << 53;
      default -> true; // integers wrap; the 64-bit long double significand holds any long
    };
  }

  /** {@code v} as one element of {@code dt} (complex: real part {@code v}, imaginary 0). */
  static byte[] of(FiDatatype dt, long v) {
    ByteBuffer b = ByteBuffer.allocate(dt.size()).order(ByteOrder.LITTLE_ENDIAN);
    switch (dt) {
      case INT8, UINT8 -> b.put((byte) v);
      case INT16, UINT16 -> b.putShort((short) v);
      case INT32, UINT32 -> b.putInt((int) v);
      case INT64, UINT64 -> b.putLong(v);
      case FLOAT, FLOAT_COMPLEX -> b.putFloat(v);
      case DOUBLE, DOUBLE_COMPLEX -> b.putDouble(v);
      case LONG_DOUBLE, LONG_DOUBLE_COMPLEX -> putLongDouble(b, v);
    }
    return b.array();
  }

  /**
   * The x87 80-bit format of a non-negative integer (exact: the significand has 64 bits), in 16
   * bytes: significand with its explicit integer bit, then sign and 15-bit exponent, then padding.
   */
  private static void putLongDouble(ByteBuffer b, long v) {
    if (v == 0) {
      b.putLong(0).putShort((short) 0);
      return;
    }
    int shift = Long.numberOfLeadingZeros(v);
    b.putLong(v << shift).putShort((short) (16383 + 63 - shift));
  }
}
