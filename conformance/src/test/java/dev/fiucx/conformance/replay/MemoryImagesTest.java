package dev.fiucx.conformance.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fiucx.FiDatatype;
import dev.fiucx.conformance.replay.MemoryImages.Match;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class MemoryImagesTest {
  private static Match compare(FiDatatype dt, String expected, String actual) {
    return MemoryImages.compare(
        dt, HexFormat.of().parseHex(expected), HexFormat.of().parseHex(actual));
  }

  @Test
  void longDoublePaddingIsDontCare() {
    assertEquals(
        Match.EXACT,
        compare(
            FiDatatype.LONG_DOUBLE,
            "0000000000000080ff3f000000000000",
            "0000000000000080ff3fdeadbeef0102"));
    assertEquals(
        Match.DIFFERENT,
        compare(
            FiDatatype.LONG_DOUBLE,
            "0000000000000080ff3f000000000000",
            "0000000000000080fe3f000000000000"));
    assertEquals(
        Match.EXACT,
        compare(
            FiDatatype.LONG_DOUBLE_COMPLEX,
            "0000000000000080ff3f0000000000000000000000000080ff3f000000000000",
            "0000000000000080ff3f1111111111110000000000000080ff3f222222222222"));
  }

  @Test
  void nanEqualIsPerRealPart() {
    // complex float: real NaN with other payload, imaginary equal
    assertEquals(
        Match.NAN_EQUAL, compare(FiDatatype.FLOAT_COMPLEX, "0000c07f0000803f", "0100c0ff0000803f"));
    assertEquals(
        Match.DIFFERENT, compare(FiDatatype.FLOAT_COMPLEX, "0000c07f0000803f", "0100c0ff00000040"));
    assertEquals(
        Match.NAN_EQUAL,
        compare(
            FiDatatype.LONG_DOUBLE,
            "000000000000c0ffff7f000000000000",
            "010000000000c0ffffff000000000000"));
    assertEquals(
        Match.DIFFERENT,
        compare(
            FiDatatype.LONG_DOUBLE,
            "000000000000c0ffff7f000000000000",
            "0000000000000080ff7f000000000000")); // infinity is no NaN
    assertEquals(Match.DIFFERENT, compare(FiDatatype.UINT32, "ffffffff", "fffffffe"));
  }
}
