package dev.fiucx.conformance.replay;

import dev.fiucx.FiDatatype;
import java.util.Arrays;

/**
 * Compares memory images of elements as docs/conformance.md says: byte for byte, except the 6
 * padding bytes of each long double, and, for cases with NaN inputs, a NaN where a NaN was expected
 * ("NaN-equal").
 */
public final class MemoryImages {
  /** How two images compare. */
  public enum Match {
    /** Every byte of value the same. */
    EXACT,
    /** The same but for NaNs of different payloads. */
    NAN_EQUAL,
    /** A value differs. */
    DIFFERENT
  }

  private MemoryImages() {}

  /**
   * {@return how two memory images of {@code dt} elements compare (the padding of long doubles
   * ignored)}
   *
   * @param dt the elements' datatype
   * @param expected the image expected, or null
   * @param actual the image found, or null
   */
  public static Match compare(FiDatatype dt, byte[] expected, byte[] actual) {
    if (expected == null || actual == null) {
      return expected == actual ? Match.EXACT : Match.DIFFERENT;
    }
    if (expected.length != actual.length) {
      return Match.DIFFERENT;
    }
    int part = partSize(dt);
    int significant =
        dt == FiDatatype.LONG_DOUBLE || dt == FiDatatype.LONG_DOUBLE_COMPLEX ? 10 : part;
    Match worst = Match.EXACT;
    for (int off = 0; off < expected.length; off += part) {
      if (Arrays.equals(expected, off, off + significant, actual, off, off + significant)) {
        continue;
      }
      if (!dt.isInteger() && isNaN(expected, off, part) && isNaN(actual, off, part)) {
        worst = Match.NAN_EQUAL;
      } else {
        return Match.DIFFERENT;
      }
    }
    return worst;
  }

  /** Bytes of one real number within an element (the whole element for integers). */
  static int partSize(FiDatatype dt) {
    return switch (dt) {
      case FLOAT_COMPLEX -> 4;
      case DOUBLE_COMPLEX -> 8;
      case LONG_DOUBLE_COMPLEX -> 16;
      default -> dt.size();
    };
  }

  private static boolean isNaN(byte[] b, int off, int part) {
    return switch (part) {
      case 4 -> (le(b, off, 4) & 0x7FFFFFFFL) > 0x7F800000L;
      case 8 -> (le(b, off, 8) & 0x7FFFFFFFFFFFFFFFL) > 0x7FF0000000000000L;
      case 16 -> (le(b, off + 8, 2) & 0x7FFF) == 0x7FFF && (le(b, off, 8) << 1) != 0;
      default -> false;
    };
  }

  private static long le(byte[] b, int off, int n) {
    long v = 0;
    for (int i = n - 1; i >= 0; i--) {
      v = (v << 8) | (b[off + i] & 0xFF);
    }
    return v;
  }
}
