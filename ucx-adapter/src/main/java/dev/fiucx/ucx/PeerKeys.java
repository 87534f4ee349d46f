package dev.fiucx.ucx;

import dev.fiucx.FiErrno;
import dev.fiucx.spi.ProcessIdentity;
import dev.fiucx.ucx.UcxPeer.PendingResolve;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpRemoteKey;
import org.openucx.jucx.ucp.UcpRequest;

/**
 * The keys one {@link UcxPeer} resolves at its target: each RESOLVE sent and waited for, each
 * RESOLVE_REPLY turned into a region in the cache that the peer's posts read ({@link #cache}: the
 * rkey unpacked, the region mapped for CPU atomics where UCX can map it), each REVOKE marked and
 * acknowledged, and at close the rkeys and mappings let go.
 *
 * <p>Posts never come here: the peer reads the cache itself, so its hot path has no indirection
 * more. The peer tells this of its failure ({@link #failResolves}) and its close ({@link #close});
 * a resolve started after either is refused.
 */
final class PeerKeys {
  /** How often a waiting resolve looks at the peer's process. */
  private static final long LOOK_PERIOD_NANOS = 200_000_000L;

  private final UcxPeer peer;
  private final UcxTransport transport;

  /** The peer's data endpoint: rkeys are unpacked on it, and it is the one wired up. */
  private final UcpEndpoint endpoint;

  /** Whether the peer is its transport itself (no wire-up, nothing mapped). */
  private final boolean self;

  /** Whether resolved regions are mapped for CPU atomics where UCX can map them. */
  private final boolean maps;

  private final LongObjectMap<UcxRemoteRegion> cache = new LongObjectMap<>();
  private final Map<Long, PendingResolve> pending = new HashMap<>(); // guarded by this
  private final List<UcpRemoteKey> rkeys = new ArrayList<>(); // guarded by this

  /** The scope of every mapping of the peer's regions: closed before the rkeys unmap them. */
  private final Arena mappings = Arena.ofShared();

  private long nextRequestId = 1; // guarded by this

  /** Whether a RESOLVE went to the target: only then does it hold anything a RELEASE lets go. */
  private boolean resolving; // guarded by this

  private boolean closed; // guarded by this

  /** Whether the data endpoint has finished its wire-up ({@link #awaitWiredUp}). */
  private volatile boolean wiredUp;

  /**
   * The keys of {@code peer}, none resolved yet.
   *
   * @param peer the peer whose keys these are (its data endpoint must be open)
   * @param transport the transport of that peer
   * @param self whether the peer is {@code transport} itself
   * @param maps whether resolved regions are mapped for CPU atomics where UCX can map them
   */
  PeerKeys(UcxPeer peer, UcxTransport transport, boolean self, boolean maps) {
    this.peer = peer;
    this.transport = transport;
    this.endpoint = peer.endpoint();
    this.self = self;
    this.maps = maps;
  }

  /**
   * The resolved regions by key, which the peer keeps a reference to and reads without allocating
   * or locking; written only here.
   */
  LongObjectMap<UcxRemoteRegion> cache() {
    return cache;
  }

  /** Whether a RESOLVE went to the target (a RELEASE is then owed at close). */
  synchronized boolean resolving() {
    return resolving;
  }

  /**
   * Resolves {@code key}, waiting up to the transport's control timeout: 0 once it is in the cache,
   * else a negative fi_errno (the peer's failure, {@code -FI_EKEYREJECTED} for a key the target
   * does not publish, {@code -FI_ETIMEDOUT}).
   */
  int resolve(long key) {
    PendingResolve p = start(key);
    if (p == null) {
      int f = peer.failure();
      return f != 0 ? f : -FiErrno.EIO;
    }
    long start = System.nanoTime();
    long deadline = start + transport.controlTimeoutNanos();
    long nextLook = start + LOOK_PERIOD_NANOS;
    ProcessIdentity process = peer.process();
    transport.beginControlWait();
    try {
      while (!p.done) {
        int f = peer.failure();
        if (f != 0) {
          finish(p, f);
          break;
        }
        long now = System.nanoTime();
        if (now - deadline > 0) {
          finish(p, -FiErrno.ETIMEDOUT);
          break;
        }
        if (now - nextLook > 0) { // a peer that died does not answer: do not wait out the timeout
          nextLook = now + LOOK_PERIOD_NANOS;
          if (!process.alive()) {
            peer.processExited();
            continue;
          }
        }
        transport.progress();
      }
      if (p.status == 0 && !wiredUp && takesSoftwareAtomics(key)) {
        return awaitWiredUp(deadline);
      }
    } finally {
      transport.endControlWait();
    }
    return p.status;
  }

  /**
   * Whether UCX carries atomics on {@code key}'s region in software (over tcp, or on registered
   * memory over shared memory): UCX cannot map it into this process. Atomics it does in place
   * (memory UCX allocated, over shared memory) need no reply, and no wire-up with the peer.
   */
  private boolean takesSoftwareAtomics(long key) {
    UcxRemoteRegion r = cache.get(key);
    return r != null && !self && UcpNative.rkeyPtr(r.rkeyHandle(), r.base()) == 0;
  }

  /**
   * Waits, within a resolve's deadline, until the data endpoint has finished its wire-up with the
   * peer: a message sent with UCX's reply flag waits in the endpoint's wire-up queue until UCX has
   * learnt the peer's endpoint. Why: on protocols v2 (UCX 1.16 and later) a software atomic still
   * in that queue when the endpoint fails makes UCX abort the whole process ("'abort' is not
   * implemented for protocol amo/fetch/sw", UCX 1.18.1 and 1.23.0~rc1, over tcp and shared memory
   * alike), and the first software atomic to a peer would start the wire-up and wait there. Wired
   * up, an atomic goes straight to its transport, and one in flight when the peer dies ends the way
   * every other does (the data endpoint's failure, {@link UcxPeer#processExited}). Once per peer,
   * on the first resolve of a region UCX does atomics on in software; regions UCX maps need no
   * wire-up, and a target that answered one would keep an endpoint back for each initiator.
   */
  private int awaitWiredUp(long deadline) {
    int[] failedWith = {0};
    ControlChannel.Sent sent =
        transport.control().sendWireUp(endpoint, status -> failedWith[0] = status);
    while (!sent.done()) {
      int f = peer.failure();
      if (f != 0) {
        return f;
      }
      if (System.nanoTime() - deadline > 0) {
        return -FiErrno.ETIMEDOUT;
      }
      transport.progress();
    }
    if (failedWith[0] != 0) {
      int f = peer.failure();
      return f != 0 ? f : failedWith[0];
    }
    wiredUp = true;
    return 0;
  }

  /**
   * Sends RESOLVE for {@code key} without waiting; the answer arrives during {@link
   * UcxTransport#progress}, after which {@link PendingResolve#done} is set. Returns null when the
   * request could not be sent.
   */
  PendingResolve start(long key) {
    PendingResolve p;
    synchronized (this) {
      // the peer sets its failure before it fails the resolves pending here (failResolves)
      if (closed || peer.failure() != 0) {
        return null;
      }
      p = new PendingResolve(nextRequestId++, key);
      pending.put(p.requestId, p);
      resolving = true;
    }
    peer.sendToTarget(via -> resolveMessage(p, via), status -> finish(p, status));
    return p;
  }

  /**
   * A RESOLVE to send on {@code via}, naming the UUID of the worker {@code via} belongs to: the one
   * whose endpoint the target claims for its answers.
   */
  private ControlMessage.Resolve resolveMessage(PendingResolve p, UcpEndpoint via) {
    long worker = via == endpoint ? transport.workerUuid() : transport.controlEndpoints().uuid();
    return new ControlMessage.Resolve(
        p.requestId,
        p.key,
        transport.instanceId(),
        peer.id(),
        worker,
        peer.secret(),
        ProcessIdentity.self());
  }

  /** The target answered a RESOLVE. */
  void onResolveReply(ControlMessage.ResolveReply reply) {
    PendingResolve p;
    synchronized (this) {
      p = pending.get(reply.requestId());
      if (p == null || closed) {
        return; // timed out or closed meanwhile
      }
    }
    if (!reply.found()) {
      markRevoked(p.key); // the REVOKE itself may have been missed (sent before we knew)
      finish(p, -FiErrno.EKEYREJECTED);
      return;
    }
    String incoherent = transport.atomics().mixingRefusal(reply.deviceAtomics());
    if (incoherent != null) {
      transport.errors().incoherent("key " + Long.toUnsignedString(p.key) + ": " + incoherent);
      finish(p, -FiErrno.EOPNOTSUPP);
      return;
    }
    if (!answers(cache.get(p.key), reply)) {
      UcpRemoteKey rkey;
      try {
        ByteBuffer packed = ByteBuffer.allocateDirect(reply.rkey().length);
        packed.put(reply.rkey()).flip();
        rkey = endpoint.unpackRemoteKey(packed);
      } catch (RuntimeException e) {
        transport.errors().peerCaused("unpacking a peer's rkey", e);
        finish(p, -FiErrno.EIO);
        return;
      }
      MemorySegment mapping =
          maps && !reply.deviceAtomics()
              ? UcxRemoteRegion.map(rkey.getNativeId(), reply.base(), reply.length(), mappings)
              : null;
      // one region per key at a time: two threads' replies for one key (two posters resolving it
      // at once, each draining the other's reply) once both went into the cache, the second over
      // the first that a poster already held; a REVOKE then marked only the second, and the
      // first's poster went on posting after the acknowledgement, onto unmapped memory (SIGSEGV
      // at the target over tcp)
      synchronized (this) {
        rkeys.add(rkey); // older rkeys stay alive: operations may still be in flight on them
        if (!answers(cache.get(p.key), reply)) {
          cache.put(
              p.key,
              new UcxRemoteRegion(
                  p.key, reply.base(), reply.length(), reply.access(), rkey, mapping));
          transport.keyResolved();
        }
      }
    }
    finish(p, 0);
  }

  /** Whether {@code current} (the cached region, or null) is what {@code reply} describes. */
  private static boolean answers(UcxRemoteRegion current, ControlMessage.ResolveReply reply) {
    return current != null
        && !current.revoked()
        && current.sameAs(reply.base(), reply.length(), reply.access());
  }

  /** Refuses {@code key}'s cached region from now on, if there is one not refused yet. */
  void markRevoked(long key) {
    UcxRemoteRegion r = cache.get(key);
    if (r != null && !r.revoked()) {
      r.markRevoked();
      transport.keyRevoked();
    }
  }

  /**
   * The target is closing {@code key}: refuse it from now on, then acknowledge once the peer's
   * earlier operations have all completed at the target.
   */
  void onRevoke(long key) {
    markRevoked(key);
    // a post that looked at the key before the mark gets to UCX before the flush below starts
    peer.awaitPostsUnderway();
    var ack = new ControlMessage.RevokeAck(key, transport.instanceId(), peer.id());
    if (peer.failure() != 0) {
      return; // nothing can reach the target; it gives up on us by itself
    }
    UcxCallback flushed =
        new UcxCallback() {
          @Override
          public void onSuccess(UcpRequest request) {
            transport
                .control()
                .defer(() -> transport.control().send(peer.route(), ack, status -> {}));
          }

          @Override
          public void onError(int ucsStatus, String message) {
            // the target learns of this endpoint's failure on its own, or times out
          }
        };
    try {
      endpoint.flushNonBlocking(flushed);
    } catch (RuntimeException e) {
      // an endpoint that cannot flush has failed; see onError above
      transport.errors().peerCaused("flushing before a revoke acknowledgement", e);
    }
  }

  /** Ends {@code p} with {@code status} unless it ended already. */
  void finish(PendingResolve p, int status) {
    synchronized (this) {
      if (p.done) {
        return;
      }
      pending.remove(p.requestId);
      p.status = status;
      p.done = true;
    }
  }

  /** The peer failed: every resolve pending ends with {@code errno}. */
  void failResolves(int errno) {
    List<PendingResolve> waiting;
    synchronized (this) {
      waiting = List.copyOf(pending.values());
    }
    for (PendingResolve p : waiting) {
      finish(p, errno);
    }
  }

  /**
   * The peer closes: refuses resolves and replies from now on, cancels the pending ones and marks
   * every region revoked. Returns the rkeys unpacked so far, for {@link #free} once the endpoint is
   * closed.
   */
  List<UcpRemoteKey> close() {
    List<UcpRemoteKey> unpacked;
    synchronized (this) {
      closed = true;
      unpacked = List.copyOf(rkeys);
      rkeys.clear();
      for (PendingResolve p : pending.values()) {
        p.status = -FiErrno.ECANCELED;
        p.done = true;
      }
      pending.clear();
    }
    for (UcxRemoteRegion r : cache.values()) {
      r.markRevoked();
    }
    return unpacked;
  }

  /**
   * Unmaps the peer's regions and destroys {@code unpacked} (what {@link #close} returned); after
   * the endpoint closed, which completed or cancelled what was in flight on them.
   */
  void free(List<UcpRemoteKey> unpacked) {
    UcxRemoteRegion.unmapAll(mappings, transport.errors());
    for (UcpRemoteKey k : unpacked) {
      k.close();
    }
  }
}
