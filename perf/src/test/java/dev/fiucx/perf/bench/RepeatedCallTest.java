package dev.fiucx.perf.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import dev.fiucx.semantics.AtomicCell;
import dev.fiucx.semantics.AtomicTable;
import dev.fiucx.semantics.ElementSemantics;
import java.lang.foreign.MemorySegment;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The value an element holds after the same call applied n times: exact values worked out by hand
 * for representative cells, and every valid cell against the calls applied one by one.
 */
class RepeatedCallTest {
  private static final HexFormat HEX = HexFormat.of();

  private static byte[] bytes(String hex) {
    return HEX.parseHex(hex);
  }

  private static String after(FiOp op, FiDatatype dt, String start, String operand, long n) {
    byte[] compare = new byte[dt.size()];
    return HEX.formatHex(RepeatedCall.after(op, dt, bytes(start), bytes(operand), compare, n));
  }

  private static String after(
      FiOp op, FiDatatype dt, String start, String operand, String compare, long n) {
    return HEX.formatHex(
        RepeatedCall.after(op, dt, bytes(start), bytes(operand), bytes(compare), n));
  }

  private static String bench(FiOp op, FiDatatype dt, long calls) {
    return HEX.formatHex(Operands.expected(op, dt, calls));
  }

  @Test
  void prodInt8WrapsAroundAndCycles() {
    // 3^5 = 243; 3^6 = 729 = 0xd9 modulo 256; 3 has order 64 modulo 256
    assertEquals("f3", after(FiOp.PROD, FiDatatype.INT8, "01", "03", 5));
    assertEquals("d9", after(FiOp.PROD, FiDatatype.INT8, "01", "03", 6));
    assertEquals("d9", after(FiOp.PROD, FiDatatype.INT8, "01", "03", 64 + 6));
    // 10^12 is a multiple of 64: back to the start, found from the cycle, not by 10^12 calls
    assertEquals("01", after(FiOp.PROD, FiDatatype.INT8, "01", "03", 1_000_000_000_000L));
    // 2^7 = 0x80 (-128), 2^8 wraps to 0, which stays
    assertEquals("80", after(FiOp.PROD, FiDatatype.INT8, "01", "02", 7));
    assertEquals("00", after(FiOp.PROD, FiDatatype.INT8, "01", "02", 8));
    assertEquals("00", after(FiOp.PROD, FiDatatype.INT8, "01", "02", Long.MAX_VALUE));
    // bench's own: zero times one
    assertEquals("00", bench(FiOp.PROD, FiDatatype.INT8, 300));
  }

  @Test
  void lxorAlternates() {
    assertEquals("01", bench(FiOp.LXOR, FiDatatype.UINT8, 1));
    assertEquals("00", bench(FiOp.LXOR, FiDatatype.UINT8, 2));
    assertEquals("0100000000000000", bench(FiOp.LXOR, FiDatatype.INT64, 1_000_000_001));
    assertEquals("0000000000000000", bench(FiOp.LXOR, FiDatatype.INT64, 1_000_000_000));
    // a true target: any nonzero operand turns it false
    assertEquals("00000000", after(FiOp.LXOR, FiDatatype.INT32, "07000000", "05000000", 1));
    // on a float the truth is 1.0f
    assertEquals("0000803f", bench(FiOp.LXOR, FiDatatype.FLOAT, 3));
    assertEquals("00000000", bench(FiOp.LXOR, FiDatatype.FLOAT, 4));
  }

  @Test
  void cswapGtSwapsOnlyWhileTheCompareIsGreater() {
    // compare 0 > target -1 (signed): swapped to 5; then 0 > 5 no longer holds
    assertEquals("05", after(FiOp.CSWAP_GT, FiDatatype.INT8, "ff", "05", "00", 1));
    assertEquals("05", after(FiOp.CSWAP_GT, FiDatatype.INT8, "ff", "05", "00", 1000));
    // unsigned, 0xff is 255: 0 > 255 never holds
    assertEquals("ff", after(FiOp.CSWAP_GT, FiDatatype.UINT8, "ff", "05", "00", 1000));
    // bench's own: 0 > 0 never holds, the element stays zero
    assertEquals("00000000", bench(FiOp.CSWAP_GT, FiDatatype.UINT32, 1000));
    assertEquals("0000000000000000", bench(FiOp.CSWAP_GT, FiDatatype.DOUBLE, 1000));
    // and CSWAP_GE: 0 >= 0 swaps once, then 0 >= 1 does not
    assertEquals("01000000", bench(FiOp.CSWAP_GE, FiDatatype.INT32, 1000));
    assertEquals("0000803f", bench(FiOp.CSWAP_LE, FiDatatype.FLOAT, 1000));
    assertEquals("0000", bench(FiOp.CSWAP_NE, FiDatatype.INT16, 1000));
  }

  @Test
  void mswapTakesTheOperandsBitsWhereTheMaskIsSet() {
    // (0xf0 & 0x3c) | (0x0f & ~0x3c) = 0x30 | 0x03
    assertEquals("33", after(FiOp.MSWAP, FiDatatype.UINT8, "0f", "f0", "3c", 1));
    assertEquals("33", after(FiOp.MSWAP, FiDatatype.UINT8, "0f", "f0", "3c", 99));
    // bench's compare (mask) is zero: the element keeps its bits
    assertEquals("0000000000000000", bench(FiOp.MSWAP, FiDatatype.UINT64, 1000));
  }

  @Test
  void floatProdHalvesIntoSubnormalsAndRoundsToEvenDownToZero() {
    String three = "00004040"; // 3.0f
    String half = "0000003f"; // 0.5f
    assertEquals("0000c03f", after(FiOp.PROD, FiDatatype.FLOAT, three, half, 1)); // 1.5f
    // 3 x 2^-149 is three of the smallest subnormals, exact
    assertEquals("03000000", after(FiOp.PROD, FiDatatype.FLOAT, three, half, 149));
    // 1.5 of them ties to 2 (even), 1 is exact, 0.5 ties to 0 (even), and 0 stays
    assertEquals("02000000", after(FiOp.PROD, FiDatatype.FLOAT, three, half, 150));
    assertEquals("01000000", after(FiOp.PROD, FiDatatype.FLOAT, three, half, 151));
    assertEquals("00000000", after(FiOp.PROD, FiDatatype.FLOAT, three, half, 152));
    assertEquals("00000000", after(FiOp.PROD, FiDatatype.FLOAT, three, half, 1L << 40));
    // bench's own: 0.0f x 1.0f
    assertEquals("00000000", bench(FiOp.PROD, FiDatatype.FLOAT, 1000));
  }

  @Test
  void floatSumStopsWhereTheSignificandEnds() {
    assertEquals("00008043", bench(FiOp.SUM, FiDatatype.FLOAT, 256)); // 256.0f
    // 2^24 = 0x4b800000; 2^24 + 1 rounds to 2^24 (even), so it stays
    assertEquals("0000804b", bench(FiOp.SUM, FiDatatype.FLOAT, 1L << 24));
    assertEquals("0000804b", bench(FiOp.SUM, FiDatatype.FLOAT, (1L << 24) + 1));
    assertEquals("0000804b00000000", bench(FiOp.SUM, FiDatatype.FLOAT_COMPLEX, 1L << 40));
    // 2^53 = 0x4340000000000000
    assertEquals("0000000000004043", bench(FiOp.SUM, FiDatatype.DOUBLE, Long.MAX_VALUE));
  }

  @Test
  void longDoubleByteExact() {
    // 750.0L = 1.46484375 x 2^9: significand 0xbb80..., exponent 16383 + 9
    assertEquals("00000000000080bb0840000000000000", bench(FiOp.SUM, FiDatatype.LONG_DOUBLE, 750));
    // 2^62 calls: significand 1 << 63, exponent 16383 + 62 (0x403d)
    assertEquals(
        "00000000000000803d40000000000000", bench(FiOp.SUM, FiDatatype.LONG_DOUBLE, 1L << 62));
    String one = "0000000000000080ff3f000000000000";
    assertEquals(one, bench(FiOp.MAX, FiDatatype.LONG_DOUBLE, 1000));
    assertEquals(one, bench(FiOp.LXOR, FiDatatype.LONG_DOUBLE, 1001));
    assertEquals(one, bench(FiOp.CSWAP_LE, FiDatatype.LONG_DOUBLE, 1000));
    assertEquals(
        "00000000000000000000000000000000", bench(FiOp.CSWAP_GT, FiDatatype.LONG_DOUBLE, 1000));
    // 3.0L x 0.5L twice: 0.75L, significand 0xc0..., exponent 16382 (0x3ffe)
    String three = "00000000000000c00040000000000000";
    String half = "0000000000000080fe3f000000000000";
    assertEquals(
        "00000000000000c0fe3f000000000000",
        after(FiOp.PROD, FiDatatype.LONG_DOUBLE, three, half, 2));
    // the complex one: (n + 0i) as its real part, +0 imaginary
    assertEquals(
        "00000000000080bb0840000000000000" + "00000000000000000000000000000000",
        bench(FiOp.SUM, FiDatatype.LONG_DOUBLE_COMPLEX, 750));
    assertEquals(
        one + "00000000000000000000000000000000",
        bench(FiOp.LOR, FiDatatype.LONG_DOUBLE_COMPLEX, 2));
  }

  @Test
  void aCellValidInNoFamilyHasNoValue() {
    assertNull(Operands.expected(FiOp.BOR, FiDatatype.DOUBLE, 3));
  }

  /**
   * Every valid (op, datatype) from bench's start: known after any number of calls, and the same as
   * the calls applied one by one.
   */
  @Test
  void everyValidCellIsKnownAndAgreesWithTheCallsOneByOne() {
    Set<AtomicCell> cells = new LinkedHashSet<>(AtomicTable.reference().validCells());
    Set<String> pairs = new LinkedHashSet<>();
    for (AtomicCell c : cells) {
      FiOp op = c.op();
      FiDatatype dt = c.datatype();
      if (!pairs.add(op + " " + dt)) {
        continue;
      }
      byte[] value = Operands.zero(dt);
      for (int n = 0; n <= 300; n++) {
        String what = op + " " + dt + " after " + n;
        assertArrayEquals(value, Operands.expected(op, dt, n), what);
        value = value.clone();
        ElementSemantics.apply(
            op,
            dt,
            MemorySegment.ofArray(value),
            0,
            MemorySegment.ofArray(Operands.one(dt)),
            0,
            MemorySegment.ofArray(Operands.zero(dt)),
            0,
            null,
            0);
      }
      assertNotNull(Operands.expected(op, dt, Long.MAX_VALUE), op + " " + dt);
    }
    assertEquals(19 * 14 - invalidPairs(), pairs.size());
  }

  /** (op, datatype) pairs no family carries. */
  private static int invalidPairs() {
    int n = 0;
    for (FiOp op : FiOp.values()) {
      for (FiDatatype dt : FiDatatype.values()) {
        if (Operands.expected(op, dt, 0) == null) {
          n++;
        }
      }
    }
    return n;
  }
}
