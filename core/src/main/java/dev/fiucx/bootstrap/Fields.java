package dev.fiucx.bootstrap;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Reads a payload's fields; whatever does not fit (too short, a length beyond its limit, invalid
 * UTF-8, bytes left over) is {@link Refusal#MALFORMED} with the message's name in the text.
 */
final class Fields {
  private final String message;
  private final ByteBuffer b;

  Fields(String message, byte[] payload) {
    this.message = message;
    this.b = ByteBuffer.wrap(payload);
  }

  BootstrapException malformed(String what) {
    return new BootstrapException(Refusal.MALFORMED, message + ": " + what);
  }

  int u8() throws BootstrapException {
    need(1);
    return Byte.toUnsignedInt(b.get());
  }

  int u16() throws BootstrapException {
    need(2);
    return Short.toUnsignedInt(b.getShort());
  }

  long u64() throws BootstrapException {
    need(8);
    return b.getLong();
  }

  byte[] bytes(int n, int max, String what) throws BootstrapException {
    if (n > max) {
      throw malformed(what + " of " + n + " bytes (at most " + max + ")");
    }
    need(n);
    byte[] out = new byte[n];
    b.get(out);
    return out;
  }

  String string(int n, int max, String what) throws BootstrapException {
    byte[] raw = bytes(n, max, what);
    try {
      CharBuffer c =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(raw));
      return c.toString();
    } catch (CharacterCodingException e) {
      throw malformed(what + " is not UTF-8");
    }
  }

  /** No bytes may follow the last field. */
  void end() throws BootstrapException {
    if (b.hasRemaining()) {
      throw malformed(b.remaining() + " bytes after the last field");
    }
  }

  private void need(int n) throws BootstrapException {
    if (b.remaining() < n) {
      throw malformed("truncated at byte " + b.position());
    }
  }
}
