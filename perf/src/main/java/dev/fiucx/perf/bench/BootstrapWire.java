package dev.fiucx.perf.bench;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * bench's bootstrap protocol over one TCP connection: the target tells the initiator its domain
 * address, region key and length, and the initiator steers the target between runs. No Java
 * serialization: every message is a frame {@code magic u32, version u16, type u16, length u32,
 * payload}, big-endian, so a peer of another version is told so instead of misreading bytes.
 *
 * <pre>
 * HELLO   initiator -> target  u64 region bytes wanted
 * READY   target -> initiator  u32 n, n bytes domain address (Endpoint.name()), u64 key, u64 length
 * START   initiator -> target  begin progressing (answered by STARTED)
 * STOP    initiator -> target  stop progressing, answered by REGION with the region's bytes
 * ZERO    initiator -> target  zero the region (answered by OK); only between runs
 * BYE     initiator -> target  the target closes its domain and exits (so does end of stream)
 * ERROR   target -> initiator  u32 n, n bytes UTF-8 text; the target then closes
 * </pre>
 */
final class BootstrapWire {
  static final int MAGIC = 0x46_49_55_42; // "FIUB"
  static final int VERSION = 1;

  /** Larger payloads are refused: region images are at most a few MiB. */
  static final int MAX_PAYLOAD = 64 << 20;

  enum Type {
    HELLO,
    READY,
    START,
    STARTED,
    STOP,
    REGION,
    ZERO,
    OK,
    BYE,
    ERROR
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
    out.writeInt(MAGIC);
    out.writeShort(VERSION);
    out.writeShort(type.ordinal());
    out.writeInt(payload.length);
    out.write(payload);
    out.flush();
  }

  static void write(DataOutputStream out, Type type) throws IOException {
    write(out, type, new byte[0]);
  }

  static void writeError(DataOutputStream out, String text) throws IOException {
    write(out, Type.ERROR, text.getBytes(StandardCharsets.UTF_8));
  }

  /** The next frame, or null at a clean end of stream (between frames). */
  static Frame read(DataInputStream in) throws IOException {
    int magic;
    try {
      magic = in.readInt();
    } catch (EOFException e) {
      return null;
    }
    if (magic != MAGIC) {
      throw new IOException(String.format("not a fiucx bench peer (magic 0x%08x)", magic));
    }
    int version = in.readUnsignedShort();
    if (version != VERSION) {
      throw new IOException(
          "bench bootstrap version " + version + " from the peer, this side speaks " + VERSION);
    }
    int type = in.readUnsignedShort();
    int length = in.readInt();
    if (type >= Type.values().length || length < 0 || length > MAX_PAYLOAD) {
      throw new IOException("bad bootstrap frame: type " + type + ", length " + length);
    }
    byte[] payload = new byte[length];
    in.readFully(payload);
    return new Frame(Type.values()[type], payload);
  }

  /** Reads the next frame and checks its type; an ERROR frame becomes an IOException. */
  static byte[] expect(DataInputStream in, Type type) throws IOException {
    Frame f = read(in);
    if (f == null) {
      throw new IOException("the bench target closed the connection (expected " + type + ")");
    }
    if (f.type() == Type.ERROR) {
      throw new IOException(
          "the bench target says: " + new String(f.payload(), StandardCharsets.UTF_8));
    }
    if (f.type() != type) {
      throw new IOException("expected " + type + " from the bench target, got " + f.type());
    }
    return f.payload();
  }
}
