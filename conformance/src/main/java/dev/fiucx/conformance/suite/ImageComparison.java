package dev.fiucx.conformance.suite;

import dev.fiucx.FiDatatype;
import java.util.HexFormat;

/**
 * Byte-exact comparison of memory images, element by element. The six padding bytes after each
 * 80-bit long double (bytes 10 to 15 of every 16) are don't-care, as docs/conformance.md says;
 * every other byte must match, NaN payloads included.
 */
final class ImageComparison {
  private static final HexFormat HEX = HexFormat.of();

  private ImageComparison() {}

  /**
   * Null when {@code actual} equals {@code expected}; otherwise names the first element that
   * differs with both images in hex. Both arrays hold whole elements of {@code dt} from offset 0.
   */
  static String difference(String what, FiDatatype dt, byte[] expected, byte[] actual) {
    if (expected.length != actual.length) {
      return what + ": " + actual.length + " bytes, expected " + expected.length;
    }
    int size = dt.size();
    for (int e = 0; e * size < expected.length; e++) {
      int from = e * size;
      int to = Math.min(from + size, expected.length);
      for (int i = from; i < to; i++) {
        if (expected[i] != actual[i] && !isPadding(dt, i - from)) {
          return what
              + " element "
              + e
              + " (byte "
              + from
              + "): "
              + HEX.formatHex(actual, from, to)
              + ", expected "
              + HEX.formatHex(expected, from, to);
        }
      }
    }
    return null;
  }

  /** Whether byte {@code i} of an element of {@code dt} is long-double padding. */
  static boolean isPadding(FiDatatype dt, int i) {
    return (dt == FiDatatype.LONG_DOUBLE || dt == FiDatatype.LONG_DOUBLE_COMPLEX) && i % 16 >= 10;
  }
}
