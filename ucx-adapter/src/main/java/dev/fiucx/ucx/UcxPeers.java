package dev.fiucx.ucx;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A transport's peers, numbered in the order they connected, and the peers and initiators seen dead
 * that {@link UcxTransport#checkPeers} has yet to end. The list is guarded by the transport's lock,
 * which also guards its closing.
 */
final class UcxPeers {
  private final UcxTransport transport;
  private final ServedInitiators initiators;

  /** Indexed by peer id; a closed peer leaves null, so ids stay stable. Guarded by transport. */
  private final List<UcxPeer> peers = new ArrayList<>();

  /** Peers and initiators {@link PeerWatch} saw gone, for {@link #checkPeers}. */
  private final Queue<UcxPeer> deadPeers = new ConcurrentLinkedQueue<>();

  private final Queue<Long> deadInitiators = new ConcurrentLinkedQueue<>();
  private volatile boolean deathsSeen;

  UcxPeers(UcxTransport transport, ServedInitiators initiators) {
    this.transport = transport;
    this.initiators = initiators;
  }

  /** The id the next peer gets. */
  int nextId() {
    synchronized (transport) {
      return peers.size();
    }
  }

  /** Adds {@code peer}, made with {@link #nextId} under the same hold of the transport's lock. */
  void add(UcxPeer peer) {
    synchronized (transport) {
      peers.add(peer);
    }
  }

  void forget(UcxPeer peer) {
    synchronized (transport) {
      if (peer.id() < peers.size() && peers.get(peer.id()) == peer) {
        peers.set(peer.id(), null); // ids stay stable: targets still name peers by them
      }
    }
  }

  /**
   * The open peer one of whose endpoints (data or control) is the native ucp_ep_h {@code handle}.
   */
  UcxPeer byEndpoint(long handle) {
    synchronized (transport) {
      for (UcxPeer p : peers) {
        if (p != null && p.owns(handle)) {
          return p;
        }
      }
      return null;
    }
  }

  /** Peer number {@code id}, or null when there is none (or it closed). */
  UcxPeer byId(int id) {
    synchronized (transport) {
      return id >= 0 && id < peers.size() ? peers.get(id) : null;
    }
  }

  /** The peers not closed, at this moment. */
  List<UcxPeer> open() {
    synchronized (transport) {
      return peers.stream().filter(p -> p != null).toList();
    }
  }

  /** {@link UcxTransport#checkPeers}. */
  int checkPeers() {
    if (!deathsSeen) {
      return 0;
    }
    deathsSeen = false;
    int dead = 0;
    UcxPeer p;
    while ((p = deadPeers.poll()) != null) {
      if (p.processExited()) {
        dead++;
      }
    }
    Long initiator;
    while ((initiator = deadInitiators.poll()) != null) {
      if (initiators.dropDead(initiator)) {
        dead++;
      }
    }
    return dead;
  }

  /** {@link UcxTransport#lookForDeadPeers}. */
  void lookForDead() {
    List<UcxPeer> snapshot;
    synchronized (transport) {
      if (transport.isClosed()) {
        return;
      }
      snapshot = new ArrayList<>(peers.size());
      for (UcxPeer p : peers) {
        if (p != null && !p.failed() && p.process().observable()) {
          snapshot.add(p);
        }
      }
    }
    boolean seen = false;
    for (UcxPeer p : snapshot) {
      if (!p.process().alive()) {
        deadPeers.add(p);
        seen = true;
      }
    }
    for (long id : initiators.dead()) {
      deadInitiators.add(id);
      seen = true;
    }
    if (seen) {
      deathsSeen = true;
    }
  }

  /**
   * Whether peer number {@code id}'s process is observably gone; if so it is queued for {@link
   * #checkPeers}, as {@link PeerWatch} would. Only on an operation's failure.
   */
  boolean processGone(int id) {
    UcxPeer p = byId(id);
    if (p == null || !p.process().observable() || p.process().alive()) {
      return false;
    }
    deadPeers.add(p);
    deathsSeen = true;
    return true;
  }
}
