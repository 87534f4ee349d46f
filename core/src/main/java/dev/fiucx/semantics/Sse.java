package dev.fiucx.semantics;

/**
 * FLOAT and DOUBLE arithmetic on raw bits as x86-64 SSE computes it, NaNs included. Java's own
 * operators give the right numbers but not x86's NaN bits: of two NaN operands SSE returns the
 * first (the target's) quieted, and an invalid operation (inf - inf, 0 * inf) returns the default
 * NaN, whose sign bit is set. Complex products follow gcc: inline (ac - bd, ad + bc), and when both
 * parts are NaN libgcc's {@code __mulsc3} / {@code __muldc3} recovery of infinities.
 */
final class Sse {
  static final int FLOAT_DEFAULT_NAN = 0xFFC00000;
  static final long DOUBLE_DEFAULT_NAN = 0xFFF8000000000000L;
  private static final int FLOAT_QUIET = 0x00400000;
  private static final long DOUBLE_QUIET = 0x0008000000000000L;

  private Sse() {}

  static int addF(int a, int b) {
    float x = Float.intBitsToFloat(a);
    float y = Float.intBitsToFloat(b);
    return resultF(a, b, x + y);
  }

  static int subF(int a, int b) {
    float x = Float.intBitsToFloat(a);
    float y = Float.intBitsToFloat(b);
    return resultF(a, b, x - y);
  }

  static int mulF(int a, int b) {
    float x = Float.intBitsToFloat(a);
    float y = Float.intBitsToFloat(b);
    return resultF(a, b, x * y);
  }

  static long addD(long a, long b) {
    return resultD(a, b, Double.longBitsToDouble(a) + Double.longBitsToDouble(b));
  }

  static long subD(long a, long b) {
    return resultD(a, b, Double.longBitsToDouble(a) - Double.longBitsToDouble(b));
  }

  static long mulD(long a, long b) {
    return resultD(a, b, Double.longBitsToDouble(a) * Double.longBitsToDouble(b));
  }

  private static int resultF(int a, int b, float r) {
    if (isNaNF(a)) {
      return a | FLOAT_QUIET;
    }
    if (isNaNF(b)) {
      return b | FLOAT_QUIET;
    }
    return Float.isNaN(r) ? FLOAT_DEFAULT_NAN : Float.floatToRawIntBits(r);
  }

  private static long resultD(long a, long b, double r) {
    if (isNaND(a)) {
      return a | DOUBLE_QUIET;
    }
    if (isNaND(b)) {
      return b | DOUBLE_QUIET;
    }
    return Double.isNaN(r) ? DOUBLE_DEFAULT_NAN : Double.doubleToRawLongBits(r);
  }

  static boolean isNaNF(int bits) {
    return (bits & 0x7FFFFFFF) > 0x7F800000;
  }

  static boolean isNaND(long bits) {
    return (bits & 0x7FFFFFFFFFFFFFFFL) > 0x7FF0000000000000L;
  }

  private static boolean isInfF(int bits) {
    return (bits & 0x7FFFFFFF) == 0x7F800000;
  }

  private static boolean isInfD(long bits) {
    return (bits & 0x7FFFFFFFFFFFFFFFL) == 0x7FF0000000000000L;
  }

  /** copysign(isinf(v) ? 1 : 0, v): libgcc's "box the infinity". */
  private static int boxF(int v) {
    return (v & 0x80000000) | (isInfF(v) ? 0x3F800000 : 0);
  }

  private static long boxD(long v) {
    return (v & 0x8000000000000000L) | (isInfD(v) ? 0x3FF0000000000000L : 0);
  }

  /** copysign(0, v) when v is NaN, else v. */
  private static int zeroNaNF(int v) {
    return isNaNF(v) ? v & 0x80000000 : v;
  }

  private static long zeroNaND(long v) {
    return isNaND(v) ? v & 0x8000000000000000L : v;
  }

  /**
   * (a + bi) * (c + di) on FLOAT_COMPLEX bits: real part in the low 32 bits, imaginary in the high
   * 32, as the 8 bytes of memory read little-endian.
   */
  static long mulComplexF(long z, long w) {
    int a = (int) z;
    int b = (int) (z >>> 32);
    int c = (int) w;
    int d = (int) (w >>> 32);
    int ac = mulF(a, c);
    int bd = mulF(b, d);
    int ad = mulF(a, d);
    int bc = mulF(b, c);
    int x = subF(ac, bd);
    int y = addF(ad, bc);
    if (isNaNF(x) && isNaNF(y)) {
      boolean recalc = false;
      if (isInfF(a) || isInfF(b)) {
        a = boxF(a);
        b = boxF(b);
        c = zeroNaNF(c);
        d = zeroNaNF(d);
        recalc = true;
      }
      if (isInfF(c) || isInfF(d)) {
        c = boxF(c);
        d = boxF(d);
        a = zeroNaNF(a);
        b = zeroNaNF(b);
        recalc = true;
      }
      if (!recalc && (isInfF(ac) || isInfF(bd) || isInfF(ad) || isInfF(bc))) {
        a = zeroNaNF(a);
        b = zeroNaNF(b);
        c = zeroNaNF(c);
        d = zeroNaNF(d);
        recalc = true;
      }
      if (recalc) {
        int inf = 0x7F800000;
        x = mulF(inf, subF(mulF(a, c), mulF(b, d)));
        y = mulF(inf, addF(mulF(a, d), mulF(b, c)));
      }
    }
    return (x & 0xFFFFFFFFL) | ((long) y << 32);
  }

  /** (a + bi) * (c + di) on DOUBLE_COMPLEX parts; returns {real, imaginary} bits. */
  static long[] mulComplexD(long a, long b, long c, long d) {
    long ac = mulD(a, c);
    long bd = mulD(b, d);
    long ad = mulD(a, d);
    long bc = mulD(b, c);
    long x = subD(ac, bd);
    long y = addD(ad, bc);
    if (isNaND(x) && isNaND(y)) {
      boolean recalc = false;
      if (isInfD(a) || isInfD(b)) {
        a = boxD(a);
        b = boxD(b);
        c = zeroNaND(c);
        d = zeroNaND(d);
        recalc = true;
      }
      if (isInfD(c) || isInfD(d)) {
        c = boxD(c);
        d = boxD(d);
        a = zeroNaND(a);
        b = zeroNaND(b);
        recalc = true;
      }
      if (!recalc && (isInfD(ac) || isInfD(bd) || isInfD(ad) || isInfD(bc))) {
        a = zeroNaND(a);
        b = zeroNaND(b);
        c = zeroNaND(c);
        d = zeroNaND(d);
        recalc = true;
      }
      if (recalc) {
        long inf = 0x7FF0000000000000L;
        x = mulD(inf, subD(mulD(a, c), mulD(b, d)));
        y = mulD(inf, addD(mulD(a, d), mulD(b, c)));
      }
    }
    return new long[] {x, y};
  }
}
