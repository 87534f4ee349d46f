package dev.fiucx.ucx;

import dev.fiucx.spi.ProcessIdentity;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The control protocol between transports, carried as UCX active messages (one AM id per kind,
 * little-endian payload in the AM data). Initiators are named by a random 64-bit instance id and
 * their peer number, so a target can answer the right {@link UcxPeer} of the right transport.
 */
sealed interface ControlMessage {
  // AM ids ("FI" + kind), registered on every worker
  int AM_RESOLVE = 0x4931;
  int AM_RESOLVE_REPLY = 0x4932;
  int AM_REVOKE = 0x4933;
  int AM_REVOKE_ACK = 0x4934;
  int AM_RELEASE = 0x4935;
  int[] AM_IDS = {AM_RESOLVE, AM_RESOLVE_REPLY, AM_REVOKE, AM_REVOKE_ACK, AM_RELEASE};

  /**
   * Carries nothing and is dropped where it arrives; sent with UCX's reply flag, it completes only
   * once the endpoint has finished its wire-up with the peer ({@link PeerKeys#awaitWiredUp}).
   */
  int AM_WIRE_UP = 0x4936;

  /** The active message id this kind travels under. */
  int amId();

  /** The payload. */
  byte[] encode();

  /**
   * Initiator to target: what is {@code key}? Sent with UCX's reply flag, so the target answers on
   * the endpoint UCX built for the sender; no address travels in it, so a target never hands UCX
   * address bytes a peer wrote. {@code initiatorWorker} is the UUID of the initiator's UCX worker,
   * which the target checks against that reply endpoint (see ControlChannel). {@code secret} is the
   * initiator peer's, which the target's messages to that peer carry back. The initiator's process
   * lets the target tell when it is gone and let go of what it holds for it.
   */
  record Resolve(
      long requestId,
      long key,
      long initiatorId,
      int initiatorPeer,
      long initiatorWorker,
      long secret,
      ProcessIdentity initiatorProcess)
      implements ControlMessage {
    @Override
    public int amId() {
      return AM_RESOLVE;
    }

    @Override
    public byte[] encode() {
      ByteBuffer b = buffer(8 + 8 + 8 + 4 + 8 + 8 + PROCESS_BYTES);
      b.putLong(requestId).putLong(key).putLong(initiatorId).putInt(initiatorPeer);
      b.putLong(initiatorWorker).putLong(secret);
      ProcessIdentity p = initiatorProcess;
      b.putInt(p.pid()).putLong(p.startTicks()).putLong(p.bootIdHigh()).putLong(p.bootIdLow());
      b.putLong(p.pidNamespace());
      return b.array();
    }
  }

  /** A {@link ProcessIdentity} on the wire. */
  int PROCESS_BYTES = 4 + 8 + 8 + 8 + 8;

  /**
   * Target to initiator: the region behind the key, or {@code found == false}; with the peer's
   * secret from its RESOLVE, and whether device (NIC) atomics update the target's memory ({@link
   * AtomicExecution}). On the wire the two booleans share one int (bit 0 found, bit 1 device).
   */
  record ResolveReply(
      long requestId,
      int initiatorPeer,
      long secret,
      boolean found,
      boolean deviceAtomics,
      long base,
      long length,
      long access,
      byte[] rkey)
      implements ControlMessage {
    @Override
    public int amId() {
      return AM_RESOLVE_REPLY;
    }

    @Override
    public byte[] encode() {
      ByteBuffer b = buffer(8 + 4 + 8 + 4 + 8 + 8 + 8 + 4 + rkey.length);
      b.putLong(requestId).putInt(initiatorPeer).putLong(secret);
      b.putInt((found ? 1 : 0) | (deviceAtomics ? 2 : 0));
      b.putLong(base).putLong(length).putLong(access).putInt(rkey.length).put(rkey);
      return b.array();
    }
  }

  /**
   * Target to initiator: {@code key} is closing; stop using it, flush, then acknowledge. With the
   * peer's secret from its RESOLVE.
   */
  record Revoke(long key, int initiatorPeer, long secret) implements ControlMessage {
    @Override
    public int amId() {
      return AM_REVOKE;
    }

    @Override
    public byte[] encode() {
      return buffer(20).putLong(key).putInt(initiatorPeer).putLong(secret).array();
    }
  }

  /** Initiator to target: every operation on {@code key} from this peer has completed. */
  record RevokeAck(long key, long initiatorId, int initiatorPeer) implements ControlMessage {
    @Override
    public int amId() {
      return AM_REVOKE_ACK;
    }

    @Override
    public byte[] encode() {
      return buffer(20).putLong(key).putLong(initiatorId).putInt(initiatorPeer).array();
    }
  }

  /**
   * Initiator to target: this peer is closing (its address vector entry was removed, or the vector
   * or domain closed); forget it as a user of any key, and once no peer of that initiator is left,
   * close the endpoint back to it.
   */
  record Release(long initiatorId, int initiatorPeer) implements ControlMessage {
    @Override
    public int amId() {
      return AM_RELEASE;
    }

    @Override
    public byte[] encode() {
      return buffer(12).putLong(initiatorId).putInt(initiatorPeer).array();
    }
  }

  /** Decodes a payload received under {@code amId}; throws on a malformed one. */
  static ControlMessage decode(int amId, byte[] payload) {
    ByteBuffer b = ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN);
    ControlMessage msg = fields(amId, b);
    if (b.hasRemaining()) {
      throw new IllegalArgumentException(b.remaining() + " bytes after the message");
    }
    return msg;
  }

  private static ControlMessage fields(int amId, ByteBuffer b) {
    return switch (amId) {
      case AM_RESOLVE ->
          new Resolve(
              b.getLong(),
              b.getLong(),
              b.getLong(),
              b.getInt(),
              b.getLong(),
              b.getLong(),
              new ProcessIdentity(b.getInt(), b.getLong(), b.getLong(), b.getLong(), b.getLong()));
      case AM_RESOLVE_REPLY -> resolveReply(b);
      case AM_REVOKE -> new Revoke(b.getLong(), b.getInt(), b.getLong());
      case AM_REVOKE_ACK -> new RevokeAck(b.getLong(), b.getLong(), b.getInt());
      case AM_RELEASE -> new Release(b.getLong(), b.getInt());
      default -> throw new IllegalArgumentException("unknown control message id " + amId);
    };
  }

  private static ResolveReply resolveReply(ByteBuffer b) {
    long requestId = b.getLong();
    int initiatorPeer = b.getInt();
    long secret = b.getLong();
    int flags = b.getInt();
    return new ResolveReply(
        requestId,
        initiatorPeer,
        secret,
        (flags & 1) != 0,
        (flags & 2) != 0,
        b.getLong(),
        b.getLong(),
        b.getLong(),
        bytes(b, b.getInt()));
  }

  private static ByteBuffer buffer(int size) {
    return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
  }

  private static byte[] bytes(ByteBuffer b, int length) {
    if (length < 0 || length > b.remaining()) {
      throw new IllegalArgumentException("bad length " + length);
    }
    byte[] out = new byte[length];
    b.get(out);
    return out;
  }
}
