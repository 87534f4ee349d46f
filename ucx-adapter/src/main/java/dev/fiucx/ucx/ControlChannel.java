package dev.fiucx.ucx;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dev.fiucx.FiErrno;
import dev.fiucx.spi.ProcessIdentity;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.IntConsumer;
import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.UcxException;
import org.openucx.jucx.ucp.UcpAmData;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;

/**
 * One transport's side of the control protocol ({@link ControlMessage}) over UCX active messages:
 * sending, receiving, and the endpoints a target keeps back to the initiators that resolved its
 * keys.
 *
 * <p>Messages arrive inside ucp_worker_progress (jucx's AM callback); they are copied, decoded and
 * queued, and handled by {@link #drain} after progress returns, so no handler calls UCX from inside
 * a UCX callback.
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
 * unclaimed is not: UCX destroys it inside progress when its peer fails, so it is never kept.
 *
 * <p>Later messages from the initiator (REVOKE_ACK, RELEASE) are accepted only on an endpoint
 * claimed for the initiator they name. The target's messages (RESOLVE_REPLY, REVOKE) carry the
 * secret the initiator's peer sent in its RESOLVE (64 random bits per peer), and the initiator
 * accepts them only with it: a third worker that knows the initiator's address cannot hand it
 * another region (or an rkey of garbage for UCX to unpack), reject a key, or revoke one. (Which of
 * its endpoints such a message arrives on does not tell: when two workers each opened an endpoint
 * to the other, UCX may answer on an endpoint of its own making.) What is refused is counted and
 * logged ({@code ucx.errors}, "refusing a control message").
 *
 * <p>An endpoint back lives until its initiator is gone: all the initiator's peers sent RELEASE
 * (closed), UCX failed the endpoint (tcp), or the initiator's process exited ({@link
 * #deadInitiators}: on shared memory UCX never says), so a long-lived target holds nothing of ours
 * for initiators that came and went. Nor of UCX's, where the initiator sent from its control worker
 * to ours ({@link ControlWorker}: tcp, peer-failure handling): such an endpoint is closed by force,
 * which is the only close after which UCX 1.13 frees an endpoint that was wired up to its peer. An
 * initiator whose control goes on a shared-memory endpoint (no control worker, or no tcp between
 * the two) still leaves UCX's endpoint behind, with its mapping of the initiator's FIFO, until the
 * worker closes.
 *
 * <p>Messages arrive on the data worker and on the control worker; a RESOLVE is answered, and its
 * initiator's endpoints claimed, on the worker it came on.
 */
final class ControlChannel {
  private static final long SEND_WAIT_NANOS = 1_000_000_000L;

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

  /** Where refused control messages are counted in {@link UcxErrors}. */
  static final String REFUSED = "refusing a control message";

  private final UcxTransport transport;
  private final Queue<Runnable> deferred = new ConcurrentLinkedQueue<>();
  private final ThreadLocal<Boolean> draining = ThreadLocal.withInitial(() -> false);

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

  ControlChannel(UcxTransport transport) {
    this.transport = transport;
  }

  /** Registers the AM handlers on the worker of {@code side}. */
  void listen(WorkerEndpoints side) {
    UcpWorker worker = side.worker();
    for (int amId : ControlMessage.AM_IDS) {
      worker.setAmRecvHandler(
          amId,
          (headerAddress, headerLength, data, replyEp) -> received(amId, data, replyEp, side),
          UcxConstants.UCP_AM_FLAG_WHOLE_MSG);
    }
    worker.setAmRecvHandler(
        ControlMessage.AM_WIRE_UP,
        (headerAddress, headerLength, data, replyEp) -> 0, // UCS_OK: UCX releases the data
        UcxConstants.UCP_AM_FLAG_WHOLE_MSG);
  }

  /**
   * Sends {@link ControlMessage#AM_WIRE_UP} on {@code ep} with UCX's reply flag, which makes UCX
   * learn the peer's endpoint first: the send completes once the endpoint is wired up. The returned
   * callback's {@code done} says when; {@code onFailure} gets a negative fi_errno when it cannot be
   * sent.
   */
  Sent sendWireUp(UcpEndpoint ep, IntConsumer onFailure) {
    MemorySegment payload = Arena.ofAuto().allocate(8, 8);
    SendCallback cb = new SendCallback(payload, onFailure);
    try {
      ep.sendAmNonBlocking(
          ControlMessage.AM_WIRE_UP,
          0,
          0,
          payload.address(),
          8,
          UcxConstants.UCP_AM_SEND_FLAG_EAGER | UcxConstants.UCP_AM_SEND_FLAG_REPLY,
          cb,
          UcxConstants.UCS_MEMORY_TYPE_HOST);
    } catch (UcxException e) {
      transport.errors().peerCaused("sending a wire-up message", e);
      if (!cb.done) {
        cb.done = true;
        onFailure.accept(-FiErrno.EIO);
      }
    }
    return cb;
  }

  /** A send in flight: {@link #done} once it completed or failed. */
  interface Sent {
    boolean done();
  }

  /** Runs {@code action} at the end of the current (or next) {@link UcxTransport#progress}. */
  void defer(Runnable action) {
    deferred.add(action);
  }

  boolean hasWork() {
    return !deferred.isEmpty();
  }

  /** Handles what arrived; returns how many actions ran. Not reentrant. */
  int drain() {
    if (draining.get()) {
      return 0;
    }
    draining.set(true);
    int n = 0;
    try {
      Runnable r;
      while ((r = deferred.poll()) != null) {
        r.run();
        n++;
      }
    } finally {
      draining.set(false);
    }
    return n;
  }

  /**
   * Sends a control message; {@code onFailure} gets a negative fi_errno when it cannot be delivered
   * (not called on success).
   */
  void send(UcpEndpoint ep, ControlMessage msg, IntConsumer onFailure) {
    sendTracked(ep, msg, onFailure);
  }

  /**
   * Sends, then flushes the endpoint, progressing until both completed, at most a second; for a
   * message sent just before its endpoint closes. Why the flush: a send can complete locally before
   * UCX has put it on the wire, and closing the endpoint at once then loses it (seen over tcp on an
   * endpoint to this worker itself: the RELEASE of the native self-test never arrived, and each tcp
   * domain's open waited out the control timeout for its REVOKE_ACK).
   */
  void sendAndWait(UcpEndpoint ep, ControlMessage msg) {
    SendCallback sent = sendTracked(ep, msg, status -> {});
    SendCallback flushed = new SendCallback(null, status -> {});
    try {
      ep.flushNonBlocking(flushed);
    } catch (UcxException e) {
      transport.errors().peerCaused("flushing after a control message", e);
      flushed.done = true;
    }
    long deadline = System.nanoTime() + SEND_WAIT_NANOS;
    transport.beginControlWait();
    try {
      while (!(sent.done && flushed.done) && System.nanoTime() - deadline < 0) {
        transport.progress();
      }
    } finally {
      transport.endControlWait();
    }
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
    send(
        back, new ControlMessage.Revoke(key, r.initiatorPeer(), secret), status -> onFailure.run());
  }

  /** Closes every endpoint back to an initiator (at transport close). */
  void closeBackEndpoints() {
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
  synchronized int initiatorsServed() {
    return byId.size();
  }

  /**
   * How many endpoints to initiators this target holds (claimed for served initiators, and any
   * claimed while a RESOLVE looked for its own).
   */
  synchronized int initiatorEndpoints() {
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

  /**
   * The initiators served here whose process is gone (where this process can see it); on {@link
   * PeerWatch}'s thread.
   */
  List<Long> deadInitiators() {
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
  boolean dropDeadInitiator(long initiatorId) {
    long worker;
    synchronized (this) {
      Initiator ini = byId.get(initiatorId);
      if (ini == null) {
        return false;
      }
      worker = ini.worker;
    }
    dropFailedInitiator(worker);
    return true;
  }

  /** Keeps the payload (none for a flush) alive until UCX is done with it; records the outcome. */
  private static final class SendCallback extends UcxCallback implements Sent {
    private final MemorySegment payload; // referenced so that the auto arena cannot free it early
    private final IntConsumer onFailure;
    volatile boolean done;

    SendCallback(MemorySegment payload, IntConsumer onFailure) {
      this.payload = payload;
      this.onFailure = onFailure;
    }

    @Override
    public boolean done() {
      return done;
    }

    @Override
    public void onSuccess(UcpRequest request) {
      done = true;
    }

    @Override
    public void onError(int ucsStatus, String message) {
      done = true;
      onFailure.accept(UcsStatus.toFiErrno(ucsStatus));
    }
  }

  private SendCallback sendTracked(UcpEndpoint ep, ControlMessage msg, IntConsumer onFailure) {
    byte[] bytes = msg.encode();
    MemorySegment payload = Arena.ofAuto().allocate(bytes.length, 8);
    MemorySegment.copy(bytes, 0, payload, JAVA_BYTE, 0, bytes.length);
    SendCallback cb = new SendCallback(payload, onFailure);
    try {
      ep.sendAmNonBlocking(
          msg.amId(),
          0,
          0,
          payload.address(),
          bytes.length,
          fromInitiator(msg)
              ? UcxConstants.UCP_AM_SEND_FLAG_EAGER | UcxConstants.UCP_AM_SEND_FLAG_REPLY
              : UcxConstants.UCP_AM_SEND_FLAG_EAGER,
          cb,
          // said explicitly: jucx 1.14's default is UCS_MEMORY_TYPE_UNKNOWN as 1.14 numbers it
          // (5), which UCX 1.18 and later read as UCS_MEMORY_TYPE_RDMA and pack through the
          // memory-type path (a crash in ucp_mem_type_pack on v1, no progress on v2)
          UcxConstants.UCS_MEMORY_TYPE_HOST);
    } catch (UcxException e) {
      transport.errors().peerCaused("sending a control message", e);
      if (!cb.done) {
        cb.done = true;
        onFailure.accept(-FiErrno.EIO);
      }
    }
    return cb;
  }

  /**
   * Whether a kind goes from an initiator to a target: sent with the reply flag, so that the target
   * learns which of its endpoints it came on.
   */
  private static boolean fromInitiator(ControlMessage msg) {
    return msg instanceof ControlMessage.Resolve
        || msg instanceof ControlMessage.RevokeAck
        || msg instanceof ControlMessage.Release;
  }

  /**
   * jucx's AM callback, inside ucp_worker_progress: copy, decode, queue, with the native handle of
   * the endpoint UCX gives for the sender (0 when it was sent without the reply flag). That
   * endpoint is only compared with, never used: UCX may destroy it in a later progress.
   */
  private int received(int amId, UcpAmData data, UcpEndpoint replyEp, WorkerEndpoints side) {
    if (data.isDataValid()) {
      byte[] payload =
          UcpNative.ALL.asSlice(data.getDataAddress(), data.getLength()).toArray(JAVA_BYTE);
      long replyHandle = replyEp == null ? 0 : replyEp.getNativeId();
      try {
        ControlMessage msg = ControlMessage.decode(amId, payload);
        deferred.add(() -> dispatch(msg, replyHandle, side));
      } catch (RuntimeException malformed) {
        transport.errors().peerCaused("decoding a control message", malformed); // then ignored
      }
    }
    return UcxConstants.UCS_OK; // the data is released when the callback returns
  }

  private void dispatch(ControlMessage msg, long replyHandle, WorkerEndpoints side) {
    switch (msg) {
      case ControlMessage.Resolve r -> onResolve(r, replyHandle, side);
      case ControlMessage.ResolveReply r -> {
        UcxPeer p = fromTargetOf(r.initiatorPeer(), r.secret(), "a RESOLVE_REPLY");
        if (p != null) {
          p.onResolveReply(r);
        }
      }
      case ControlMessage.Revoke r -> {
        UcxPeer p = fromTargetOf(r.initiatorPeer(), r.secret(), "a REVOKE");
        if (p != null) {
          p.onRevoke(r.key());
        }
      }
      case ControlMessage.RevokeAck a -> {
        if (cameFrom(a.initiatorId(), replyHandle, "a REVOKE_ACK")) {
          UcxExposedRegion region = transport.regions().live(a.key());
          if (region != null) {
            region.forget(new UcxExposedRegion.Resolver(a.initiatorId(), a.initiatorPeer()));
          }
        }
      }
      case ControlMessage.Release r -> {
        if (cameFrom(r.initiatorId(), replyHandle, "a RELEASE")) {
          var who = new UcxExposedRegion.Resolver(r.initiatorId(), r.initiatorPeer());
          transport.regions().live().forEach(region -> region.forget(who));
          released(r.initiatorId(), r.initiatorPeer());
        }
      }
    }
  }

  /**
   * The peer {@code peerNumber} of this transport when a target's message naming it carries the
   * peer's secret (which only the target it sent its RESOLVE to has learnt); else null, and a
   * message with another secret is counted as refused. A peer closed meanwhile is null without a
   * count: its target may still answer it.
   */
  private UcxPeer fromTargetOf(int peerNumber, long secret, String what) {
    UcxPeer p = transport.peer(peerNumber);
    if (p == null) {
      return null;
    }
    if (secret != p.secret()) {
      refuse(what + " without the named peer's secret");
      return null;
    }
    return p;
  }

  /**
   * Whether a message naming {@code initiatorId} came on an endpoint claimed for it; else counted.
   */
  private boolean cameFrom(long initiatorId, long replyHandle, String what) {
    synchronized (this) {
      Initiator ini = byId.get(initiatorId);
      if (ini != null && ini.endpoints.containsKey(replyHandle)) {
        return true;
      }
    }
    refuse(what + " from an endpoint not claimed for the initiator it names");
    return false;
  }

  private void refuse(String why) {
    transport.errors().peerCaused(REFUSED, new IllegalArgumentException(why));
  }

  /** Target side of RESOLVE: answer over the endpoint back to the initiator's worker. */
  private void onResolve(ControlMessage.Resolve r, long replyHandle, WorkerEndpoints side) {
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
    if (back == null) {
      if (refused != null) {
        refuse(refused);
      }
      return; // the initiator, if there is one, times out
    }
    UcxExposedRegion region = transport.regions().published(r.key());
    ControlMessage.ResolveReply reply;
    if (region != null
        && region.addResolver(new UcxExposedRegion.Resolver(r.initiatorId(), r.initiatorPeer()))) {
      reply =
          new ControlMessage.ResolveReply(
              r.requestId(),
              r.initiatorPeer(),
              r.secret(),
              true,
              transport.atomics().kind() == AtomicExecution.Kind.DEVICE,
              region.segment().address(),
              region.segment().byteSize(),
              region.access(),
              region.packedRkey());
    } else {
      reply =
          new ControlMessage.ResolveReply(
              r.requestId(), r.initiatorPeer(), r.secret(), false, false, 0, 0, 0, new byte[0]);
    }
    send(back, reply, status -> {});
  }

  /** Whether {@code r} names a new peer number of an initiator that has all it may have here. */
  private boolean beyondPeerLimit(ControlMessage.Resolve r) {
    Initiator ini = byWorker.get(r.initiatorWorker());
    return ini != null
        && ini.peers.size() >= MAX_PEERS_PER_INITIATOR
        && !ini.peers.contains(r.initiatorPeer());
  }

  /** How many peer numbers the initiator with instance id {@code id} has here (tests). */
  synchronized int peersOf(long id) {
    Initiator ini = byId.get(id);
    return ini == null ? 0 : ini.peers.size();
  }

  /**
   * The endpoint to answer {@code r} on, claimed for its initiator if it was not yet, or null when
   * the RESOLVE is refused: it came without a reply endpoint, names a worker none of whose waiting
   * endpoints is the one it came on, or names an instance id or worker that another proven
   * initiator holds. {@code side} is the worker of ours it came to.
   */
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
  private void released(long initiatorId, int peer) {
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

  /**
   * How long closing an endpoint back to an initiator that left or died may hold up this progress:
   * a flushing close with nothing in flight is done at once; one with a message still queued to a
   * dead initiator never is, and UCX finishes (or keeps) it on its own after this.
   */
  private static final long DEAD_CLOSE_WAIT_NANOS = 100_000_000L;

  /** An initiator died: drop its endpoints (after this progress) and stop waiting for its acks. */
  private void backEndpointFailed(long worker) {
    defer(() -> dropFailedInitiator(worker));
  }

  /** Drops a dead initiator's endpoints back, forgets it as a user of keys, reclaims its locks. */
  private void dropFailedInitiator(long worker) {
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
