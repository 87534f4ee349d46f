package dev.fiucx.conformance.suite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.fiucx.FiDatatype;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The comparison every check ends in: exact bytes, long-double padding aside. */
class ImageComparisonTest {
  private static final HexFormat HEX = HexFormat.of();

  @Test
  void equalImagesHaveNoDifference() {
    byte[] a = HEX.parseHex("0102030405060708");
    assertNull(ImageComparison.difference("target", FiDatatype.UINT32, a, a.clone()));
  }

  @Test
  void theFirstDifferingElementIsNamedWithBothImages() {
    assertEquals(
        "target element 1 (byte 4): 05060709, expected 05060708",
        ImageComparison.difference(
            "target",
            FiDatatype.UINT32,
            HEX.parseHex("0102030405060708"),
            HEX.parseHex("0102030405060709")));
  }

  @Test
  void aNanPayloadIsADifference() {
    // quiet NaN 0x7ff8000000000000 against one with payload 1
    assertEquals(
        "fetched element 0 (byte 0): 010000000000f87f, expected 000000000000f87f",
        ImageComparison.difference(
            "fetched",
            FiDatatype.DOUBLE,
            HEX.parseHex("000000000000f87f"),
            HEX.parseHex("010000000000f87f")));
  }

  @Test
  void longDoublePaddingIsDontCareButTheTenValueBytesAreNot() {
    byte[] expected = HEX.parseHex("0000000000000080ff3f000000000000");
    byte[] padded = HEX.parseHex("0000000000000080ff3fdeadbeef0102");
    assertNull(ImageComparison.difference("target", FiDatatype.LONG_DOUBLE, expected, padded));
    byte[] exponent = HEX.parseHex("0000000000000080fe3f000000000000");
    assertEquals(
        "target element 0 (byte 0): 0000000000000080fe3f000000000000,"
            + " expected 0000000000000080ff3f000000000000",
        ImageComparison.difference("target", FiDatatype.LONG_DOUBLE, expected, exponent));
    // in a long double complex both halves have padding, bytes 10-15 and 26-31
    byte[] complex = new byte[32];
    byte[] complexPadded = complex.clone();
    complexPadded[15] = 1;
    complexPadded[26] = 1;
    assertNull(
        ImageComparison.difference(
            "target", FiDatatype.LONG_DOUBLE_COMPLEX, complex, complexPadded));
    complexPadded[16] = 1;
    assertEquals(
        "target element 0 (byte 0): "
            + HEX.formatHex(complexPadded)
            + ", expected "
            + HEX.formatHex(complex),
        ImageComparison.difference(
            "target", FiDatatype.LONG_DOUBLE_COMPLEX, complex, complexPadded));
  }

  @Test
  void differentLengthsAreADifference() {
    assertEquals(
        "fetched: 4 bytes, expected 8",
        ImageComparison.difference("fetched", FiDatatype.UINT64, new byte[8], new byte[4]));
  }
}
