package dev.fiucx.engine;

import dev.fiucx.spi.RemoteRegion;
import dev.fiucx.spi.TransportPeer;
import dev.fiucx.validation.CallChecks;

/**
 * What an endpoint's {@link CallChecks} ask of it on the way: the peer at an {@code fi_addr} in the
 * bound address vector and the peer's lock region (resolved once per peer). The posting thread's
 * alone.
 */
final class EndpointLookups implements CallChecks.Lookups {
  private EngineAddressVector av;

  /** The address vector's table read before the last peer lookup: see {@link #peersOfLastPeer}. */
  private Object peers;

  private int lockError;

  /** The last lock region {@link #lockRegion} resolved, and its peer: one lookup per peer. */
  private TransportPeer lastLocksPeer;

  private RemoteRegion lastLocks;

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
}
