package dev.fiucx.ucx.integration;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.fiucx.emulation.LockWords;
import dev.fiucx.engine.EngineDomain;
import dev.fiucx.spi.RemoteAtomicOp;
import dev.fiucx.spi.RemoteRegion;
import dev.fiucx.spi.TransportCompletions;
import dev.fiucx.spi.TransportPeer;
import dev.fiucx.ucx.UcxOptions;
import dev.fiucx.ucx.UcxTransport;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HexFormat;

/**
 * A process that plays one step of the remote-lock protocol on a target's lock word and is then
 * killed: {@code hold} enters the free stripe as the engine's uncontended take does (a
 * compare-and-swap from the free word to ticket 0 with this owner inside) and prints {@code HELD
 * owner}; {@code ticket} takes a ticket with the engine's fetch-add and prints {@code TICKET ticket
 * owner}; {@code torn} holds as {@code hold} does, then plays a holder killed in the middle of
 * writing a DOUBLE_COMPLEX at offset 0 of the region {@code key}: it arms the stripe's redo record
 * with {@link #TORN_RE}, {@link #TORN_IM} (address, size, value, then the tag: its held word), puts
 * the first 8 bytes of that value into the element, and prints {@code TORN owner}. Then it waits,
 * at most a minute. It speaks to UCX through the transport alone, because no user call may touch a
 * lock region; its owner is derived from its transport's instance id, as an engine domain's is, so
 * the target's failure detection reclaims what it holds. Arguments: {@code hold|ticket|torn
 * transport addressHex stripe [keyHex]}.
 */
public final class LockHolderProcess {
  /** The value a {@code torn} holder armed and half wrote. */
  static final double TORN_RE = 10.5;

  static final double TORN_IM = -3.25;

  private LockHolderProcess() {}

  public static void main(String[] args) throws InterruptedException {
    boolean torn = args[0].equals("torn");
    boolean hold = torn || args[0].equals("hold");
    byte[] address = HexFormat.of().parseHex(args[2]);
    long offset = LockWords.offset(Integer.parseInt(args[3]));
    Completion done = new Completion();
    try (UcxTransport transport =
            new UcxTransport(done, UcxOptions.defaults().withTransports(args[1]));
        Arena arena = Arena.ofConfined()) {
      TransportPeer peer = transport.connect(EngineDomain.transportAddressOf(address));
      long lockKey = lockKey(address);
      check(peer.resolve(lockKey), "resolve the lock key");
      RemoteRegion locks = peer.cached(lockKey);
      int owner = LockWords.ownerOf(transport.instanceId());
      MemorySegment seen = arena.allocate(8, 8);
      int rc =
          hold
              ? peer.postCompareSwap(
                  locks, offset, 8, 0, LockWords.taken(0, owner), seen.address(), 1)
              : peer.postAtomic(
                  locks, offset, RemoteAtomicOp.ADD, 8, LockWords.TICKET, seen.address(), 1);
      check(rc, "post");
      while (rc == TransportPeer.PENDING && !done.done) {
        transport.progress();
      }
      check(done.status, "complete");
      long word = seen.get(JAVA_LONG, 0);
      if (hold && word != 0) {
        throw new IllegalStateException("the stripe was not free: " + Long.toHexString(word));
      }
      if (torn) {
        tear(transport, peer, locks, Integer.parseInt(args[3]), args[4], word, owner, arena, done);
      }
      System.out.println(
          torn
              ? "TORN " + Integer.toUnsignedString(owner)
              : hold
                  ? "HELD " + Integer.toUnsignedString(owner)
                  : "TICKET " + LockWords.next(word) + " " + Integer.toUnsignedString(owner));
      System.out.flush();
      Thread.sleep(60_000);
    }
  }

  /** Arms the record of a write of (TORN_RE, TORN_IM) and puts its first 8 bytes only. */
  private static void tear(
      UcxTransport transport,
      TransportPeer peer,
      RemoteRegion locks,
      int stripe,
      String keyHex,
      long free,
      int owner,
      Arena arena,
      Completion done) {
    long key = Long.parseUnsignedLong(keyHex, 16);
    check(peer.resolve(key), "resolve the region's key");
    RemoteRegion region = peer.cached(key);
    MemorySegment record = arena.allocate(LockWords.RECORD_BYTES, 16);
    record.set(JAVA_LONG, 8, region.base()); // the element at offset 0
    record.set(JAVA_LONG, 16, 16);
    record.set(JAVA_DOUBLE, 32, TORN_RE);
    record.set(JAVA_DOUBLE, 40, TORN_IM);
    record.set(JAVA_LONG, 0, LockWords.taken(free, owner));
    long at = LockWords.recordTag(stripe);
    put(transport, peer, locks, at + 8, 40, record.address() + 8, done); // address to value
    put(transport, peer, locks, at, 8, record.address(), done); // then the tag
    put(transport, peer, region, 0, 8, record.address() + 32, done); // half the element
  }

  private static void put(
      UcxTransport transport,
      TransportPeer peer,
      RemoteRegion remote,
      long offset,
      int length,
      long from,
      Completion done) {
    done.done = false;
    int rc = peer.postPut(remote, offset, length, from, 2);
    check(rc, "put");
    while (rc == TransportPeer.PENDING && !done.done) {
      transport.progress();
    }
    check(done.status, "put completes");
  }

  private static void check(int rc, String what) {
    if (rc < 0) {
      throw new IllegalStateException(what + ": " + rc);
    }
  }

  /** The lock region's key, from a fiucx address's header. */
  static long lockKey(byte[] address) {
    return EngineDomain.lockKeyOf(address);
  }

  private static final class Completion implements TransportCompletions {
    volatile boolean done;
    volatile int status;

    @Override
    public void completed(long token, int status) {
      this.status = status;
      done = true;
    }
  }
}
