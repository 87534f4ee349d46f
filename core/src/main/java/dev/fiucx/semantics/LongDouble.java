package dev.fiucx.semantics;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteOrder;

/**
 * The x86-64 80-bit extended-precision {@code long double}, bit for bit as the x87 FPU computes it
 * under Linux's default control word (64-bit precision, round to nearest even, every exception
 * masked).
 *
 * <p>{@code signExponent} is the 16-bit sign and biased-exponent field (0..0xFFFF), {@code
 * significand} the 64-bit significand with its explicit integer bit (bit 63). In memory the value
 * takes a 16-byte slot, little-endian: significand in bytes 0-7, sign and exponent in bytes 8-9,
 * padding in bytes 10-15.
 *
 * <p>Encodings, by exponent field E and integer bit J:
 *
 * <ul>
 *   <li>E = 0: zero or denormal when J = 0; a pseudo-denormal when J = 1, a valid value read with
 *       exponent 1 (x87 accepts them as operands but never produces them).
 *   <li>0 &lt; E &lt; 0x7FFF: normal when J = 1; an unnormal, unsupported, when J = 0.
 *   <li>E = 0x7FFF: infinity for significand 0x8000000000000000, a NaN (quiet when bit 62 is set)
 *       for any other with J = 1; pseudo-infinity and pseudo-NaN, unsupported, when J = 0.
 * </ul>
 *
 * <p>NaN results follow x87, measured on this machine with gcc (tools/x87ref): an unsupported
 * operand makes the operation invalid and gives {@link #DEFAULT_NAN}, even beside a NaN; a single
 * NaN operand is returned quieted; of two NaNs the one whose raw significand is larger as an
 * unsigned number wins (so a quiet NaN beats a signalling one whose quieted significand would tie
 * it), quieted; when both significands are equal the result is positive unless both are negative.
 * The rule is symmetric, so it does not depend on operand order.
 */
public record LongDouble(int signExponent, long significand) {
  private static final int BIAS = 0x3FFF;
  private static final int MAX_EXPONENT = 0x7FFF;
  private static final int SIGN = 0x8000;
  private static final long INTEGER_BIT = 0x8000000000000000L;
  private static final long QUIET_BIT = 0x4000000000000000L;
  private static final ValueLayout.OfLong SIGNIFICAND_LAYOUT =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfShort SHORT_LAYOUT =
      ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfInt INT_LAYOUT =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final int UNORDERED = 2;

  public static final LongDouble ZERO = new LongDouble(0, 0);
  public static final LongDouble ONE = new LongDouble(BIAS, INTEGER_BIT);
  public static final LongDouble POSITIVE_INFINITY = new LongDouble(MAX_EXPONENT, INTEGER_BIT);

  /** The x87 "real indefinite" that every invalid operation returns: note the sign bit is set. */
  public static final LongDouble DEFAULT_NAN =
      new LongDouble(SIGN | MAX_EXPONENT, INTEGER_BIT | QUIET_BIT);

  public LongDouble {
    if ((signExponent & ~0xFFFF) != 0) {
      throw new IllegalArgumentException("signExponent is 16 bits: " + signExponent);
    }
  }

  /** Reads the 10 value bytes at {@code off}; the padding is ignored. */
  public static LongDouble read(MemorySegment s, long off) {
    return new LongDouble(s.get(SHORT_LAYOUT, off + 8) & 0xFFFF, s.get(SIGNIFICAND_LAYOUT, off));
  }

  /** Writes the 10 value bytes at {@code off} and zeroes the 6 padding bytes after them. */
  public void write(MemorySegment s, long off) {
    s.set(SIGNIFICAND_LAYOUT, off, significand);
    s.set(SHORT_LAYOUT, off + 8, (short) signExponent);
    s.set(SHORT_LAYOUT, off + 10, (short) 0);
    s.set(INT_LAYOUT, off + 12, 0);
  }

  /**
   * The double's value, exactly (every double is representable). A NaN comes back quieted with its
   * payload, as x87 {@code fld} of a 64-bit operand does.
   */
  public static LongDouble of(double d) {
    long bits = Double.doubleToRawLongBits(d);
    int sign = bits < 0 ? SIGN : 0;
    int exponent = (int) (bits >>> 52) & 0x7FF;
    long fraction = bits & 0x000FFFFFFFFFFFFFL;
    if (exponent == 0x7FF) {
      return fraction == 0
          ? infinity(sign != 0)
          : new LongDouble(sign | MAX_EXPONENT, INTEGER_BIT | QUIET_BIT | (fraction << 11));
    }
    if (exponent == 0) {
      if (fraction == 0) {
        return zero(sign != 0);
      }
      // A double denormal is fraction * 2^-1074; normalize it, extended has the range.
      int lz = Long.numberOfLeadingZeros(fraction);
      return new LongDouble(sign | (BIAS + 63 - 1074 - lz), fraction << lz);
    }
    return new LongDouble(sign | (exponent - 1023 + BIAS), INTEGER_BIT | (fraction << 11));
  }

  /**
   * Rounds to the nearest double, ties to even, through the double denormals, to infinity beyond
   * the double range: what x87 {@code fstp} to a 64-bit operand stores. A NaN keeps its sign and
   * the top of its payload and is quieted; an unsupported encoding gives the default double NaN.
   */
  public double toDouble() {
    long sign = isNegative() ? Long.MIN_VALUE : 0;
    if (isUnsupported()) {
      return Double.longBitsToDouble(Sse.DOUBLE_DEFAULT_NAN);
    }
    if (isNaN()) {
      long payload = (significand >>> 11) & 0x000FFFFFFFFFFFFFL;
      return Double.longBitsToDouble(sign | 0x7FF8000000000000L | payload);
    }
    if (isInfinite()) {
      return Double.longBitsToDouble(sign | 0x7FF0000000000000L);
    }
    if (significand == 0) {
      return Double.longBitsToDouble(sign);
    }
    int lz = Long.numberOfLeadingZeros(significand);
    long m = significand << lz;
    int e = valueExponent() - lz - BIAS; // the value is 1.f * 2^e
    if (e > 1023) {
      return Double.longBitsToDouble(sign | 0x7FF0000000000000L);
    }
    // Keep 53 bits of m (fewer below 2^-1022); the rounded count of double ulps added to the
    // exponent field carries a denormal into the normals and the largest double into infinity.
    int drop = 11;
    long field = e + 1022;
    if (e < -1022) {
      drop += -1022 - e;
      field = 0;
    }
    if (drop > 64) {
      return Double.longBitsToDouble(sign);
    }
    long kept = drop == 64 ? 0 : m >>> drop;
    boolean half = ((m >>> (drop - 1)) & 1) != 0;
    boolean sticky = (m << (65 - drop)) != 0;
    if (half && (sticky || (kept & 1) != 0)) {
      kept++;
    }
    return Double.longBitsToDouble(sign | ((field << 52) + kept));
  }

  /** The exact value. Throws {@link ArithmeticException} for NaN, infinity and unsupported. */
  public BigDecimal toBigDecimal() {
    if (isNaN() || isInfinite() || isUnsupported()) {
      throw new ArithmeticException(this + " has no numeric value");
    }
    BigInteger m = new BigInteger(Long.toUnsignedString(significand));
    int power = valueExponent() - BIAS - 63;
    // m * 2^-k = m * 5^k / 10^k keeps the value exact
    BigDecimal v =
        power >= 0
            ? new BigDecimal(m.shiftLeft(power))
            : new BigDecimal(m.multiply(BigInteger.valueOf(5).pow(-power)), -power);
    // the shortest scale that holds the value, so 0.5 reads 0.5 and 2^64 - 1 has scale 0
    v = v.signum() == 0 ? BigDecimal.ZERO : v.stripTrailingZeros();
    v = v.scale() < 0 ? v.setScale(0) : v;
    return isNegative() ? v.negate() : v;
  }

  private int exponentField() {
    return signExponent & MAX_EXPONENT;
  }

  /** The exponent the value is computed with: denormals and pseudo-denormals use 1, not 0. */
  private int valueExponent() {
    return Math.max(exponentField(), 1);
  }

  public boolean isNaN() {
    return exponentField() == MAX_EXPONENT && significand < 0 && significand != INTEGER_BIT;
  }

  public boolean isInfinite() {
    return exponentField() == MAX_EXPONENT && significand == INTEGER_BIT;
  }

  public boolean isZero() {
    return exponentField() == 0 && significand == 0;
  }

  /** The sign bit, whatever the encoding (so also for -0 and negative NaNs). */
  public boolean isNegative() {
    return (signExponent & SIGN) != 0;
  }

  /** Pseudo-NaN, pseudo-infinity or unnormal: a nonzero exponent without the integer bit. */
  public boolean isUnsupported() {
    return exponentField() != 0 && significand >= 0;
  }

  /** What x87 compares as unordered, and what gcc's {@code isnan} (x != x) reports. */
  private boolean isUnordered() {
    return isNaN() || isUnsupported();
  }

  public LongDouble negate() {
    return new LongDouble(signExponent ^ SIGN, significand);
  }

  public LongDouble copySign(LongDouble s) {
    return new LongDouble((signExponent & ~SIGN) | (s.signExponent & SIGN), significand);
  }

  public LongDouble add(LongDouble b) {
    return addSigned(b, false);
  }

  public LongDouble subtract(LongDouble b) {
    return addSigned(b, true);
  }

  private LongDouble addSigned(LongDouble b, boolean subtract) {
    LongDouble nan = nanResult(this, b);
    if (nan != null) {
      return nan;
    }
    boolean negA = isNegative();
    boolean negB = b.isNegative() != subtract;
    if (isInfinite() || b.isInfinite()) {
      if (isInfinite() && b.isInfinite() && negA != negB) {
        return DEFAULT_NAN;
      }
      return infinity(isInfinite() ? negA : negB);
    }
    int ea = valueExponent();
    int eb = b.valueExponent();
    long ma = significand;
    long mb = b.significand;
    if (ea < eb || (ea == eb && Long.compareUnsigned(ma, mb) < 0)) {
      int e = ea;
      ea = eb;
      eb = e;
      long m = ma;
      ma = mb;
      mb = m;
      boolean n = negA;
      negA = negB;
      negB = n;
    }
    // 128-bit fixed point with a's integer bit at bit 126: one bit of headroom for the carry,
    // 63 bits below a's last bit, and whatever of b falls further down folded into a sticky bit.
    int shift = ea - eb + 1;
    long hi = ma >>> 1;
    long lo = ma << 63;
    long bHi = shift >= 64 ? 0 : mb >>> shift;
    long bLo = lowAfterShift(mb, 0, shift);
    if (negA == negB) {
      long sum = lo + bLo;
      hi += bHi + (Long.compareUnsigned(sum, lo) < 0 ? 1 : 0);
      lo = sum;
    } else {
      hi -= bHi + (Long.compareUnsigned(lo, bLo) < 0 ? 1 : 0);
      lo -= bLo;
    }
    if ((hi | lo) == 0) {
      // An exact zero sum is +0 in round-to-nearest, unless both terms were negative (-0 + -0).
      return zero(negA && negB);
    }
    return round(negA, ea + 1, hi, lo);
  }

  public LongDouble multiply(LongDouble b) {
    LongDouble nan = nanResult(this, b);
    if (nan != null) {
      return nan;
    }
    boolean negative = isNegative() != b.isNegative();
    if (isInfinite() || b.isInfinite()) {
      return isZero() || b.isZero() ? DEFAULT_NAN : infinity(negative);
    }
    if (isZero() || b.isZero()) {
      return zero(negative);
    }
    long hi = Math.unsignedMultiplyHigh(significand, b.significand);
    long lo = significand * b.significand;
    return round(negative, valueExponent() + b.valueExponent() - BIAS + 1, hi, lo);
  }

  /**
   * Rounds the nonzero 128-bit magnitude hi:lo * 2^(exponent - BIAS - 127) to 64 bits, nearest
   * even, once: denormal results are shifted to exponent 1 before rounding (gradual underflow),
   * results past the largest finite value become infinity.
   */
  private static LongDouble round(boolean negative, int exponent, long hi, long lo) {
    int lz = hi != 0 ? Long.numberOfLeadingZeros(hi) : 64 + Long.numberOfLeadingZeros(lo);
    if (lz >= 64) {
      hi = lo << (lz - 64);
      lo = 0;
    } else if (lz > 0) {
      hi = (hi << lz) | (lo >>> (64 - lz));
      lo <<= lz;
    }
    exponent -= lz;
    if (exponent < 1) {
      int shift = 1 - exponent;
      lo = lowAfterShift(hi, lo, shift);
      hi = shift >= 64 ? 0 : hi >>> shift;
      exponent = 1;
    }
    boolean half = lo < 0;
    boolean sticky = (lo << 1) != 0;
    if (half && (sticky || (hi & 1) != 0)) {
      hi++;
      if (hi == 0) {
        hi = INTEGER_BIT;
        exponent++;
      }
    }
    if (exponent >= MAX_EXPONENT) {
      return infinity(negative);
    }
    if (hi == 0) {
      return zero(negative);
    }
    // Without the integer bit the result is a denormal (exponent field 0); rounding up into the
    // integer bit makes it the smallest normal, exponent 1.
    int field = hi < 0 ? exponent : 0;
    return new LongDouble((negative ? SIGN : 0) | field, hi);
  }

  /**
   * The low word of the 128-bit hi:lo shifted right by {@code shift} (at least 1), with every bit
   * shifted out ORed into bit 0. That sticky bit lies far below any rounding position, so it
   * decides ties exactly as all the lost bits would.
   */
  private static long lowAfterShift(long hi, long lo, int shift) {
    if (shift < 64) {
      return (hi << (64 - shift)) | (lo >>> shift) | sticky(lo << (64 - shift));
    }
    if (shift == 64) {
      return hi | sticky(lo);
    }
    if (shift < 128) {
      return (hi >>> (shift - 64)) | sticky((hi << (128 - shift)) | lo);
    }
    return sticky(hi | lo);
  }

  private static long sticky(long lost) {
    return lost != 0 ? 1 : 0;
  }

  /** The x87 result when an operand is not a number, or null when both are numbers. */
  private static LongDouble nanResult(LongDouble a, LongDouble b) {
    if (a.isUnsupported() || b.isUnsupported()) {
      return DEFAULT_NAN;
    }
    if (a.isNaN() && b.isNaN()) {
      int c = Long.compareUnsigned(a.significand, b.significand);
      if (c == 0) {
        // Equal significands: the sign bits are ANDed, so a positive one wins.
        return new LongDouble(a.signExponent & b.signExponent, a.significand).quiet();
      }
      return (c > 0 ? a : b).quiet();
    }
    if (a.isNaN()) {
      return a.quiet();
    }
    return b.isNaN() ? b.quiet() : null;
  }

  private LongDouble quiet() {
    return new LongDouble(signExponent, significand | QUIET_BIT);
  }

  private static LongDouble zero(boolean negative) {
    return negative ? ZERO.negate() : ZERO;
  }

  private static LongDouble infinity(boolean negative) {
    return negative ? POSITIVE_INFINITY.negate() : POSITIVE_INFINITY;
  }

  /** -1, 0 or 1 as this is below, equal to or above b; UNORDERED with a NaN or unsupported. */
  private int compare(LongDouble b) {
    if (isUnordered() || b.isUnordered()) {
      return UNORDERED;
    }
    if (isZero() && b.isZero()) {
      return 0; // +0 == -0
    }
    if (isNegative() != b.isNegative()) {
      return isNegative() ? -1 : 1;
    }
    // Same sign: with exponent 0 read as 1, (exponent, significand) orders the magnitudes,
    // so a pseudo-denormal equals the smallest normal.
    int c = Integer.compare(valueExponent(), b.valueExponent());
    if (c == 0) {
      c = Long.compareUnsigned(significand, b.significand);
    }
    return isNegative() ? -c : c;
  }

  public boolean lessThan(LongDouble b) {
    return compare(b) == -1;
  }

  public boolean lessOrEqual(LongDouble b) {
    int c = compare(b);
    return c == -1 || c == 0;
  }

  public boolean greaterThan(LongDouble b) {
    return compare(b) == 1;
  }

  public boolean greaterOrEqual(LongDouble b) {
    int c = compare(b);
    return c == 1 || c == 0;
  }

  public boolean ieeeEquals(LongDouble b) {
    return compare(b) == 0;
  }

  /** True when unordered too: the complement of {@link #ieeeEquals}. */
  public boolean ieeeNotEquals(LongDouble b) {
    return compare(b) != 0;
  }

  /** C's truth, {@code x != 0}: -0 is false, NaNs and unsupported encodings are true. */
  public boolean isTrue() {
    return !isZero();
  }

  public static LongDouble fromBoolean(boolean b) {
    return b ? ONE : ZERO;
  }

  /**
   * (a + bi) * (c + di) as gcc computes {@code long double _Complex} products on x86-64 without
   * -ffast-math: inline (ac - bd, ad + bc), each step rounded to extended precision, and when both
   * parts are NaN the C99 Annex G recovery of infinities of libgcc's {@code __mulxc3}. Returns {re,
   * im}.
   */
  public static LongDouble[] complexMultiply(
      LongDouble a, LongDouble b, LongDouble c, LongDouble d) {
    LongDouble ac = a.multiply(c);
    LongDouble bd = b.multiply(d);
    LongDouble ad = a.multiply(d);
    LongDouble bc = b.multiply(c);
    LongDouble x = ac.subtract(bd);
    LongDouble y = ad.add(bc);
    if (x.isNaN() && y.isNaN()) {
      // libgcc's isinf is fabs(v) > LDBL_MAX and its isnan is v != v, both x87 compares, so an
      // unsupported encoding counts as NaN and never as infinite.
      boolean recalc = false;
      if (a.isInfinite() || b.isInfinite()) {
        // z is infinite: box the infinity, NaNs in the other factor become 0.
        a = box(a);
        b = box(b);
        c = zeroIfNaN(c);
        d = zeroIfNaN(d);
        recalc = true;
      }
      if (c.isInfinite() || d.isInfinite()) {
        c = box(c);
        d = box(d);
        a = zeroIfNaN(a);
        b = zeroIfNaN(b);
        recalc = true;
      }
      if (!recalc && (ac.isInfinite() || bd.isInfinite() || ad.isInfinite() || bc.isInfinite())) {
        // Infinities from overflow: NaNs become 0.
        a = zeroIfNaN(a);
        b = zeroIfNaN(b);
        c = zeroIfNaN(c);
        d = zeroIfNaN(d);
        recalc = true;
      }
      if (recalc) {
        x = POSITIVE_INFINITY.multiply(a.multiply(c).subtract(b.multiply(d)));
        y = POSITIVE_INFINITY.multiply(a.multiply(d).add(b.multiply(c)));
      }
    }
    return new LongDouble[] {x, y};
  }

  /** copysign(isinf(v) ? 1 : 0, v). */
  private static LongDouble box(LongDouble v) {
    return (v.isInfinite() ? ONE : ZERO).copySign(v);
  }

  /** copysign(0, v) when isnan(v), else v. */
  private static LongDouble zeroIfNaN(LongDouble v) {
    return v.isUnordered() ? ZERO.copySign(v) : v;
  }

  /** The two fields in hex, as {@code SSSS:MMMMMMMMMMMMMMMM} (tools/x87ref writes the same). */
  @Override
  public String toString() {
    return String.format("%04x:%016x", signExponent, significand);
  }
}
