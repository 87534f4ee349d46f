package dev.fiucx.ucx;

import java.util.Arrays;

/**
 * The ucx provider's transport address (what core wraps in its own header and checksum): the data
 * worker's UCX address and, when the transport has one ({@link ControlWorker}), its control
 * worker's. Framed as one format byte, then each address as a little-endian 16-bit length and its
 * bytes; a control length of 0 means no control worker. Nothing else may follow.
 *
 * @param data the UCX worker address that atomics, puts and gets go to
 * @param control the UCX worker address that control messages go to, or null: then they go to
 *     {@code data}
 */
record UcxAddress(byte[] data, byte[] control) {
  /**
   * The first byte of this framing; a raw UCX worker address starts with 0 or 1 in its low bits.
   */
  static final int FORMAT = 0xf1;

  private static final int MAX_LENGTH = 0xffff;

  UcxAddress {
    if (data == null || data.length == 0 || data.length > MAX_LENGTH) {
      throw new IllegalArgumentException("a data worker address of 1 to 65535 bytes");
    }
    if (control != null && (control.length == 0 || control.length > MAX_LENGTH)) {
      throw new IllegalArgumentException("a control worker address of 1 to 65535 bytes, or none");
    }
  }

  byte[] encode() {
    int c = control == null ? 0 : control.length;
    byte[] out = new byte[1 + 2 + data.length + 2 + c];
    out[0] = (byte) FORMAT;
    int at = putLength(out, 1, data.length);
    System.arraycopy(data, 0, out, at, data.length);
    at = putLength(out, at + data.length, c);
    if (c > 0) {
      System.arraycopy(control, 0, out, at, c);
    }
    return out;
  }

  /**
   * Reads the framing (not the UCX addresses inside: {@link UcxWorkerAddress#problem} walks them);
   * throws IllegalArgumentException saying what is wrong.
   */
  static UcxAddress read(byte[] a) {
    if (a.length < 1 || (a[0] & 0xff) != FORMAT) {
      throw new IllegalArgumentException(
          a.length == 0 ? "empty" : "format byte " + (a[0] & 0xff) + " (fiucx's ucx writes 241)");
    }
    int dataLength = length(a, 1);
    if (dataLength == 0) {
      throw new IllegalArgumentException("no data worker address");
    }
    int controlAt = 3 + dataLength;
    int controlLength = length(a, controlAt);
    int end = controlAt + 2 + controlLength;
    if (end != a.length) {
      throw new IllegalArgumentException(
          "the framing says " + end + " bytes, the address has " + a.length);
    }
    byte[] data = Arrays.copyOfRange(a, 3, controlAt);
    byte[] control = controlLength == 0 ? null : Arrays.copyOfRange(a, controlAt + 2, end);
    return new UcxAddress(data, control);
  }

  private static int length(byte[] a, int at) {
    if (at > a.length - 2) {
      throw new IllegalArgumentException(
          "ends at byte " + a.length + ", a length expected at " + at);
    }
    return (a[at] & 0xff) | (a[at + 1] & 0xff) << 8;
  }

  private static int putLength(byte[] out, int at, int length) {
    out[at] = (byte) length;
    out[at + 1] = (byte) (length >>> 8);
    return at + 2;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof UcxAddress u
        && Arrays.equals(data, u.data)
        && Arrays.equals(control, u.control);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(data) + Arrays.hashCode(control);
  }

  @Override
  public String toString() {
    return "UcxAddress[" + data.length + " + " + (control == null ? 0 : control.length) + " bytes]";
  }
}
