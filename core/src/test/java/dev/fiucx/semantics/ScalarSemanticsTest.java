package dev.fiucx.semantics;

import static dev.fiucx.FiDatatype.DOUBLE;
import static dev.fiucx.FiDatatype.FLOAT;
import static dev.fiucx.FiDatatype.FLOAT_COMPLEX;
import static dev.fiucx.FiDatatype.INT16;
import static dev.fiucx.FiDatatype.INT32;
import static dev.fiucx.FiDatatype.INT64;
import static dev.fiucx.FiDatatype.INT8;
import static dev.fiucx.FiDatatype.UINT16;
import static dev.fiucx.FiDatatype.UINT32;
import static dev.fiucx.FiDatatype.UINT64;
import static dev.fiucx.FiDatatype.UINT8;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import org.junit.jupiter.api.Test;

/** Hand-checked edge cases; the gcc-computed vectors in conformance cover every cell at length. */
class ScalarSemanticsTest {
  private static final long F_ONE = 0x3F800000L;
  private static final long F_POS_INF = 0x7F800000L;
  private static final long F_NEG_INF = 0xFF800000L;
  private static final long F_NEG_ZERO = 0x80000000L;
  private static final long F_DEFAULT_NAN = 0xFFC00000L;

  private static void check(
      long expected, FiOp op, FiDatatype dt, long old, long operand, long compare) {
    assertEquals(
        expected,
        ScalarSemantics.compute(op, dt, old, operand, compare),
        () ->
            op.fiName()
                + " "
                + dt.fiName()
                + String.format(" old=%x operand=%x compare=%x", old, operand, compare));
  }

  private static void check(long expected, FiOp op, FiDatatype dt, long old, long operand) {
    check(expected, op, dt, old, operand, 0);
  }

  private static long f(float v) {
    return Float.floatToRawIntBits(v) & 0xFFFFFFFFL;
  }

  private static long d(double v) {
    return Double.doubleToRawLongBits(v);
  }

  private static long fc(float re, float im) {
    return f(re) | (f(im) << 32);
  }

  @Test
  void integerArithmeticWrapsInTheElementWidth() {
    check(0x80, FiOp.SUM, INT8, 0x7F, 0x01); // 127 + 1 wraps to -128
    check(0x00, FiOp.SUM, UINT8, 0xFF, 0x01);
    check(0x0000, FiOp.PROD, INT16, 0x0100, 0x0100); // 256 * 256 = 65536 wraps to 0
    check(0xFFFFFFFEL, FiOp.PROD, INT32, 0xFFFFFFFFL, 0x2); // -1 * 2
    check(1, FiOp.SUM, UINT64, -1L, 2);
    check(0x8000000000000000L, FiOp.SUM, INT64, 0x7FFFFFFFFFFFFFFFL, 1);
  }

  @Test
  void minAndMaxCompareSignedOrUnsignedAsTheType() {
    check(0xFF, FiOp.MIN, INT8, 0x01, 0xFF); // -1 < 1
    check(0x01, FiOp.MIN, UINT8, 0x01, 0xFF); // 255 > 1
    check(0x8000, FiOp.MIN, INT16, 0x7FFF, 0x8000);
    check(0x7FFF, FiOp.MIN, UINT16, 0x7FFF, 0x8000);
    check(1, FiOp.MAX, INT64, 1, 0x8000000000000000L);
    check(0x8000000000000000L, FiOp.MAX, UINT64, 1, 0x8000000000000000L);
    check(0xFFFFFFFFL, FiOp.MAX, UINT32, 0x7FFFFFFFL, 0xFFFFFFFFL);
    check(0x7FFFFFFFL, FiOp.MAX, INT32, 0x7FFFFFFFL, 0xFFFFFFFFL);
  }

  @Test
  void logicalOpsStoreZeroOrOne() {
    check(0, FiOp.LOR, INT32, 0, 0);
    check(1, FiOp.LOR, INT32, 0, 5);
    check(1, FiOp.LAND, UINT32, 3, 0x80000000L);
    check(0, FiOp.LAND, INT8, 0x10, 0);
    check(0, FiOp.LXOR, INT16, 7, 9);
    check(1, FiOp.LXOR, UINT64, 0, 0x8000000000000000L);
  }

  @Test
  void bitwiseAndWriteAndRead() {
    check(0xF3, FiOp.BOR, UINT8, 0xF0, 0x03);
    check(0x0030, FiOp.BAND, INT16, 0x00F0, 0x0033);
    check(0x5A5A5A5A5A5A5A5AL ^ 0xFFFF, FiOp.BXOR, UINT64, 0x5A5A5A5A5A5A5A5AL, 0xFFFF);
    check(0x1234, FiOp.ATOMIC_WRITE, UINT16, 0xFFFF, 0x1234);
    check(0xABCD, FiOp.ATOMIC_READ, UINT16, 0xABCD, 0x1234);
  }

  @Test
  void compareOpsPutTheCompareValueOnTheLeft() {
    check(0x7, FiOp.CSWAP, INT16, 0x1234, 0x7, 0x1234);
    check(0x1234, FiOp.CSWAP, INT16, 0x1234, 0x7, 0x1235);
    check(0x7, FiOp.CSWAP_NE, INT16, 0x1234, 0x7, 0x1235);
    check(0x1234, FiOp.CSWAP_NE, INT16, 0x1234, 0x7, 0x1234);
    check(0x42, FiOp.CSWAP_LE, INT8, 0x00, 0x42, 0xFF); // -1 <= 0
    check(0x00, FiOp.CSWAP_LE, UINT8, 0x00, 0x42, 0xFF); // 255 <= 0 is false
    check(0x42, FiOp.CSWAP_LE, UINT8, 0x05, 0x42, 0x05); // equal
    check(0x05, FiOp.CSWAP_LT, UINT8, 0x05, 0x42, 0x05);
    check(0x42, FiOp.CSWAP_GT, UINT32, 1, 0x42, 0x80000000L);
    check(1, FiOp.CSWAP_GT, INT32, 1, 0x42, 0x80000000L);
    check(0x42, FiOp.CSWAP_GE, INT64, -5, 0x42, -5);
    check(-5, FiOp.CSWAP_GT, INT64, -5, 0x42, -5);
  }

  @Test
  void mswapTakesMaskedBitsFromTheOperand() {
    check(0xF0AA, FiOp.MSWAP, UINT16, 0xF0F0, 0xAAAA, 0x00FF);
    check(0x0F, FiOp.MSWAP, INT8, 0xFF, 0x0F, 0xF0);
  }

  @Test
  void floatArithmeticIsIeeeWithX86NaNBits() {
    check(f(3.0f), FiOp.SUM, FLOAT, f(1.0f), f(2.0f));
    check(0x7FC00001L, FiOp.SUM, FLOAT, 0x7FC00001L, 0x7FC00002L); // both NaN: the target's
    check(0x7FC00002L, FiOp.SUM, FLOAT, f(1.0f), 0x7F800002L); // signaling NaN comes back quiet
    check(F_DEFAULT_NAN, FiOp.SUM, FLOAT, F_POS_INF, F_NEG_INF); // invalid: sign bit set
    check(F_DEFAULT_NAN, FiOp.PROD, FLOAT, 0, F_POS_INF);
    check(0x00000002L, FiOp.SUM, FLOAT, 1, 1); // denormals are kept
    check(F_NEG_ZERO, FiOp.SUM, FLOAT, F_NEG_ZERO, F_NEG_ZERO);
    check(0, FiOp.SUM, FLOAT, F_NEG_ZERO, 0);
    check(d(0.30000000000000004), FiOp.SUM, DOUBLE, d(0.1), d(0.2));
    check(
        0xFFF8000000000000L,
        FiOp.SUM,
        DOUBLE,
        d(Double.POSITIVE_INFINITY),
        d(Double.NEGATIVE_INFINITY));
    check(d(Double.POSITIVE_INFINITY), FiOp.PROD, DOUBLE, d(Double.MAX_VALUE), d(2.0));
  }

  @Test
  void floatMinMaxStoreNothingWithNaNOrEqualZeros() {
    check(0, FiOp.MIN, FLOAT, 0, F_NEG_ZERO); // +0 > -0 is false
    check(F_NEG_ZERO, FiOp.MAX, FLOAT, F_NEG_ZERO, 0);
    check(0x7FC00000L, FiOp.MIN, FLOAT, 0x7FC00000L, f(1.0f));
    check(f(2.0f), FiOp.MIN, FLOAT, f(2.0f), 0x7FC00000L);
    check(f(1.0f), FiOp.MIN, FLOAT, f(2.0f), f(1.0f));
    check(d(-1.0), FiOp.MIN, DOUBLE, d(2.0), d(-1.0));
    check(d(2.0), FiOp.MAX, DOUBLE, d(-1.0), d(2.0));
  }

  @Test
  void floatLogicalOpsTreatNaNTrueAndNegativeZeroFalse() {
    check(F_ONE, FiOp.LOR, FLOAT, 0x7FC00000L, 0);
    check(0, FiOp.LAND, FLOAT, F_NEG_ZERO, f(5.0f));
    check(F_ONE, FiOp.LXOR, FLOAT, F_NEG_ZERO, f(5.0f));
    check(d(1.0), FiOp.LAND, DOUBLE, d(Double.MIN_VALUE), d(-3.0));
  }

  @Test
  void floatCswapComparesBytesButCswapNeComparesValues() {
    // +0 and -0: bytes differ (no CSWAP) and values are equal (no CSWAP_NE): not complements
    check(0, FiOp.CSWAP, FLOAT, 0, f(9.0f), F_NEG_ZERO);
    check(0, FiOp.CSWAP_NE, FLOAT, 0, f(9.0f), F_NEG_ZERO);
    // the same NaN: bytes equal (CSWAP swaps) and NaN != NaN (CSWAP_NE swaps too)
    check(f(9.0f), FiOp.CSWAP, FLOAT, 0x7FC00000L, f(9.0f), 0x7FC00000L);
    check(f(9.0f), FiOp.CSWAP_NE, FLOAT, 0x7FC00000L, f(9.0f), 0x7FC00000L);
    check(d(9.0), FiOp.CSWAP, DOUBLE, d(1.5), d(9.0), d(1.5));
    check(d(9.0), FiOp.CSWAP_LE, DOUBLE, d(2.0), d(9.0), d(1.0));
    check(d(2.0), FiOp.CSWAP_LT, DOUBLE, d(2.0), d(9.0), d(2.0));
    check(d(2.0), FiOp.CSWAP_GE, DOUBLE, d(2.0), d(9.0), 0x7FF8000000000000L); // NaN: unordered
  }

  @Test
  void floatComplexSumIsComponentWiseAndProductFollowsGcc() {
    check(fc(4, 6), FiOp.SUM, FLOAT_COMPLEX, fc(1, 2), fc(3, 4));
    check(fc(-5, 10), FiOp.PROD, FLOAT_COMPLEX, fc(1, 2), fc(3, 4)); // (1+2i)(3+4i)
    // (inf + inf i)(1 + 0i): inline gives NaN + NaN i, __mulsc3 recovers (inf, inf)
    check(
        fc(Float.POSITIVE_INFINITY, Float.POSITIVE_INFINITY),
        FiOp.PROD,
        FLOAT_COMPLEX,
        fc(Float.POSITIVE_INFINITY, Float.POSITIVE_INFINITY),
        fc(1, 0));
    // overflow in one part only: real inf - inf is the default NaN, imaginary inf, no recovery
    check(
        F_DEFAULT_NAN | (F_POS_INF << 32),
        FiOp.PROD,
        FLOAT_COMPLEX,
        fc(1e30f, 1e30f),
        fc(1e30f, 1e30f));
  }

  @Test
  void floatComplexLogicalAndCompare() {
    check(F_ONE, FiOp.LOR, FLOAT_COMPLEX, fc(0, Float.NaN), 0); // true when either part is: 1+0i
    check(0, FiOp.LAND, FLOAT_COMPLEX, fc(0, -0.0f), fc(1, 0));
    check(F_ONE, FiOp.LXOR, FLOAT_COMPLEX, fc(0, 0), fc(0, 2));
    check(
        fc(1, -0.0f),
        FiOp.CSWAP_NE,
        FLOAT_COMPLEX,
        fc(1, -0.0f),
        fc(7, 7),
        fc(1, 0)); // equal values
    check(
        fc(1, -0.0f), FiOp.CSWAP, FLOAT_COMPLEX, fc(1, -0.0f), fc(7, 7), fc(1, 0)); // bytes differ
    check(fc(7, 7), FiOp.CSWAP, FLOAT_COMPLEX, fc(1, 2), fc(7, 7), fc(1, 2));
  }
}
