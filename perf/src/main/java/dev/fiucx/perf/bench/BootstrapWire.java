package dev.fiucx.perf.bench;

import dev.fiucx.bootstrap.BootstrapException;
import dev.fiucx.bootstrap.Frames;
import dev.fiucx.bootstrap.Refusal;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;

/**
 * bench's run control over fiucx's bootstrap frames ({@link Frames}: magic, version, type, length,
 * payload; the same wire a {@code fiucx serve} speaks). bench's own messages take types from {@link
 * Frames#FIRST_APPLICATION_TYPE} on; BYE and ERROR are the bootstrap's. A {@code bench --server}
 * answers a serve's HELLO with an ERROR (and a serve answers bench's HELLO so), so pointing either
 * initiator at the wrong kind of target says so at once.
 *
 * <pre>
 * HELLO   initiator -> target  u64 region bytes wanted
 * CHALLENGE, ANSWER, PROOF      the bootstrap's proof of the shared secret, both ways, when the
 *                               target has one ({@link dev.fiucx.bootstrap.SecretProof})
 * READY   target -> initiator  u32 n, n bytes domain address (Endpoint.name()), u64 key, u64 length
 * START   initiator -> target  begin progressing (answered by STARTED)
 * STOP    initiator -> target  stop progressing, answered by REGION with the region's bytes
 * ZERO    initiator -> target  zero the region (answered by OK); only between runs
 * PERFTEST initiator -> target start ucx_perftest's server on the target's host (between runs),
 *                              answered by PERFTEST_PORT (u64 port) once it listens, or by an
 *                              ERROR after which the target stays (no --perftest-server, no
 *                              ucx_perftest)
 * PERFTEST_DONE initiator -> target  the round's client ended: reap the server (answered by OK)
 * BYE     initiator -> target  the target closes its domain and exits (so does end of stream)
 * ERROR   target -> initiator  the bootstrap's ERROR frame; the target then closes
 * </pre>
 */
final class BootstrapWire {
  /** Larger payloads are refused: region images are at most a few MiB. */
  static final int MAX_PAYLOAD = 64 << 20;

  enum Type {
    HELLO(Frames.FIRST_APPLICATION_TYPE),
    READY(Frames.FIRST_APPLICATION_TYPE + 1),
    START(Frames.FIRST_APPLICATION_TYPE + 2),
    STARTED(Frames.FIRST_APPLICATION_TYPE + 3),
    STOP(Frames.FIRST_APPLICATION_TYPE + 4),
    REGION(Frames.FIRST_APPLICATION_TYPE + 5),
    ZERO(Frames.FIRST_APPLICATION_TYPE + 6),
    OK(Frames.FIRST_APPLICATION_TYPE + 7),
    PERFTEST(Frames.FIRST_APPLICATION_TYPE + 8),
    PERFTEST_PORT(Frames.FIRST_APPLICATION_TYPE + 9),
    PERFTEST_DONE(Frames.FIRST_APPLICATION_TYPE + 10),
    CHALLENGE(Frames.CHALLENGE),
    ANSWER(Frames.ANSWER),
    PROOF(Frames.PROOF),
    BYE(Frames.BYE),
    ERROR(Frames.ERROR);

    final int code;

    Type(int code) {
      this.code = code;
    }

    static Type of(int code) {
      for (Type t : values()) {
        if (t.code == code) {
          return t;
        }
      }
      return null;
    }
  }

  /** One frame: its type and payload. */
  record Frame(Type type, byte[] payload) {}

  /** READY's payload: what the initiator needs to reach the target's region. */
  record Ready(byte[] address, long key, long length) {
    byte[] encode() {
      return ByteBuffer.allocate(4 + address.length + 16)
          .putInt(address.length)
          .put(address)
          .putLong(key)
          .putLong(length)
          .array();
    }

    static Ready decode(byte[] payload) throws IOException {
      try {
        ByteBuffer b = ByteBuffer.wrap(payload);
        byte[] address = new byte[b.getInt()];
        b.get(address);
        Ready r = new Ready(address, b.getLong(), b.getLong());
        if (b.hasRemaining()) {
          throw new IOException("READY has " + b.remaining() + " bytes too many");
        }
        return r;
      } catch (BufferUnderflowException | NegativeArraySizeException e) {
        throw new IOException("READY is truncated", e);
      }
    }
  }

  static byte[] u64(long v) {
    return ByteBuffer.allocate(8).putLong(v).array();
  }

  static long u64(byte[] payload) throws IOException {
    if (payload.length != 8) {
      throw new IOException("expected 8 bytes, got " + payload.length);
    }
    return ByteBuffer.wrap(payload).getLong();
  }

  private BootstrapWire() {}

  static void write(DataOutputStream out, Type type, byte[] payload) throws IOException {
    Frames.write(out, type.code, payload);
  }

  static void write(DataOutputStream out, Type type) throws IOException {
    write(out, type, new byte[0]);
  }

  static void writeError(DataOutputStream out, String text) throws IOException {
    Frames.writeError(out, Refusal.OTHER, text);
  }

  /**
   * The next frame, or null at a clean end of stream (between frames); a serve's HELLO is refused
   * as {@link Refusal#UNEXPECTED} with a hint.
   */
  static Frame read(DataInputStream in) throws IOException {
    dev.fiucx.bootstrap.Frame f = Frames.read(in, MAX_PAYLOAD, 0xffff);
    if (f == null) {
      return null;
    }
    Type t = Type.of(f.type());
    if (f.type() == Frames.HELLO) {
      throw new BootstrapException(
          Refusal.UNEXPECTED,
          "this is a bench --server, not a fiucx serve (run bench --connect without --region)");
    }
    if (t == null) {
      throw new BootstrapException(Refusal.BAD_TYPE, "unknown bench frame type " + f.type());
    }
    return new Frame(t, f.payload());
  }

  /** Reads the next frame and checks its type; an ERROR frame becomes an IOException. */
  static byte[] expect(DataInputStream in, Type type) throws IOException {
    Frame f = read(in);
    if (f == null) {
      throw new IOException("the bench target closed the connection (expected " + type + ")");
    }
    if (f.type() == Type.ERROR) {
      BootstrapException e =
          Frames.peerError(new dev.fiucx.bootstrap.Frame(Frames.ERROR, f.payload()));
      throw new IOException("the bench target says: " + e.getMessage(), e);
    }
    if (f.type() != type) {
      throw new IOException("expected " + type + " from the bench target, got " + f.type());
    }
    return f.payload();
  }
}
