package dev.fiucx.perf.bench;

import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The values bench sends: every call's operand is one of the datatype (1, 1.0f, 1.0, 1+0i, 1.0L)
 * and every compare is zero, as fi_rdm_atomic uses fixed values; and what the target holds after
 * {@code n} such calls on a zeroed element.
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
   * an element that started at zero, as the reference semantics compute it ({@link RepeatedCall}),
   * or null when (op, datatype) is valid in no family. A floating-point SUM counts exactly up to
   * the significand's reach (2^24 for a float, 2^53 for a double, beyond any call count for a long
   * double); past it the sum stays there (2^24 + 1 rounds to 2^24), which the semantics confirm.
   */
  static byte[] expected(FiOp op, FiDatatype dt, long calls) {
    if (op == FiOp.SUM && !dt.isInteger()) {
      long exact = Math.min(calls, exactSums(dt));
      return RepeatedCall.after(op, dt, of(dt, exact), one(dt), zero(dt), calls - exact);
    }
    return RepeatedCall.after(op, dt, zero(dt), one(dt), zero(dt), calls);
  }

  /** How many ones a floating-point {@code dt} sums exactly from zero. */
  private static long exactSums(FiDatatype dt) {
    return switch (dt) {
      case FLOAT, FLOAT_COMPLEX -> 1L << 24;
      case DOUBLE, DOUBLE_COMPLEX -> 1L << 53;
      default -> Long.MAX_VALUE; // the 64-bit long double significand holds any long
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
