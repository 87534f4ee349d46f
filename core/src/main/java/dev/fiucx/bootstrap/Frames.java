package dev.fiucx.bootstrap;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * fiucx's bootstrap wire: every message is one frame {@code magic u32, version u16, type u16,
 * length u32, payload}, big-endian, over TCP. No Java serialization: a payload is fields of fixed
 * size and length-prefixed strings, each with a limit, so a peer of another version or a stranger
 * is told so instead of misread, and no length a peer sends makes the receiver allocate more than
 * it allows.
 *
 * <p>The bootstrap's own types are 1 .. 255 ({@code serve}: HELLO, WELCOME, BYE, ERROR, and
 * CHALLENGE, ANSWER, PROOF for a shared secret, see {@link SecretProof}); a protocol built on the
 * same frames (bench's run control) numbers its types from {@link #FIRST_APPLICATION_TYPE}.
 */
public final class Frames {
  /** "FIUB". */
  public static final int MAGIC = 0x46_49_55_42;

  /** Version 1 was bench's protocol before the bootstrap took it over. */
  public static final int VERSION = 2;

  /** Bytes before the payload. */
  public static final int HEADER_BYTES = 12;

  /** initiator -> target: who connects (a UTF-8 description, for the target's log). */
  public static final int HELLO = 1;

  /** target -> initiator: provider, transport, domain address, regions. */
  public static final int WELCOME = 2;

  /** either way: the sender is leaving (an initiator closing, a target shutting down). */
  public static final int BYE = 3;

  /** either way: u16 {@link Refusal#code}, u16 n, n bytes UTF-8 text; the sender then closes. */
  public static final int ERROR = 4;

  /** target -> initiator, for a serve with a shared secret: 32 bytes, the target's fresh nonce. */
  public static final int CHALLENGE = 5;

  /** initiator -> target: 32 bytes the initiator's nonce, 32 bytes its proof ({@code HMAC}). */
  public static final int ANSWER = 6;

  /** target -> initiator, after a right ANSWER and before the WELCOME: 32 bytes its proof. */
  public static final int PROOF = 7;

  /** The first type a protocol built on these frames may use. */
  public static final int FIRST_APPLICATION_TYPE = 0x100;

  /** The most bytes of an ERROR frame's text. */
  static final int MAX_ERROR_TEXT = 1024;

  private Frames() {}

  /** Writes one frame and flushes. Callers that share {@code out} between threads hold its lock. */
  public static void write(DataOutputStream out, int type, byte[] payload) throws IOException {
    out.writeInt(MAGIC);
    out.writeShort(VERSION);
    out.writeShort(type);
    out.writeInt(payload.length);
    out.write(payload);
    out.flush();
  }

  /** Writes an ERROR frame: the refusal's code and {@code text} (cut to 1 KiB). */
  public static void writeError(DataOutputStream out, Refusal refusal, String text)
      throws IOException {
    write(out, ERROR, errorPayload(refusal, text));
  }

  static byte[] errorPayload(Refusal refusal, String text) {
    byte[] t = Strings.utf8Prefix(text, MAX_ERROR_TEXT);
    return ByteBuffer.allocate(4 + t.length)
        .putShort((short) refusal.code())
        .putShort((short) t.length)
        .put(t)
        .array();
  }

  /** The peer's ERROR frame as an exception (a malformed one too: it says so). */
  public static BootstrapException peerError(Frame f) {
    ByteBuffer b = ByteBuffer.wrap(f.payload());
    if (b.remaining() < 4) {
      return new BootstrapException(Refusal.OTHER, "the peer sent a malformed ERROR frame", true);
    }
    Refusal r = Refusal.ofCode(Short.toUnsignedInt(b.getShort()));
    int n = Math.min(Short.toUnsignedInt(b.getShort()), b.remaining());
    String text = new String(f.payload(), 4, n, StandardCharsets.UTF_8);
    return new BootstrapException(r, text, true);
  }

  /**
   * The next frame, or null at a clean end of stream (between frames).
   *
   * @param maxPayload the largest payload taken; longer is {@link Refusal#TOO_LONG}
   * @param maxType the largest type taken; higher (or 0) is {@link Refusal#BAD_TYPE}
   */
  public static Frame read(DataInputStream in, int maxPayload, int maxType) throws IOException {
    int first = in.read();
    return first < 0 ? null : readRest(first, in, maxPayload, maxType);
  }

  /** The rest of a frame whose first byte was read already (so an idle wait can be told apart). */
  static Frame readRest(int first, DataInputStream in, int maxPayload, int maxType)
      throws IOException {
    try {
      int magic = first << 24 | in.readUnsignedByte() << 16 | in.readUnsignedShort();
      if (magic >>> 16 == 0x1503 || magic >>> 16 == 0x1603) {
        // a TLS record's header: content type alert (0x15) or handshake (0x16), version 3.x
        throw new BootstrapException(
            Refusal.BAD_MAGIC, "the peer speaks TLS and this side plain TCP");
      }
      if (magic != MAGIC) {
        throw new BootstrapException(
            Refusal.BAD_MAGIC, String.format("not a fiucx bootstrap peer (magic 0x%08x)", magic));
      }
      int version = in.readUnsignedShort();
      if (version != VERSION) {
        throw new BootstrapException(
            Refusal.BAD_VERSION,
            "bootstrap version " + version + " from the peer, this side speaks " + VERSION);
      }
      int type = in.readUnsignedShort();
      long length = Integer.toUnsignedLong(in.readInt());
      if (type == 0 || type > maxType) {
        throw new BootstrapException(Refusal.BAD_TYPE, "unknown frame type " + type);
      }
      if (length > maxPayload) {
        throw new BootstrapException(
            Refusal.TOO_LONG,
            "frame type " + type + " of " + length + " bytes (at most " + maxPayload + ")");
      }
      byte[] payload = new byte[(int) length];
      in.readFully(payload);
      return new Frame(type, payload);
    } catch (EOFException e) {
      throw new BootstrapException(Refusal.TRUNCATED, "the stream ended inside a frame");
    }
  }
}
