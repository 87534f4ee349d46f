package dev.fiucx.engine;

import dev.fiucx.FiErrno;
import dev.fiucx.completion.CompletionRing;
import dev.fiucx.completion.PendingOperations;
import dev.fiucx.spi.Progress;
import dev.fiucx.spi.RemoteRegion;
import dev.fiucx.spi.TransportPeer;
import dev.fiucx.validation.CallChecks;

/**
 * What an endpoint's {@link CallChecks} ask of it on the way: the peer at an {@code fi_addr} in the
 * bound address vector, the peer's lock region (resolved once per peer), and {@code FI_FENCE}'s
 * wait for the endpoint's earlier operations. The posting thread's alone.
 */
final class EndpointLookups implements CallChecks.Lookups {
  private static final long FENCE_TIMEOUT_NANOS = 30_000_000_000L;

  private final PendingOperations pending;
  private final Progress progress;
  private EngineAddressVector av;

  /** The address vector's table read before the last peer lookup: see {@link #peersOfLastPeer}. */
  private Object peers;

  private int lockError;

  /** The last lock region {@link #lockRegion} resolved, and its peer: one lookup per peer. */
  private TransportPeer lastLocksPeer;

  private RemoteRegion lastLocks;

  EndpointLookups(PendingOperations pending, Progress progress) {
    this.pending = pending;
    this.progress = progress;
  }

  /** The address vector the endpoint was enabled with. */
  void use(EngineAddressVector av) {
    this.av = av;
  }

  @Override
  public TransportPeer peer(long destAddr) {
    // read before the lookup: a route made now must not outlive this peer; stored only when it
    // changed, as a reference store costs the collector's write barrier
    Object table = av.table();
    if (peers != table) {
      peers = table;
    }
    return av.peer(destAddr);
  }

  /**
   * The address vector's table as it was before the last {@link #peer} lookup: while the table is
   * the same, its addresses name the same peers ({@link EngineAddressVector#table}).
   */
  Object peersOfLastPeer() {
    return peers;
  }

  /**
   * The lock region of the peer at {@code destAddr}, resolved once per peer (it lives as long as
   * its domain); null with {@link #lockError} set when the peer does not answer.
   */
  @Override
  public RemoteRegion lockRegion(TransportPeer peer, long destAddr) {
    RemoteRegion last = lastLocks;
    if (peer == lastLocksPeer && last != null && !last.revoked()) {
      return last;
    }
    long lockKey = av.lockKey(destAddr);
    RemoteRegion locks = peer.cached(lockKey);
    if (locks == null || locks.revoked()) {
      int rc = peer.resolve(lockKey);
      if (rc < 0) {
        lockError = rc;
        return null;
      }
      locks = peer.cached(lockKey);
    }
    if (locks != null) {
      lastLocksPeer = peer;
      lastLocks = locks;
    }
    return locks;
  }

  @Override
  public int lockError() {
    return lockError;
  }

  /**
   * Progresses until every operation of the endpoint in flight has completed: 0, or {@code
   * -FI_ETIMEDOUT} after 30 s. {@code FI_FENCE}'s wait, and close's.
   */
  @Override
  public int awaitEarlierOperations() {
    long start = System.nanoTime();
    long deadline = start + FENCE_TIMEOUT_NANOS;
    while (pending.inFlight() > 0) {
      long now = System.nanoTime();
      if (now - deadline > 0) {
        return -FiErrno.ETIMEDOUT;
      }
      if (progress.progress() != 0) {
        continue;
      }
      // as sread: spin through a quick round trip, then give the core away until an event comes
      if (now - start < CompletionRing.SPIN_BEFORE_AWAIT_NANOS
          || !progress.await(Math.min(CompletionRing.MAX_AWAIT_NANOS, deadline - now))) {
        Thread.onSpinWait();
      }
    }
    return 0;
  }
}
