package dev.fiucx.ucx.integration;

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
 * owner}. Then it waits, at most a minute. It speaks to UCX through the transport alone, because no
 * user call may touch a lock region; its owner is derived from its transport's instance id, as an
 * engine domain's is, so the target's failure detection reclaims what it holds. Arguments: {@code
 * hold|ticket transport addressHex stripe}.
 */
public final class LockHolderProcess {
  private LockHolderProcess() {}

  public static void main(String[] args) throws InterruptedException {
    boolean hold = args[0].equals("hold");
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
      System.out.println(
          hold
              ? "HELD " + Integer.toUnsignedString(owner)
              : "TICKET " + LockWords.next(word) + " " + Integer.toUnsignedString(owner));
      System.out.flush();
      Thread.sleep(60_000);
    }
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
