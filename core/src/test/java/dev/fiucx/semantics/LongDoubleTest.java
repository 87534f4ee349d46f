package dev.fiucx.semantics;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Exact bits against x87 results that gcc computed on x86-64 (tools/x87ref/x87ref.c writes
 * longdouble/x87-reference.txt), then a few readable cases.
 */
class LongDoubleTest {
  private static final String REFERENCE = "/longdouble/x87-reference.txt";
  private static final long J = 0x8000000000000000L;
  private static final int SHOWN_FAILURES = 20;

  private static List<String[]> lines;

  @BeforeAll
  static void readReference() throws IOException {
    lines = new ArrayList<>();
    try (InputStream in = LongDoubleTest.class.getResourceAsStream(REFERENCE)) {
      assertNotNull(in, REFERENCE + " is missing; run tools/x87ref/generate.sh");
      BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII));
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        if (!line.isBlank() && !line.startsWith("#")) {
          lines.add(line.trim().split(" +"));
        }
      }
    }
  }

  private static LongDouble ld(String hex) {
    int colon = hex.indexOf(':');
    return new LongDouble(
        Integer.parseInt(hex.substring(0, colon), 16),
        Long.parseUnsignedLong(hex.substring(colon + 1), 16));
  }

  private static LongDouble ld(int signExponent, long significand) {
    return new LongDouble(signExponent, significand);
  }

  private static String bits(boolean... flags) {
    StringBuilder s = new StringBuilder();
    for (boolean f : flags) {
      s.append(f ? '1' : '0');
    }
    return s.toString();
  }

  /**
   * Runs {@code check} on every reference line of one kind; check returns null when the line
   * passes, else what went wrong. Fails with the count and the first few lines in full.
   */
  private static void verify(String kind, int minimum, Function<String[], String> check) {
    int count = 0;
    List<String> failures = new ArrayList<>();
    for (String[] f : lines) {
      if (!f[0].equals(kind)) {
        continue;
      }
      count++;
      String problem = check.apply(f);
      if (problem != null) {
        failures.add(String.join(" ", f) + "\n    " + problem);
      }
    }
    assertTrue(count >= minimum, kind + " lines: " + count + ", expected at least " + minimum);
    if (!failures.isEmpty()) {
      fail(
          failures.size()
              + " of "
              + count
              + " "
              + kind
              + " lines differ from x87, first ones:\n"
              + String.join("\n", failures.subList(0, Math.min(SHOWN_FAILURES, failures.size()))));
    }
  }

  private static String mismatch(String what, Object expected, Object actual) {
    return expected.equals(actual) ? null : what + ": x87 " + expected + ", Java " + actual;
  }

  private static String firstOf(String... problems) {
    for (String p : problems) {
      if (p != null) {
        return p;
      }
    }
    return null;
  }

  @Test
  void arithmeticAndComparisonsMatchX87() {
    verify(
        "P",
        9000,
        f -> {
          LongDouble a = ld(f[1]);
          LongDouble b = ld(f[2]);
          return firstOf(
              mismatch("a+b", ld(f[3]), a.add(b)),
              mismatch("a-b", ld(f[4]), a.subtract(b)),
              mismatch("a*b", ld(f[5]), a.multiply(b)),
              mismatch(
                  "< <= > >= == !=",
                  f[6],
                  bits(
                      a.lessThan(b),
                      a.lessOrEqual(b),
                      a.greaterThan(b),
                      a.greaterOrEqual(b),
                      a.ieeeEquals(b),
                      a.ieeeNotEquals(b))));
        });
  }

  @Test
  void truthAndConversionToDoubleMatchX87() {
    verify(
        "U",
        900,
        f -> {
          LongDouble a = ld(f[1]);
          return firstOf(
              mismatch("a != 0", f[2], a.isTrue() ? "1" : "0"),
              mismatch(
                  "(double) a",
                  f[3],
                  String.format("%016x", Double.doubleToRawLongBits(a.toDouble()))));
        });
  }

  @Test
  void conversionFromDoubleMatchesX87() {
    verify(
        "D",
        300,
        f ->
            mismatch(
                "(long double) d",
                ld(f[2]),
                LongDouble.of(Double.longBitsToDouble(Long.parseUnsignedLong(f[1], 16)))));
  }

  @Test
  void complexProductsMatchGcc() {
    verify(
        "C",
        700,
        f -> {
          LongDouble[] p = LongDouble.complexMultiply(ld(f[1]), ld(f[2]), ld(f[3]), ld(f[4]));
          return firstOf(mismatch("re", ld(f[5]), p[0]), mismatch("im", ld(f[6]), p[1]));
        });
  }

  @Test
  void onePlusOneIsTwo() {
    assertEquals(ld(0x4000, J), LongDouble.ONE.add(LongDouble.ONE));
    assertEquals(ld(0x3fff, J), LongDouble.ONE.multiply(LongDouble.ONE));
    assertEquals(LongDouble.ZERO, LongDouble.ONE.subtract(LongDouble.ONE));
  }

  @Test
  void writeStoresTenBytesLittleEndianAndZeroesThePadding() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment s = arena.allocate(20);
      s.fill((byte) 0xAA);
      ld(0xc000, 0xc90fdaa22168c235L).write(s, 3); // -pi, at an unaligned offset
      byte[] expected = {
        (byte) 0xAA,
        (byte) 0xAA,
        (byte) 0xAA, // before
        0x35,
        (byte) 0xc2,
        0x68,
        0x21,
        (byte) 0xa2,
        (byte) 0xda,
        0x0f,
        (byte) 0xc9, // significand
        0x00,
        (byte) 0xc0, // sign and exponent
        0,
        0,
        0,
        0,
        0,
        0, // padding
        (byte) 0xAA // after
      };
      assertArrayEquals(expected, s.toArray(ValueLayout.JAVA_BYTE));
      assertEquals(ld(0xc000, 0xc90fdaa22168c235L), LongDouble.read(s, 3));
    }
  }

  @Test
  void readIgnoresThePadding() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment s = arena.allocate(16);
      s.fill((byte) 0x55);
      LongDouble.ONE.write(s, 0);
      s.set(ValueLayout.JAVA_BYTE, 12, (byte) 0x77);
      assertEquals(LongDouble.ONE, LongDouble.read(s, 0));
    }
  }

  @Test
  void halfwayCasesRoundToEven() {
    LongDouble half = ld(0x3fbf, J); // 2^-64, half an ulp of 1
    LongDouble onePlusUlp = ld(0x3fff, J | 1);
    assertEquals(LongDouble.ONE, LongDouble.ONE.add(half)); // 1 is even: stays
    assertEquals(ld(0x3fff, J | 2), onePlusUlp.add(half)); // 1+ulp is odd: goes up
    assertEquals(ld(0x3fff, J | 1), LongDouble.ONE.add(ld(0x3fbf, J | 1))); // above half: up
    // the largest finite value is odd, so half an ulp more overflows
    LongDouble max = ld(0x7ffe, -1L);
    assertEquals(LongDouble.POSITIVE_INFINITY, max.add(ld(0x7fbe, J)));
    assertEquals(max, max.add(ld(0x7fbd, J)));
  }

  @Test
  void invalidOperationsGiveTheNegativeDefaultNaN() {
    LongDouble inf = LongDouble.POSITIVE_INFINITY;
    assertEquals(ld(0xffff, 0xC000000000000000L), LongDouble.DEFAULT_NAN);
    assertEquals(LongDouble.DEFAULT_NAN, inf.subtract(inf));
    assertEquals(LongDouble.DEFAULT_NAN, inf.add(inf.negate()));
    assertEquals(LongDouble.DEFAULT_NAN, LongDouble.ZERO.multiply(inf));
    assertEquals(inf, inf.add(inf));
    // an unsupported operand (here a pseudo-infinity) is invalid even next to a quiet NaN
    assertEquals(LongDouble.DEFAULT_NAN, ld(0x7fff, 0).add(ld(0x7fff, 0xC000000000000001L)));
  }

  @Test
  void nanOperandsFollowTheX87Rule() {
    LongDouble snan = ld(0x7fff, J | 1);
    LongDouble qnanNeg = ld(0xffff, J | 0x4000000000000001L);
    // one NaN: returned quieted
    assertEquals(ld(0x7fff, J | 0x4000000000000001L), snan.add(LongDouble.ONE));
    // the larger raw significand wins: the quiet NaN, although both quiet to the same bits
    assertEquals(qnanNeg, snan.multiply(qnanNeg));
    assertEquals(qnanNeg, qnanNeg.subtract(snan));
    // equal significands: positive unless both are negative, in either order
    LongDouble qnanPos = qnanNeg.negate();
    assertEquals(qnanPos, qnanNeg.add(qnanPos));
    assertEquals(qnanPos, qnanPos.add(qnanNeg));
    assertEquals(qnanNeg, qnanNeg.add(qnanNeg));
  }

  @Test
  void signedZeros() {
    LongDouble negZero = LongDouble.ZERO.negate();
    LongDouble three = LongDouble.of(3);
    assertEquals(LongDouble.ZERO, three.add(three.negate()));
    assertEquals(LongDouble.ZERO, three.subtract(three));
    assertEquals(negZero, negZero.add(negZero));
    assertEquals(LongDouble.ZERO, negZero.add(LongDouble.ZERO));
    assertEquals(LongDouble.ZERO, negZero.subtract(negZero));
    assertEquals(negZero, negZero.multiply(three));
    assertTrue(negZero.ieeeEquals(LongDouble.ZERO));
    assertFalse(negZero.lessThan(LongDouble.ZERO));
    assertFalse(negZero.isTrue());
  }

  @Test
  void denormalResults() {
    LongDouble minNormal = ld(0x0001, J);
    LongDouble minDenormal = ld(0x0000, 1);
    LongDouble half = ld(0x3ffe, J);
    assertEquals(ld(0x0000, 0x4000000000000000L), minNormal.multiply(half));
    assertEquals(LongDouble.ZERO, minDenormal.multiply(half)); // tie, rounds to even 0
    assertEquals(ld(0x0000, 2), minDenormal.multiply(ld(0x3fff, 0xC000000000000000L))); // 1.5 -> 2
    assertEquals(minDenormal, minNormal.subtract(ld(0x0000, 0x7fffffffffffffffL)));
    // a pseudo-denormal is the smallest normal's value, and results come out normalized
    LongDouble pseudo = ld(0x0000, J);
    assertTrue(pseudo.ieeeEquals(minNormal));
    assertEquals(minNormal, pseudo.add(LongDouble.ZERO));
    assertFalse(pseudo.isUnsupported());
    assertEquals(minNormal.toBigDecimal(), pseudo.toBigDecimal());
  }

  @Test
  void doublesConvertExactlyBothWays() {
    double[] values = {
      0.0,
      -0.0,
      1.0,
      -2.5,
      Math.PI,
      Double.MIN_VALUE,
      -Double.MIN_NORMAL,
      0x1.fffffffffffffp-1023,
      Double.MAX_VALUE,
      Double.POSITIVE_INFINITY,
      Double.NEGATIVE_INFINITY
    };
    for (double d : values) {
      LongDouble x = LongDouble.of(d);
      assertEquals(
          Double.doubleToRawLongBits(d), Double.doubleToRawLongBits(x.toDouble()), x::toString);
      if (!Double.isInfinite(d)) {
        assertEquals(0, new BigDecimal(d).compareTo(x.toBigDecimal()), x::toString);
      }
    }
    assertEquals(LongDouble.ONE, LongDouble.of(1.0));
    // 1 + 2^-53 is halfway between 1 and its successor: to even, 1.0; a hair more goes up
    assertEquals(1.0, ld(0x3fff, J | (1L << 10)).toDouble());
    assertEquals(Math.nextUp(1.0), ld(0x3fff, J | (1L << 10) | 1).toDouble());
    // 1 + 1.5 double ulps is halfway between 1 + ulp (odd) and 1 + 2 ulps (even)
    assertEquals(Math.nextUp(Math.nextUp(1.0)), ld(0x3fff, J | (3L << 10)).toDouble());
    // below the double range: half the smallest denormal rounds to 0, a hair more to it
    assertEquals(0.0, LongDouble.of(Double.MIN_VALUE).multiply(ld(0x3ffe, J)).toDouble());
    assertEquals(Double.MIN_VALUE, ld(0x3bcc, J | 1).toDouble());
    assertEquals(Double.POSITIVE_INFINITY, ld(0x43ff, J).toDouble());
  }

  @Test
  void toBigDecimalIsExactAndRejectsNonNumbers() {
    assertEquals(new BigDecimal("0.5"), ld(0x3ffe, J).toBigDecimal());
    assertEquals(
        new BigDecimal("18446744073709551615"), ld(0x3fff + 63, -1L).toBigDecimal()); // 2^64 - 1
    assertThrows(ArithmeticException.class, () -> LongDouble.DEFAULT_NAN.toBigDecimal());
    assertThrows(ArithmeticException.class, () -> LongDouble.POSITIVE_INFINITY.toBigDecimal());
    assertThrows(ArithmeticException.class, () -> ld(0x3fff, 1).toBigDecimal()); // unnormal
  }

  @Test
  void classification() {
    assertTrue(LongDouble.DEFAULT_NAN.isNaN());
    assertTrue(ld(0x7fff, J | 1).isNaN()); // signalling
    assertFalse(ld(0x7fff, 1).isNaN()); // pseudo-NaN
    assertTrue(ld(0x7fff, 1).isUnsupported());
    assertTrue(ld(0x7fff, 0).isUnsupported()); // pseudo-infinity
    assertTrue(ld(0x4000, 0x7fffffffffffffffL).isUnsupported()); // unnormal
    assertFalse(ld(0x0000, 1).isUnsupported()); // denormal
    assertTrue(LongDouble.POSITIVE_INFINITY.negate().isInfinite());
    assertTrue(LongDouble.POSITIVE_INFINITY.negate().isNegative());
    assertTrue(ld(0x8000, 0).isZero());
    assertEquals(ld(0xbfff, J), LongDouble.ONE.copySign(LongDouble.DEFAULT_NAN));
    assertThrows(IllegalArgumentException.class, () -> ld(0x10000, J));
  }

  @Test
  void comparisonsAreUnorderedWithNaNs() {
    LongDouble nan = LongDouble.DEFAULT_NAN;
    LongDouble one = LongDouble.ONE;
    assertFalse(nan.lessThan(one) || nan.lessOrEqual(one) || nan.greaterThan(one));
    assertFalse(nan.greaterOrEqual(one) || nan.ieeeEquals(nan));
    assertTrue(nan.ieeeNotEquals(nan));
    assertTrue(one.negate().lessThan(ld(0x0000, 1)));
    assertTrue(LongDouble.POSITIVE_INFINITY.greaterThan(ld(0x7ffe, -1L)));
  }

  @Test
  void truth() {
    assertTrue(LongDouble.DEFAULT_NAN.isTrue());
    assertTrue(ld(0x0000, 1).isTrue());
    assertFalse(LongDouble.ZERO.isTrue());
    assertEquals(LongDouble.ONE, LongDouble.fromBoolean(true));
    assertEquals(LongDouble.ZERO, LongDouble.fromBoolean(false));
  }

  @Test
  void complexProductRecoversInfinities() {
    LongDouble inf = LongDouble.POSITIVE_INFINITY;
    LongDouble nan = ld(0x7fff, 0xC000000000000000L);
    LongDouble two = LongDouble.of(2);
    LongDouble three = LongDouble.of(3);
    // (2 + 3i)(2 - 3i) = 13
    assertArrayEquals(
        new LongDouble[] {LongDouble.of(13), LongDouble.ZERO},
        LongDouble.complexMultiply(two, three, two, three.negate()));
    // (inf + NaN i)(1 + 0i): the inline product is NaN + NaN i; __mulxc3 boxes the infinity to
    // 1 + 0i and gets inf * (1*1 - 0*0) = inf and inf * (1*0 + 0*1) = inf * 0 = default NaN
    assertArrayEquals(
        new LongDouble[] {inf, LongDouble.DEFAULT_NAN},
        LongDouble.complexMultiply(inf, nan, LongDouble.ONE, LongDouble.ZERO));
    // (inf + inf i)(1 + 1i): inline gives NaN twice (inf - inf, and inf + inf is fine: only re is
    // NaN), so no recovery: re stays the default NaN
    assertArrayEquals(
        new LongDouble[] {LongDouble.DEFAULT_NAN, inf},
        LongDouble.complexMultiply(inf, inf, LongDouble.ONE, LongDouble.ONE));
  }
}
