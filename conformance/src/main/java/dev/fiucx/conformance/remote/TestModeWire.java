package dev.fiucx.conformance.remote;

import dev.fiucx.PeerRegion;
import dev.fiucx.bootstrap.BootstrapException;
import dev.fiucx.bootstrap.Frame;
import dev.fiucx.bootstrap.Frames;
import dev.fiucx.bootstrap.Refusal;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The test mode's messages, carried on fiucx's bootstrap after the WELCOME (types from {@link
 * Frames#FIRST_APPLICATION_TYPE}, as bench's run control): a test looks at and changes a target's
 * memory without going through the provider under test, and closes or renews its regions. Only a
 * {@link TestModeServe} answers them; a user's serve refuses the first with an ERROR frame ({@link
 * Refusal#UNEXPECTED}: {@code frame type 256 where BYE was expected (this is a fiucx serve)}).
 *
 * <pre>
 * SET     u8 n, n bytes region name; u64 offset; the bytes to write  -> OK
 * GET     u8 n, n bytes region name; u64 offset; u32 length          -> DATA the bytes
 * CLOSE   u8 n, n bytes region name  (revokes its key)               -> OK
 * RENEW   u8 n, n bytes region name  (closes it if open, exposes a   -> RENEWED u64 address,
 *         new zeroed one of the same name, length, kind and access)     u64 key
 * FACT    u8 n, n bytes fact name    (one of the domain's describe()) -> DATA its value, UTF-8
 * FAILED  u16 n, n bytes UTF-8: why a well-formed request was not carried out (an offset outside
 *         the region, a closed or unknown region); the connection stays open
 * </pre>
 *
 * All big-endian. A request that does not parse is refused with the bootstrap's ERROR frame ({@link
 * Refusal#MALFORMED}) and the connection is closed.
 *
 * <p>Public for the tests of a provider that check the wire itself; its frames are the bootstrap's,
 * which core exports to this module and to perf only, so such a test is granted that package.
 */
// "exports": Frame is the bootstrap's, exported by core to this module and perf only (see above)
@SuppressWarnings("exports")
public final class TestModeWire {
  /** Request: write bytes into a region. */
  public static final int SET = Frames.FIRST_APPLICATION_TYPE;

  /** Request: read bytes of a region. */
  public static final int GET = Frames.FIRST_APPLICATION_TYPE + 1;

  /** Request: close a region, revoking its key. */
  public static final int CLOSE = Frames.FIRST_APPLICATION_TYPE + 2;

  /** Request: close a region and expose a new one in its place. */
  public static final int RENEW = Frames.FIRST_APPLICATION_TYPE + 3;

  /** Request: one of the target domain's {@code describe()} facts. */
  public static final int FACT = Frames.FIRST_APPLICATION_TYPE + 4;

  /** Answer: done. */
  public static final int OK = Frames.FIRST_APPLICATION_TYPE + 0x80;

  /** Answer: the bytes or the fact asked for. */
  public static final int DATA = Frames.FIRST_APPLICATION_TYPE + 0x81;

  /** Answer: the new region's key. */
  public static final int RENEWED = Frames.FIRST_APPLICATION_TYPE + 0x82;

  /** Answer: the request failed; the payload says why. */
  public static final int FAILED = Frames.FIRST_APPLICATION_TYPE + 0x8f;

  /**
   * The most bytes one SET carries or one GET asks for: the frame stays under the bootstrap's 64
   * KiB payload limit; longer transfers are cut into pieces by the client.
   */
  static final int MAX_CHUNK = 32 << 10;

  private TestModeWire() {}

  /**
   * A parsed request: its type, the region's name (the fact's for FACT), offset, and the bytes
   * (SET) or length (GET).
   */
  record Request(int type, String name, long offset, byte[] bytes, int length) {}

  /**
   * {@return a SET of {@code bytes} at {@code offset} of {@code region}}
   *
   * @param region the region's name
   * @param offset the first byte's offset
   * @param bytes the bytes
   */
  public static Frame set(String region, long offset, byte[] bytes) {
    byte[] n = name(region);
    return new Frame(
        SET,
        ByteBuffer.allocate(1 + n.length + 8 + bytes.length)
            .put((byte) n.length)
            .put(n)
            .putLong(offset)
            .put(bytes)
            .array());
  }

  /**
   * {@return a GET of {@code length} bytes at {@code offset} of {@code region}}
   *
   * @param region the region's name
   * @param offset the first byte's offset
   * @param length how many bytes
   */
  public static Frame get(String region, long offset, int length) {
    byte[] n = name(region);
    return new Frame(
        GET,
        ByteBuffer.allocate(1 + n.length + 12)
            .put((byte) n.length)
            .put(n)
            .putLong(offset)
            .putInt(length)
            .array());
  }

  /**
   * {@return a CLOSE of {@code region}}
   *
   * @param region the region's name
   */
  public static Frame close(String region) {
    return new Frame(CLOSE, nameOnly(region));
  }

  /**
   * {@return a RENEW of {@code region}}
   *
   * @param region the region's name
   */
  public static Frame renew(String region) {
    return new Frame(RENEW, nameOnly(region));
  }

  /**
   * {@return a FACT asking for {@code name}}
   *
   * @param name the fact's name
   */
  public static Frame fact(String name) {
    return new Frame(FACT, nameOnly(name));
  }

  static Frame ok() {
    return new Frame(OK, new byte[0]);
  }

  static Frame renewed(long address, long key) {
    return new Frame(RENEWED, ByteBuffer.allocate(16).putLong(address).putLong(key).array());
  }

  static Frame failed(String why) {
    byte[] t = why.getBytes(StandardCharsets.UTF_8);
    int n = Math.min(t.length, 1024);
    return new Frame(FAILED, ByteBuffer.allocate(2 + n).putShort((short) n).put(t, 0, n).array());
  }

  /**
   * {@return the text FAILED says}
   *
   * @param payload the FAILED frame's payload
   */
  public static String failure(byte[] payload) {
    ByteBuffer b = ByteBuffer.wrap(payload);
    int n = b.remaining() < 2 ? 0 : Math.min(Short.toUnsignedInt(b.getShort()), b.remaining());
    return new String(payload, payload.length - b.remaining(), n, StandardCharsets.UTF_8);
  }

  /** Parses a request; what does not parse is {@link Refusal#MALFORMED}. */
  static Request parse(Frame f) throws BootstrapException {
    String what =
        switch (f.type()) {
          case SET -> "SET";
          case GET -> "GET";
          case CLOSE -> "CLOSE";
          case RENEW -> "RENEW";
          case FACT -> "FACT";
          default ->
              throw new BootstrapException(
                  Refusal.BAD_TYPE, "unknown test-mode frame type " + f.type());
        };
    ByteBuffer b = ByteBuffer.wrap(f.payload());
    try {
      byte[] n = new byte[Byte.toUnsignedInt(b.get())];
      b.get(n);
      String name = new String(n, StandardCharsets.US_ASCII);
      if (!PeerRegion.validName(name)) {
        throw new BootstrapException(Refusal.MALFORMED, what + ": bad name");
      }
      Request r =
          switch (f.type()) {
            case SET -> {
              long offset = b.getLong();
              byte[] bytes = new byte[b.remaining()];
              b.get(bytes);
              yield new Request(SET, name, offset, bytes, bytes.length);
            }
            case GET -> new Request(GET, name, b.getLong(), null, b.getInt());
            default -> new Request(f.type(), name, 0, null, 0);
          };
      if (b.hasRemaining()) {
        throw new BootstrapException(
            Refusal.MALFORMED, what + ": " + b.remaining() + " bytes after the last field");
      }
      return r;
    } catch (BufferUnderflowException e) {
      throw new BootstrapException(Refusal.MALFORMED, what + ": truncated at byte " + b.position());
    }
  }

  /** A region's or fact's name: {@link PeerRegion#NAME_RULE} holds for both. */
  private static byte[] name(String name) {
    if (!PeerRegion.validName(name)) {
      throw new IllegalArgumentException("bad name '" + name + "'");
    }
    return name.getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] nameOnly(String name) {
    byte[] n = name(name);
    return ByteBuffer.allocate(1 + n.length).put((byte) n.length).put(n).array();
  }
}
