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
    write(s, off, signExponent, significand);
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
          ? new LongDouble(sign | MAX_EXPONENT, INTEGER_BIT)
          : new LongDouble(sign | MAX_EXPONENT, INTEGER_BIT | QUIET_BIT | (fraction << 11));
    }
    if (exponent == 0) {
      if (fraction == 0) {
        return new LongDouble(sign, 0);
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

  /** The exponent the value is computed with: denormals and pseudo-denormals use 1, not 0. */
  private int valueExponent() {
    return valueExponent(signExponent);
  }

  public boolean isNaN() {
    return isNaN(signExponent, significand);
  }

  public boolean isInfinite() {
    return isInfinite(signExponent, significand);
  }

  public boolean isZero() {
    return isZero(signExponent, significand);
  }

  /** The sign bit, whatever the encoding (so also for -0 and negative NaNs). */
  public boolean isNegative() {
    return isNegative(signExponent);
  }

  /** Pseudo-NaN, pseudo-infinity or unnormal: a nonzero exponent without the integer bit. */
  public boolean isUnsupported() {
    return isUnsupported(signExponent, significand);
  }

  public LongDouble negate() {
    return new LongDouble(signExponent ^ SIGN, significand);
  }

  public LongDouble copySign(LongDouble s) {
    return new LongDouble((signExponent & ~SIGN) | (s.signExponent & SIGN), significand);
  }

  public LongDouble add(LongDouble b) {
    ElementScratch r = new ElementScratch();
    add(signExponent, significand, b.signExponent, b.significand, false, r);
    return result(r);
  }

  public LongDouble subtract(LongDouble b) {
    ElementScratch r = new ElementScratch();
    add(signExponent, significand, b.signExponent, b.significand, true, r);
    return result(r);
  }

  public LongDouble multiply(LongDouble b) {
    ElementScratch r = new ElementScratch();
    multiply(signExponent, significand, b.signExponent, b.significand, r);
    return result(r);
  }

  private static LongDouble result(ElementScratch r) {
    return new LongDouble(r.signExponent, r.significand);
  }

  public boolean lessThan(LongDouble b) {
    return compare(signExponent, significand, b.signExponent, b.significand) == -1;
  }

  public boolean lessOrEqual(LongDouble b) {
    return lessOrEqual(compare(signExponent, significand, b.signExponent, b.significand));
  }

  public boolean greaterThan(LongDouble b) {
    return compare(signExponent, significand, b.signExponent, b.significand) == 1;
  }

  public boolean greaterOrEqual(LongDouble b) {
    return greaterOrEqual(compare(signExponent, significand, b.signExponent, b.significand));
  }

  public boolean ieeeEquals(LongDouble b) {
    return compare(signExponent, significand, b.signExponent, b.significand) == 0;
  }

  /** True when unordered too: the complement of {@link #ieeeEquals}. */
  public boolean ieeeNotEquals(LongDouble b) {
    return compare(signExponent, significand, b.signExponent, b.significand) != 0;
  }

  /** C's truth, {@code x != 0}: -0 is false, NaNs and unsupported encodings are true. */
  public boolean isTrue() {
    return isTrue(signExponent, significand);
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
    ElementScratch r = new ElementScratch();
    complexMultiply(
        a.signExponent,
        a.significand,
        b.signExponent,
        b.significand,
        c.signExponent,
        c.significand,
        d.signExponent,
        d.significand,
        r);
    return new LongDouble[] {result(r), new LongDouble(r.imSignExponent, r.imSignificand)};
  }

  /** The two fields in hex, as {@code SSSS:MMMMMMMMMMMMMMMM} (tools/x87ref writes the same). */
  @Override
  public String toString() {
    return String.format("%04x:%016x", signExponent, significand);
  }

  // ---------------------------------------------------------------------------------------------
  // The arithmetic itself, on primitives: a value is its two fields (se = signExponent, m =
  // significand), and a rounded result is left in an ElementScratch rather than returned as a new
  // record. The record methods above and WideSemantics's element kernels both run these, so they
  // compute the same bits; the element kernels allocate nothing.
  // ---------------------------------------------------------------------------------------------

  /** The sign and exponent field of the value at {@code off}, 0..0xFFFF. */
  static int readSignExponent(MemorySegment s, long off) {
    return s.get(SHORT_LAYOUT, off + 8) & 0xFFFF;
  }

  /** The significand of the value at {@code off}. */
  static long readSignificand(MemorySegment s, long off) {
    return s.get(SIGNIFICAND_LAYOUT, off);
  }

  /** Writes the 10 value bytes at {@code off} and zeroes the 6 padding bytes after them. */
  static void write(MemorySegment s, long off, int se, long m) {
    s.set(SIGNIFICAND_LAYOUT, off, m);
    s.set(SHORT_LAYOUT, off + 8, (short) se);
    s.set(SHORT_LAYOUT, off + 10, (short) 0);
    s.set(INT_LAYOUT, off + 12, 0);
  }

  private static int valueExponent(int se) {
    return Math.max(se & MAX_EXPONENT, 1);
  }

  static boolean isNaN(int se, long m) {
    return (se & MAX_EXPONENT) == MAX_EXPONENT && m < 0 && m != INTEGER_BIT;
  }

  static boolean isInfinite(int se, long m) {
    return (se & MAX_EXPONENT) == MAX_EXPONENT && m == INTEGER_BIT;
  }

  static boolean isZero(int se, long m) {
    return (se & MAX_EXPONENT) == 0 && m == 0;
  }

  static boolean isNegative(int se) {
    return (se & SIGN) != 0;
  }

  static boolean isUnsupported(int se, long m) {
    return (se & MAX_EXPONENT) != 0 && m >= 0;
  }

  /** What x87 compares as unordered, and what gcc's {@code isnan} (x != x) reports. */
  static boolean isUnordered(int se, long m) {
    return isNaN(se, m) || isUnsupported(se, m);
  }

  /** C's truth, {@code x != 0}: -0 is false, NaNs and unsupported encodings are true. */
  static boolean isTrue(int se, long m) {
    return !isZero(se, m);
  }

  /** a + b, or a - b when {@code subtract}, into {@code out}'s first register. */
  static void add(int aSe, long aM, int bSe, long bM, boolean subtract, ElementScratch out) {
    if (nanResult(aSe, aM, bSe, bM, out)) {
      return;
    }
    boolean negA = isNegative(aSe);
    boolean negB = isNegative(bSe) != subtract;
    boolean infA = isInfinite(aSe, aM);
    boolean infB = isInfinite(bSe, bM);
    if (infA || infB) {
      if (infA && infB && negA != negB) {
        defaultNaN(out);
      } else {
        infinity(infA ? negA : negB, out);
      }
      return;
    }
    int ea = valueExponent(aSe);
    int eb = valueExponent(bSe);
    long ma = aM;
    long mb = bM;
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
      zero(negA && negB, out);
      return;
    }
    round(negA, ea + 1, hi, lo, out);
  }

  /** a * b into {@code out}'s first register. */
  static void multiply(int aSe, long aM, int bSe, long bM, ElementScratch out) {
    if (nanResult(aSe, aM, bSe, bM, out)) {
      return;
    }
    boolean negative = isNegative(aSe) != isNegative(bSe);
    boolean zero = isZero(aSe, aM) || isZero(bSe, bM);
    if (isInfinite(aSe, aM) || isInfinite(bSe, bM)) {
      if (zero) {
        defaultNaN(out);
      } else {
        infinity(negative, out);
      }
      return;
    }
    if (zero) {
      zero(negative, out);
      return;
    }
    long hi = Math.unsignedMultiplyHigh(aM, bM);
    long lo = aM * bM;
    round(negative, valueExponent(aSe) + valueExponent(bSe) - BIAS + 1, hi, lo, out);
  }

  /**
   * Rounds the nonzero 128-bit magnitude hi:lo * 2^(exponent - BIAS - 127) to 64 bits, nearest
   * even, once, into {@code out}'s first register: denormal results are shifted to exponent 1
   * before rounding (gradual underflow), results past the largest finite value become infinity.
   */
  private static void round(boolean negative, int exponent, long hi, long lo, ElementScratch out) {
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
      infinity(negative, out);
      return;
    }
    if (hi == 0) {
      zero(negative, out);
      return;
    }
    // Without the integer bit the result is a denormal (exponent field 0); rounding up into the
    // integer bit makes it the smallest normal, exponent 1.
    int field = hi < 0 ? exponent : 0;
    set(out, (negative ? SIGN : 0) | field, hi);
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

  /**
   * When an operand is not a number, puts the x87 result in {@code out}'s first register and
   * returns true; returns false, leaving {@code out} alone, when both are numbers.
   */
  private static boolean nanResult(int aSe, long aM, int bSe, long bM, ElementScratch out) {
    if (isUnsupported(aSe, aM) || isUnsupported(bSe, bM)) {
      defaultNaN(out);
      return true;
    }
    boolean nanA = isNaN(aSe, aM);
    boolean nanB = isNaN(bSe, bM);
    if (nanA && nanB) {
      int c = Long.compareUnsigned(aM, bM);
      if (c == 0) {
        // Equal significands: the sign bits are ANDed, so a positive one wins.
        set(out, aSe & bSe, aM | QUIET_BIT);
      } else if (c > 0) {
        set(out, aSe, aM | QUIET_BIT);
      } else {
        set(out, bSe, bM | QUIET_BIT);
      }
      return true;
    }
    if (nanA) {
      set(out, aSe, aM | QUIET_BIT);
      return true;
    }
    if (nanB) {
      set(out, bSe, bM | QUIET_BIT);
      return true;
    }
    return false;
  }

  private static void set(ElementScratch out, int se, long m) {
    out.signExponent = se;
    out.significand = m;
  }

  private static void defaultNaN(ElementScratch out) {
    set(out, SIGN | MAX_EXPONENT, INTEGER_BIT | QUIET_BIT);
  }

  private static void zero(boolean negative, ElementScratch out) {
    set(out, negative ? SIGN : 0, 0);
  }

  private static void infinity(boolean negative, ElementScratch out) {
    set(out, (negative ? SIGN : 0) | MAX_EXPONENT, INTEGER_BIT);
  }

  /** -1, 0 or 1 as a is below, equal to or above b; UNORDERED with a NaN or unsupported. */
  static int compare(int aSe, long aM, int bSe, long bM) {
    if (isUnordered(aSe, aM) || isUnordered(bSe, bM)) {
      return UNORDERED;
    }
    if (isZero(aSe, aM) && isZero(bSe, bM)) {
      return 0; // +0 == -0
    }
    boolean negative = isNegative(aSe);
    if (negative != isNegative(bSe)) {
      return negative ? -1 : 1;
    }
    // Same sign: with exponent 0 read as 1, (exponent, significand) orders the magnitudes,
    // so a pseudo-denormal equals the smallest normal.
    int c = Integer.compare(valueExponent(aSe), valueExponent(bSe));
    if (c == 0) {
      c = Long.compareUnsigned(aM, bM);
    }
    return negative ? -c : c;
  }

  /** Whether a {@link #compare} result means a &lt;= b. */
  static boolean lessOrEqual(int comparison) {
    return comparison == -1 || comparison == 0;
  }

  /** Whether a {@link #compare} result means a &gt;= b. */
  static boolean greaterOrEqual(int comparison) {
    return comparison == 1 || comparison == 0;
  }

  /**
   * {@link #complexMultiply(LongDouble, LongDouble, LongDouble, LongDouble)} on primitives: the
   * real part goes to {@code out}'s first register, the imaginary part to its second.
   */
  static void complexMultiply(
      int aSe, long aM, int bSe, long bM, int cSe, long cM, int dSe, long dM, ElementScratch out) {
    multiply(aSe, aM, cSe, cM, out);
    int acSe = out.signExponent;
    long acM = out.significand;
    multiply(bSe, bM, dSe, dM, out);
    int bdSe = out.signExponent;
    long bdM = out.significand;
    multiply(aSe, aM, dSe, dM, out);
    int adSe = out.signExponent;
    long adM = out.significand;
    multiply(bSe, bM, cSe, cM, out);
    int bcSe = out.signExponent;
    long bcM = out.significand;
    add(adSe, adM, bcSe, bcM, false, out); // y
    int ySe = out.signExponent;
    long yM = out.significand;
    add(acSe, acM, bdSe, bdM, true, out); // x
    int xSe = out.signExponent;
    long xM = out.significand;
    if (isNaN(xSe, xM) && isNaN(ySe, yM)) {
      // libgcc's isinf is fabs(v) > LDBL_MAX and its isnan is v != v, both x87 compares, so an
      // unsupported encoding counts as NaN and never as infinite.
      boolean recalc = false;
      if (isInfinite(aSe, aM) || isInfinite(bSe, bM)) {
        // z is infinite: box the infinity, NaNs in the other factor become 0.
        long m = boxSignificand(aSe, aM);
        aSe = boxSignExponent(aSe, aM);
        aM = m;
        m = boxSignificand(bSe, bM);
        bSe = boxSignExponent(bSe, bM);
        bM = m;
        m = zeroIfNaNSignificand(cSe, cM);
        cSe = zeroIfNaNSignExponent(cSe, cM);
        cM = m;
        m = zeroIfNaNSignificand(dSe, dM);
        dSe = zeroIfNaNSignExponent(dSe, dM);
        dM = m;
        recalc = true;
      }
      if (isInfinite(cSe, cM) || isInfinite(dSe, dM)) {
        long m = boxSignificand(cSe, cM);
        cSe = boxSignExponent(cSe, cM);
        cM = m;
        m = boxSignificand(dSe, dM);
        dSe = boxSignExponent(dSe, dM);
        dM = m;
        m = zeroIfNaNSignificand(aSe, aM);
        aSe = zeroIfNaNSignExponent(aSe, aM);
        aM = m;
        m = zeroIfNaNSignificand(bSe, bM);
        bSe = zeroIfNaNSignExponent(bSe, bM);
        bM = m;
        recalc = true;
      }
      if (!recalc
          && (isInfinite(acSe, acM)
              || isInfinite(bdSe, bdM)
              || isInfinite(adSe, adM)
              || isInfinite(bcSe, bcM))) {
        // Infinities from overflow: NaNs become 0.
        long m = zeroIfNaNSignificand(aSe, aM);
        aSe = zeroIfNaNSignExponent(aSe, aM);
        aM = m;
        m = zeroIfNaNSignificand(bSe, bM);
        bSe = zeroIfNaNSignExponent(bSe, bM);
        bM = m;
        m = zeroIfNaNSignificand(cSe, cM);
        cSe = zeroIfNaNSignExponent(cSe, cM);
        cM = m;
        m = zeroIfNaNSignificand(dSe, dM);
        dSe = zeroIfNaNSignExponent(dSe, dM);
        dM = m;
        recalc = true;
      }
      if (recalc) {
        // x = inf * (ac - bd), y = inf * (ad + bc), every step rounded
        multiply(aSe, aM, cSe, cM, out);
        int pSe = out.signExponent;
        long pM = out.significand;
        multiply(bSe, bM, dSe, dM, out);
        add(pSe, pM, out.signExponent, out.significand, true, out);
        multiply(MAX_EXPONENT, INTEGER_BIT, out.signExponent, out.significand, out);
        xSe = out.signExponent;
        xM = out.significand;
        multiply(aSe, aM, dSe, dM, out);
        pSe = out.signExponent;
        pM = out.significand;
        multiply(bSe, bM, cSe, cM, out);
        add(pSe, pM, out.signExponent, out.significand, false, out);
        multiply(MAX_EXPONENT, INTEGER_BIT, out.signExponent, out.significand, out);
        ySe = out.signExponent;
        yM = out.significand;
      }
    }
    set(out, xSe, xM);
    out.imSignExponent = ySe;
    out.imSignificand = yM;
  }

  /** copysign(isinf(v) ? 1 : 0, v): its sign and exponent field. */
  private static int boxSignExponent(int se, long m) {
    return (isInfinite(se, m) ? BIAS : 0) | (se & SIGN);
  }

  /** copysign(isinf(v) ? 1 : 0, v): its significand. */
  private static long boxSignificand(int se, long m) {
    return isInfinite(se, m) ? INTEGER_BIT : 0;
  }

  /** copysign(0, v) when isnan(v), else v: its sign and exponent field. */
  private static int zeroIfNaNSignExponent(int se, long m) {
    return isUnordered(se, m) ? se & SIGN : se;
  }

  /** copysign(0, v) when isnan(v), else v: its significand. */
  private static long zeroIfNaNSignificand(int se, long m) {
    return isUnordered(se, m) ? 0 : m;
  }
}
