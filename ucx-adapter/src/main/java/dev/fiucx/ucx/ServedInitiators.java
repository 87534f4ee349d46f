package dev.fiucx.ucx;

import dev.fiucx.spi.ProcessIdentity;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.openucx.jucx.UcxException;
import org.openucx.jucx.ucp.UcpEndpoint;

/**
 * The initiators a target serves: each initiator transport (one UCX worker) that resolved a key
 * here, the endpoints back to it that this target claimed, and which of its peers resolved keys
 * here with which secret; until the initiator is gone.
 *
 * <p>The endpoint back is never opened from an address in a message: a peer's garbage there would
 * reach ucp_address_unpack, which asserts (SIGABRT) on what it cannot parse, and could name any
 * shared-memory segment of the host. Initiators send with UCX's reply flag instead: UCX then wires
 * the initiator's endpoint up to this worker, builds an endpoint here for it (which it passes to
 * the handler as the reply endpoint) and keeps it among the endpoints no user has claimed yet. The
 * target claims it with {@link WorkerEndpoints#claim} (by the UUID the RESOLVE names) and accepts
 * the RESOLVE only when the endpoint it got is the one the message came on, so a message cannot
 * claim another worker's endpoint. Claimed, the endpoint is ours: it gets an error handler (tcp
 * reports a dead initiator through it) and lives until we close it. An endpoint UCX handed out
 * unclaimed is not: UCX destroys it inside progress when its peer fails, so it is never kept. Later
 * messages from the initiator (REVOKE_ACK, RELEASE) are accepted only on an endpoint claimed for
 * the initiator they name ({@link #claimedFor}).
 *
 * <p>An endpoint back lives until its initiator is gone: all the initiator's peers sent RELEASE
 * (closed), UCX failed the endpoint (tcp), or the initiator's process exited ({@link #dead}: on
 * shared memory UCX never says), so a long-lived target holds nothing of ours for initiators that
 * came and went. Nor of UCX's, where the initiator sent from its control worker to ours ({@link
 * ControlWorker}: tcp, peer-failure handling): such an endpoint is closed by force, which is the
 * only close after which UCX 1.13 frees an endpoint that was wired up to its peer. An initiator
 * whose control goes on a shared-memory endpoint (no control worker, or no tcp between the two)
 * still leaves UCX's endpoint behind, with its mapping of the initiator's FIFO, until the worker
 * closes.
 */
final class ServedInitiators {
  /**
   * How many of one worker's endpoint numbers a RESOLVE may try looking for its own: an initiator
   * numbers its endpoints to this target in the order it opens them (closed ones, and ones that
   * never sent anything, included), and this side tries them in that order.
   */
  private static final int MATCH_TRIES = 64;

  /**
   * The most peer numbers one initiator may have resolved keys with here at once. An honest
   * initiator has one per address-vector entry of this target that resolved a key; a process that
   * speaks the protocol by hand could name new numbers without end, and each one costs a set entry,
   * a secret and a resolver per region. A RESOLVE naming a number beyond them is refused (the
   * initiator times out), until RELEASEs give numbers back.
   */
  static final int MAX_PEERS_PER_INITIATOR = 1024;

  /**
   * How long closing an endpoint back to an initiator that left or died may hold up this progress:
   * a flushing close with nothing in flight is done at once; one with a message still queued to a
   * dead initiator never is, and UCX finishes (or keeps) it on its own after this.
   */
  private static final long DEAD_CLOSE_WAIT_NANOS = 100_000_000L;

  private final UcxTransport transport;

  // guarded by this
  private long claimed;
  private long numbersWithoutEndpoint;
  private final Map<Long, Initiator> byWorker = new HashMap<>();
  private final Map<Long, Initiator> byId = new HashMap<>();

  /**
   * One initiator transport (one UCX worker): the endpoints claimed for it, by the native handle of
   * the reply endpoint UCX gives its messages, and which of its peers resolved keys here. Its
   * instance id and process are known once a RESOLVE came on one of those endpoints ({@code
   * proven}).
   */
  private static final class Initiator {
    final long worker;
    final WorkerEndpoints side; // the worker of ours its messages come to
    final Map<Long, UcpEndpoint> endpoints = new LinkedHashMap<>();
    final Set<Integer> peers = new HashSet<>();
    final Map<Integer, Long> secrets = new HashMap<>(); // by peer number, from its RESOLVE
    boolean proven;
    long id;
    ProcessIdentity process = ProcessIdentity.UNKNOWN;

    Initiator(long worker, WorkerEndpoints side) {
      this.worker = worker;
      this.side = side;
    }

    UcpEndpoint any() {
      return endpoints.values().iterator().next();
    }

    /** Each endpoint once (a loopback initiator's replies share one). */
    List<UcpEndpoint> distinctEndpoints() {
      List<UcpEndpoint> out = new ArrayList<>();
      for (UcpEndpoint e : endpoints.values()) {
        if (!out.contains(e)) {
          out.add(e);
        }
      }
      return out;
    }
  }

  /** None served yet, for {@code transport}'s control channel. */
  ServedInitiators(UcxTransport transport) {
    this.transport = transport;
  }

  /** Sends REVOKE to a user of a key over the endpoint back to its transport. */
  void sendRevoke(UcxExposedRegion.Resolver r, long key, Runnable onFailure) {
    UcpEndpoint back;
    Long secret;
    synchronized (this) {
      Initiator ini = byId.get(r.initiatorId());
      back = ini == null ? null : ini.any();
      secret = ini == null ? null : ini.secrets.get(r.initiatorPeer());
    }
    if (back == null || secret == null) {
      onFailure.run();
      return;
    }
    transport
        .control()
        .send(
            back,
            new ControlMessage.Revoke(key, r.initiatorPeer(), secret),
            status -> onFailure.run());
  }

  /** Closes every endpoint back to an initiator (at transport close). */
  void closeAll() {
    List<Initiator> all;
    synchronized (this) {
      all = List.copyOf(byWorker.values());
      byWorker.clear();
      byId.clear();
    }
    for (Initiator ini : all) {
      boolean dead = ini.proven && !ini.process.alive();
      ini.distinctEndpoints().forEach(e -> transport.closeEndpoint(e, dead));
    }
  }

  /** How many initiator transports this target holds an endpoint back to. */
  synchronized int served() {
    return byId.size();
  }

  /**
   * How many endpoints to initiators this target holds (claimed for served initiators, and any
   * claimed while a RESOLVE looked for its own).
   */
  synchronized int endpointCount() {
    int n = 0;
    for (Initiator ini : byWorker.values()) {
      n += ini.distinctEndpoints().size();
    }
    return n;
  }

  /** What claiming initiators' endpoints took, for describe: claimed, and numbers with none. */
  synchronized String claims() {
    return claimed + " endpoints claimed, " + numbersWithoutEndpoint + " numbers without one";
  }

  /** How many peer numbers the initiator with instance id {@code id} has here (tests). */
  synchronized int peersOf(long id) {
    Initiator ini = byId.get(id);
    return ini == null ? 0 : ini.peers.size();
  }

  /**
   * The instance ids of the initiators served here whose process is gone (where this process can
   * see it); on {@link PeerWatch}'s thread.
   */
  List<Long> dead() {
    List<Initiator> served;
    synchronized (this) {
      if (byId.isEmpty()) {
        return List.of();
      }
      served = List.copyOf(byId.values());
    }
    List<Long> gone = new ArrayList<>();
    for (Initiator ini : served) {
      ProcessIdentity p = ini.process;
      if (p.observable() && !p.alive()) {
        gone.add(ini.id);
      }
    }
    return gone;
  }

  /**
   * Lets go of an initiator whose process is gone: its endpoints back, its place among the users of
   * keys, and its remote locks. False when it is no longer served here.
   */
  boolean dropDead(long initiatorId) {
    long worker;
    synchronized (this) {
      Initiator ini = byId.get(initiatorId);
      if (ini == null) {
        return false;
      }
      worker = ini.worker;
    }
    dropFailed(worker);
    return true;
  }

  /** Whether {@code replyHandle} is an endpoint claimed for the initiator {@code initiatorId}. */
  synchronized boolean claimedFor(long initiatorId, long replyHandle) {
    Initiator ini = byId.get(initiatorId);
    return ini != null && ini.endpoints.containsKey(replyHandle);
  }

  /**
   * The endpoint to answer {@code r} on, claimed for its initiator if it was not yet; or null, the
   * RESOLVE refused (counted unless the transport is closing): it names a peer number beyond the
   * initiator's {@link #MAX_PEERS_PER_INITIATOR}, came without a reply endpoint, names a worker
   * none of whose waiting endpoints is the one it came on, or names an instance id or worker that
   * another proven initiator holds. {@code side} is the worker of ours it came to.
   */
  UcpEndpoint answerEndpoint(ControlMessage.Resolve r, long replyHandle, WorkerEndpoints side) {
    String refused = null;
    UcpEndpoint back;
    synchronized (this) {
      if (transport.isClosed()) {
        back = null;
      } else if (beyondPeerLimit(r)) {
        back = null;
        refused =
            "a RESOLVE naming a peer number beyond the "
                + MAX_PEERS_PER_INITIATOR
                + " one initiator may have here";
      } else {
        back = claim(r, replyHandle, side);
        if (back == null) {
          refused = "a RESOLVE that did not come on an endpoint of the worker it names";
        }
      }
    }
    if (refused != null) {
      ControlChannel.refuse(transport.errors(), refused);
    }
    return back;
  }

  /** Whether {@code r} names a new peer number of an initiator that has all it may have here. */
  private boolean beyondPeerLimit(ControlMessage.Resolve r) {
    Initiator ini = byWorker.get(r.initiatorWorker());
    return ini != null
        && ini.peers.size() >= MAX_PEERS_PER_INITIATOR
        && !ini.peers.contains(r.initiatorPeer());
  }

  /** {@link #answerEndpoint} once the peer limit is checked; guarded by this. */
  private UcpEndpoint claim(ControlMessage.Resolve r, long replyHandle, WorkerEndpoints side) {
    long worker = r.initiatorWorker();
    if (replyHandle == 0 || worker == 0) {
      return null;
    }
    Initiator ini = byWorker.get(worker);
    if (ini != null && (ini.side != side || (ini.proven && ini.id != r.initiatorId()))) {
      return null;
    }
    Initiator sameId = byId.get(r.initiatorId());
    if (sameId != null && sameId != ini) {
      return null;
    }
    if (ini == null) {
      ini = new Initiator(worker, side);
      byWorker.put(worker, ini);
    }
    UcpEndpoint ep = ini.endpoints.get(replyHandle);
    if (ep == null) {
      UcxPeer ours = transport.peerByEndpoint(replyHandle);
      if (ours != null) {
        ep = claimThroughPeer(ini, replyHandle, ours);
      } else if (worker != side.uuid()) {
        ep = claimRemote(ini, replyHandle);
      }
    }
    if (ep == null) {
      if (ini.endpoints.isEmpty()) {
        byWorker.remove(worker);
      }
      return null;
    }
    if (!ini.proven) {
      ini.proven = true;
      ini.id = r.initiatorId();
      ini.process = r.initiatorProcess();
      byId.put(ini.id, ini);
    }
    ini.peers.add(r.initiatorPeer());
    ini.secrets.put(r.initiatorPeer(), r.secret());
    return ep;
  }

  /** Claims this worker's waiting endpoints of {@code ini} in order until the one replied on. */
  private UcpEndpoint claimRemote(Initiator ini, long replyHandle) {
    long worker = ini.worker;
    for (int i = 0; i < MATCH_TRIES; i++) {
      UcpEndpoint e;
      try {
        e = ini.side.claim(worker, (status, text) -> backEndpointFailed(worker));
      } catch (UcxException none) {
        numbersWithoutEndpoint++;
        continue; // that number's endpoint closed before it sent, or never was
      }
      claimed++;
      ini.endpoints.put(e.getNativeId(), e);
      if (e.getNativeId() == replyHandle) {
        return e;
      }
    }
    return null;
  }

  /**
   * A RESOLVE that came on an endpoint of one of our own peers: UCX connected the initiator's
   * endpoint to that one (it was waiting for a connection from that worker; always so for a peer of
   * ours connected to ourselves). That endpoint is the peer's and closes with it, so the answer
   * goes over one of our own, opened from the worker it came to, to the address of that peer's
   * matching worker (an address checked when our user inserted it, never one from a message),
   * provided it names the worker the RESOLVE does.
   */
  private UcpEndpoint claimThroughPeer(Initiator ini, long replyHandle, UcxPeer ours) {
    byte[] peerAddress = ini.side.addressIn(ours.peerAddress());
    if (peerAddress == null || WorkerEndpoints.uuidOf(peerAddress) != ini.worker) {
      return null;
    }
    UcpEndpoint ep;
    if (ini.endpoints.isEmpty()) {
      long worker = ini.worker;
      try {
        ep = ini.side.open(peerAddress, (s, t) -> backEndpointFailed(worker));
      } catch (UcxException e) {
        transport.errors().peerCaused("opening an endpoint back to an initiator", e);
        return null;
      }
    } else {
      ep = ini.any();
    }
    ini.endpoints.put(replyHandle, ep);
    // UCX may connect that worker's next endpoint to this one (it waits for a connection from
    // that worker too): messages then come on it
    ini.endpoints.put(ep.getNativeId(), ep);
    return ep;
  }

  /**
   * A peer of an initiator closed. Once none of its peers is left, the endpoints back go: closed at
   * once where UCX cannot report the initiator's end (a shared-memory transport) or where they are
   * the control worker's (which carries nothing else), else left to UCX, which fails them when the
   * initiator's worker goes away (a forced close could take a tcp connection that the initiator's
   * data endpoints share down with it). UCX 1.13 keeps an endpoint that was wired up to its peer
   * (every one claimed here is) until the worker is destroyed, unless it is closed by force, which
   * UCX allows only with peer-failure handling. So the close is forced: on the control worker (tcp,
   * peer-failure handling) that frees it; on a shared-memory endpoint UCX refuses the force and the
   * flushing close (immediate with nothing in flight) ends our use of it, not UCX's memory for it
   * (see DepartingInitiatorsTest). The initiator has flushed its RELEASE before this, and sends
   * nothing more on that endpoint.
   */
  void released(long initiatorId, int peer) {
    Initiator ini;
    synchronized (this) {
      ini = byId.get(initiatorId);
      if (ini == null || !ini.peers.remove(peer) || !ini.peers.isEmpty()) {
        return;
      }
      if (!ini.side.controlOnly()
          && transport.detectsPeerFailure()
          && ini.worker != transport.workerUuid()) {
        return; // this worker's own peers (the self-test's) never fail: let go of them here
      }
      byId.remove(initiatorId);
      byWorker.remove(ini.worker);
    }
    transport.regions().live().forEach(region -> region.forgetInitiator(initiatorId));
    ini.distinctEndpoints()
        .forEach(e -> transport.closeEndpointForcedWherePossible(e, DEAD_CLOSE_WAIT_NANOS));
  }

  /** An initiator died: drop its endpoints (after this progress) and stop waiting for its acks. */
  private void backEndpointFailed(long worker) {
    transport.control().defer(() -> dropFailed(worker));
  }

  /** Drops a dead initiator's endpoints back, forgets it as a user of keys, reclaims its locks. */
  private void dropFailed(long worker) {
    Initiator ini;
    synchronized (this) {
      ini = byWorker.remove(worker);
      if (ini == null) {
        return;
      }
      if (ini.proven) {
        byId.remove(ini.id);
      }
    }
    if (ini.proven) {
      transport.regions().live().forEach(region -> region.forgetInitiator(ini.id));
      transport.initiatorFailed(ini.id);
    }
    // forced where UCX allows it (peer-failure handling), else flushing: see released()
    ini.distinctEndpoints()
        .forEach(e -> transport.closeEndpointForcedWherePossible(e, DEAD_CLOSE_WAIT_NANOS));
  }
}
