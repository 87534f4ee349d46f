package dev.fiucx.ucx;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dev.fiucx.spi.ProcessIdentity;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import java.util.zip.CRC32C;
import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpRequest;

/**
 * A hostile peer in a process of its own ({@code transport targetAddressHex seed}): opens a bare
 * UCX endpoint to a target's worker and sends it control messages no fiucx initiator sends, each
 * sent whole before the next, then prints {@code SENT malformed refused} (what the target must
 * count as undecodable and as refused) and exits. What it sends:
 *
 * <ul>
 *   <li>malformed: {@link #RANDOM} RESOLVEs of random bytes (random lengths, with and without the
 *       reply flag); an honest RESOLVE truncated three ways; RESOLVEs in the old layout that
 *       carried a worker address, once with random bytes there and once with a fiucx address header
 *       (magic, version, lengths, checksum all right) around random bytes;
 *   <li>refused: well-formed RESOLVEs with garbage inside: a random worker UUID, the target's own
 *       worker UUID, no reply flag, and this worker's UUID under a second instance id after one
 *       honest RESOLVE; a RELEASE and a REVOKE_ACK naming initiators that never resolved.
 * </ul>
 */
public final class HostileControlProcess {
  static final int RANDOM = 20;

  /** How many messages the target cannot decode. */
  public static final int MALFORMED = RANDOM + 3 + 2;

  /** How many well-formed messages the target refuses. */
  public static final int REFUSED = 6;

  private static final long SEND_WAIT_NANOS = 10_000_000_000L;

  private HostileControlProcess() {}

  public static void main(String[] args) throws Exception {
    byte[] domainAddress = HexFormat.of().parseHex(args[1]);
    // the transport address inside fiucx's address (DomainAddress: 64-byte header, CRC at the end)
    byte[] targetTransport = Arrays.copyOfRange(domainAddress, 64, domainAddress.length - 4);
    Random random = new Random(Long.parseLong(args[2]));
    try (UcxTransport t =
            new UcxTransport((token, status) -> {}, UcxOptions.defaults().withTransports(args[0]));
        Arena arena = Arena.ofShared()) {
      UcpEndpoint ep = t.openControlEndpoint(targetTransport, (status, text) -> {});
      Sender s = new Sender(t, ep, arena);
      ProcessIdentity me = ProcessIdentity.self();
      long myId = random.nextLong() | 1;
      int malformed = 0;
      int refused = 0;

      for (int i = 0; i < RANDOM; i++) {
        int length = 1 + random.nextInt(300);
        if (length == resolve(0, myId, t.controlWorkerUuid(), me).length) {
          length++;
        }
        byte[] junk = new byte[length];
        random.nextBytes(junk);
        s.send(ControlMessage.AM_RESOLVE, junk, i % 2 == 0);
        malformed++;
      }
      byte[] honest = resolve(1, myId, t.controlWorkerUuid(), me);
      for (int cut : new int[] {honest.length - 1, 40, 8}) {
        s.send(ControlMessage.AM_RESOLVE, Arrays.copyOf(honest, cut), true);
        malformed++;
      }
      byte[] junkAddress = new byte[200];
      random.nextBytes(junkAddress);
      s.send(ControlMessage.AM_RESOLVE, oldLayout(myId, junkAddress, me), true);
      s.send(ControlMessage.AM_RESOLVE, oldLayout(myId, fiucxHeaderAround(junkAddress), me), true);
      malformed += 2;

      s.send(ControlMessage.AM_RESOLVE, resolve(2, myId, random.nextLong() | 1, me), true);
      s.send(
          ControlMessage.AM_RESOLVE,
          resolve(3, myId, targetControlUuid(targetTransport), me),
          true);
      s.send(ControlMessage.AM_RESOLVE, resolve(4, myId, t.controlWorkerUuid(), me), false);
      refused += 3;
      // an honest RESOLVE (of a key nobody published: answered "not found"), then this worker under
      // another instance id
      s.send(ControlMessage.AM_RESOLVE, resolve(5, myId, t.controlWorkerUuid(), me), true);
      s.send(ControlMessage.AM_RESOLVE, resolve(6, myId + 2, t.controlWorkerUuid(), me), true);
      refused++;
      s.send(
          ControlMessage.AM_RELEASE,
          new ControlMessage.Release(random.nextLong(), 0).encode(),
          true);
      s.send(
          ControlMessage.AM_REVOKE_ACK,
          new ControlMessage.RevokeAck(random.nextLong(), random.nextLong(), 0).encode(),
          true);
      refused += 2;

      if (malformed != MALFORMED || refused != REFUSED) {
        throw new IllegalStateException("the battery changed: " + malformed + " " + refused);
      }
      System.out.println("SENT " + malformed + " " + refused);
      System.out.flush();
      t.closeEndpoint(ep, false);
    }
  }

  private static byte[] resolve(long requestId, long id, long worker, ProcessIdentity me) {
    return new ControlMessage.Resolve(requestId, 0x5eed, id, 0, worker, id ^ worker, me).encode();
  }

  /**
   * The UUID of the target's worker that takes control messages: its control worker's when it has
   * one (this process has one too: same transport list), else its data worker's.
   */
  private static long targetControlUuid(byte[] transportAddress) {
    UcxAddress a = UcxAddress.read(transportAddress);
    return UcxTransport.workerUuidOf(a.control() != null ? a.control() : a.data());
  }

  /** A RESOLVE as it was before the reply endpoint: the worker address travelled in it. */
  private static byte[] oldLayout(long id, byte[] address, ProcessIdentity me) {
    ByteBuffer b =
        ByteBuffer.allocate(8 + 8 + 8 + 4 + 4 + address.length + ControlMessage.PROCESS_BYTES)
            .order(ByteOrder.LITTLE_ENDIAN);
    b.putLong(7).putLong(0x5eed).putLong(id).putInt(0).putInt(address.length).put(address);
    b.putInt(me.pid()).putLong(me.startTicks()).putLong(me.bootIdHigh()).putLong(me.bootIdLow());
    b.putLong(me.pidNamespace());
    return b.array();
  }

  /** {@code inside} wrapped as fiucx's address format wraps a worker address, checksum right. */
  private static byte[] fiucxHeaderAround(byte[] inside) {
    int total = 64 + inside.length + 4;
    ByteBuffer b = ByteBuffer.allocate(total).order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(0x58554946).putShort((short) 1).putShort((short) 64).putInt(total);
    b.position(56);
    b.putInt(inside.length).putInt(0).put(inside);
    CRC32C crc = new CRC32C();
    crc.update(b.array(), 0, total - 4);
    b.putInt((int) crc.getValue());
    return b.array();
  }

  /**
   * Sends one message and progresses until UCX is done with it (10 s at most), running {@code
   * meanwhile} between progress calls (a receiver in the same process must progress for a send with
   * the reply flag to complete).
   */
  record Sender(UcxTransport t, UcpEndpoint ep, Arena arena, Runnable meanwhile) {
    Sender(UcxTransport t, UcpEndpoint ep, Arena arena) {
      this(t, ep, arena, () -> {});
    }

    void send(int amId, byte[] payload, boolean replyFlag) {
      MemorySegment m = arena.allocate(payload.length, 8);
      MemorySegment.copy(payload, 0, m, JAVA_BYTE, 0, payload.length);
      boolean[] done = {false};
      String[] failed = {null};
      ep.sendAmNonBlocking(
          amId,
          0,
          0,
          m.address(),
          payload.length,
          UcxConstants.UCP_AM_SEND_FLAG_EAGER
              | (replyFlag ? UcxConstants.UCP_AM_SEND_FLAG_REPLY : 0),
          new UcxCallback() {
            @Override
            public void onSuccess(UcpRequest request) {
              done[0] = true;
            }

            @Override
            public void onError(int ucsStatus, String message) {
              failed[0] = message;
              done[0] = true;
            }
          });
      long deadline = System.nanoTime() + SEND_WAIT_NANOS;
      while (!done[0]) {
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException("a send did not complete");
        }
        t.progress();
        meanwhile.run();
      }
      if (failed[0] != null) {
        throw new IllegalStateException("a send failed: " + failed[0]);
      }
    }
  }
}
