package dev.fiucx.bootstrap;

/** HELLO's payload: {@code u16 n, n bytes UTF-8}, who connects, for the target's log. */
final class Hello {
  static final int MAX_CLIENT_BYTES = 256;

  private Hello() {}

  static byte[] encode(String client) {
    byte[] c = Strings.utf8Prefix(client, MAX_CLIENT_BYTES);
    byte[] out = new byte[2 + c.length];
    out[0] = (byte) (c.length >>> 8);
    out[1] = (byte) c.length;
    System.arraycopy(c, 0, out, 2, c.length);
    return out;
  }

  static String decode(byte[] payload) throws BootstrapException {
    Fields f = new Fields("HELLO", payload);
    String client = f.string(f.u16(), MAX_CLIENT_BYTES, "client");
    f.end();
    return client;
  }
}
