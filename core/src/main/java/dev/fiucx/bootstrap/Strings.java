package dev.fiucx.bootstrap;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** UTF-8 fields with a byte limit. */
final class Strings {
  private Strings() {}

  /** {@code s} in UTF-8, cut to at most {@code max} bytes at a character boundary. */
  static byte[] utf8Prefix(String s, int max) {
    byte[] b = (s == null ? "" : s).getBytes(StandardCharsets.UTF_8);
    if (b.length <= max) {
      return b;
    }
    int n = max;
    while (n > 0 && (b[n] & 0xc0) == 0x80) {
      n--; // never cut a multi-byte character in half
    }
    return Arrays.copyOf(b, n);
  }
}
