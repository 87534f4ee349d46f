package dev.fiucx.ucx;

import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.spi.ExposedRegion;
import dev.fiucx.spi.ProcessIdentity;
import dev.fiucx.spi.Transport;
import dev.fiucx.spi.TransportCompletions;
import dev.fiucx.spi.TransportPeer;
import java.lang.foreign.MemorySegment;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.openucx.jucx.UcxException;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpParams;
import org.openucx.jucx.ucp.UcpWorker;

/**
 * fiucx's transport on UCX: one UCP context and one worker per instance for the data path, built
 * with jucx; atomics and flush through {@link UcpNative}. Peers find each other's memory over a
 * control channel of UCX active messages ({@link ControlMessage}), which a transport that may use
 * shared memory carries on a {@link ControlWorker} of its own (tcp, peer-failure handling),
 * progressed off the hot path: every {@link #CONTROL_EVERY}th {@link #progress}, while control work
 * is awaited, and when its event fd woke a waiter.
 *
 * <p>Everything UCX reports (completions, active messages, endpoint failures) arrives inside {@link
 * #progress}; control messages are queued there and handled after {@code ucp_worker_progress}
 * returns, so no handler ever calls UCX from inside a UCX callback.
 */
public final class UcxTransport implements Transport {
  /** How an endpoint reports its failure (from UCX's error callback). */
  interface FailureListener {
    void failed(int ucsStatus, String text);
  }

  private static final SecureRandom RANDOM = new SecureRandom();

  private final UcxOptions options;

  /** What was decided before UCX was opened: series, configuration, failure handling. */
  private final UcxSetup setup;

  private final boolean detectPeerFailure;

  private final UcpContext context;
  private final UcpWorker worker;
  private final long workerHandle;

  /** This transport's address for peers: {@link UcxAddress}, encoded. */
  private final byte[] address;

  private final WorkerEndpoints dataEndpoints;

  /**
   * The worker of the control channel, or null where control goes on the data worker (a tcp list,
   * whose data worker has peer-failure handling itself, or no tcp interface for it).
   */
  private final ControlWorker controlWorker;

  /** Endpoints on {@link #controlWorker}, or null. */
  private final WorkerEndpoints controlEndpoints;

  /** Why a transport that wanted a control worker has none (UCX's words), or null. */
  private final String controlWorkerFailure;

  /**
   * How many {@link #progress} calls pass between two progresses of the control worker when no
   * control work is awaited. One costs about 410 ns (an epoll_wait in uct_tcp_iface_progress;
   * measured against 36-43 ns for an idle progress), so 256 add about 1.6 ns per call on average,
   * while a spinning target still reaches a RESOLVE within about 10 us; a sleeping one is woken by
   * the control worker's event fd.
   */
  static final int CONTROL_EVERY = 256;

  /**
   * Progress calls since the control worker was last progressed; plain, a lost count is harmless.
   */
  private int progressCalls;

  /** Set when a wait saw the control worker's event fd (or it had events when armed). */
  private volatile boolean controlWoken;

  /**
   * Threads waiting for a control answer or a close: the control worker goes with each progress.
   */
  private final AtomicInteger controlWaits = new AtomicInteger();

  private final long instanceId;

  private final AtomicPoster poster;
  private final TransportCompletions completions;

  /**
   * Operations pending per peer, where UCX cannot end them when a peer dies (no peer-failure
   * handling: shared memory); null where it can.
   */
  private final PendingRequests tracked;

  /** The peers, and those seen dead for {@link #checkPeers}. */
  private final UcxPeers peers;

  private final UcxErrors errors = new UcxErrors();
  // metrics: written by the control handling (progress), read by any thread
  private final AtomicLong keysResolved = new AtomicLong();
  private final AtomicLong keysRevoked = new AtomicLong();

  private final ControlChannel control = new ControlChannel(this);
  private volatile java.util.function.LongConsumer initiatorFailures;

  /** Closing endpoints within a bound, progressing this transport meanwhile. */
  private final EndpointCloser endpointCloser = new EndpointCloser(this);

  /** The exposed regions: what a RESOLVE may find, and what close revokes. */
  private final UcxRegions regions;

  /** What describe tells of this transport beyond its peers. */
  private final UcxDescription description;

  // control-plane state, guarded by this (as the peer list in UcxPeers is)
  private boolean closed;

  /** Sleeping on the workers' event fds ({@link #awaitEvent}), and waking such a sleep. */
  private final WorkerWakeup wakeup;

  /** Set when closing starts: no new wait arms the worker. */
  private volatile boolean awaitOff;

  /**
   * Opens a transport with {@link UcxOptions#defaults()}.
   *
   * @param completions told of every pending operation's end, from inside {@link #progress}
   */
  public UcxTransport(TransportCompletions completions) {
    this(completions, UcxOptions.defaults());
  }

  /**
   * Opens a transport.
   *
   * @param completions told of every pending operation's end, from inside {@link #progress}
   * @param options how it opens
   */
  public UcxTransport(TransportCompletions completions, UcxOptions options) {
    this(completions, options, AtomicRequests.DEFAULT_SLOTS);
  }

  /**
   * @param requestSlots fetching atomics in flight before posts answer {@code -FI_EAGAIN}, where
   *     UCX may purge requests (tests lower it)
   */
  UcxTransport(TransportCompletions completions, UcxOptions options, int requestSlots) {
    this(completions, options, requestSlots, null);
  }

  /**
   * @param protoEnable UCX_PROTO_ENABLE for this transport's context ({@code "y"} or {@code "n"}),
   *     or null for the series' choice: tests force each protocol generation where the series has
   *     both
   */
  UcxTransport(
      TransportCompletions completions, UcxOptions options, int requestSlots, String protoEnable) {
    UcpNative.ensureLoaded();
    this.setup = UcxSetup.of(options, protoEnable);
    this.options = options;
    this.detectPeerFailure = setup.detectPeerFailure();
    this.completions = completions;
    this.tracked = detectPeerFailure ? null : new PendingRequests();

    UcpParams params =
        new UcpParams()
            .requestAtomic32BitFeature()
            .requestAtomic64BitFeature()
            .requestAmFeature()
            .requestRmaFeature()
            // a thread with nothing to do but wait blocks on the worker's event fd (awaitEvent)
            .requestWakeupFeature();
    setup.configOverrides().forEach(params::setConfig);
    UcpContext ctx = null;
    UcpWorker w = null;
    AtomicPoster p = null;
    WorkerEndpoints de;
    try {
      ctx = UcpNative.withoutApiVersionWarning(() -> new UcpContext(params));
      w = ctx.newWorker(WorkerThreadMode.params(options.threadSafe()));
      p =
          new AtomicPoster(
              tracked == null
                  ? (request, token, status) -> completions.completed(token, status)
                  : this::trackedCompletion,
              options.threadSafe(),
              UcpNative.contextRequestSize(ctx.getNativeId()),
              detectPeerFailure,
              setup.operandKept(),
              requestSlots);
      de = new WorkerEndpoints(w, detectPeerFailure, false);
      control.listen(de);
    } catch (RuntimeException e) { // UcxException, UnsatisfiedLinkError stays an Error
      if (w != null) {
        w.close();
      }
      if (ctx != null) {
        ctx.close();
      }
      if (p != null) {
        p.close();
      }
      throw new FiException(FiErrno.ENODEV, "cannot open UCX (" + e.getMessage() + ")", e);
    }
    this.context = ctx;
    this.worker = w;
    this.workerHandle = w.getNativeId();
    this.poster = p;
    int eventFd = ControlWorker.eventFdOf(w);
    this.dataEndpoints = de;
    ControlWorker cw = null;
    WorkerEndpoints ce = null;
    String failure = null;
    if (options.controlWorker(System.getenv("UCX_TLS"), setup.series())) {
      try {
        cw = ControlWorker.open(options.threadSafe());
        ce = new WorkerEndpoints(cw.worker(), true, true);
        control.listen(ce);
      } catch (RuntimeException e) { // UcxException: no tcp interface
        if (cw != null) {
          cw.close();
        }
        cw = null;
        ce = null;
        failure = String.valueOf(e.getMessage());
        errors.caught("opening the control worker (control goes on the data worker)", e);
      }
    }
    this.controlWorker = cw;
    this.controlEndpoints = ce;
    this.controlWorkerFailure = failure;
    this.wakeup = new WorkerWakeup(workerHandle, eventFd, cw, () -> controlWoken = true);
    this.address = new UcxAddress(de.address(), ce == null ? null : ce.address()).encode();
    long id;
    do {
      id = RANDOM.nextLong();
    } while (id == 0);
    this.instanceId = id;
    DirectPath directPath = DirectPath.of(options, setup.configOverrides(), workerHandle);
    ServedInitiators served = control.initiators();
    this.peers = new UcxPeers(this, served);
    this.regions = new UcxRegions(this, ctx, options, setup.sharedMemory(), errors);
    this.description =
        new UcxDescription(
            setup, de, ce, failure, address.length, workerHandle, p, served, errors, directPath);
    PeerWatch.watch(this);
  }

  /**
   * Whether peers' regions that UCX can map into this process get CPU atomics on the mapping; a
   * connection to this transport itself never does, so the self-test proves UCX's own atomics.
   */
  boolean mapsPeers() {
    return description.directPath().on();
  }

  /** Who executes the atomics UCX does for the data worker. */
  AtomicExecution atomics() {
    return description.directPath().atomics();
  }

  // ---------------------------------------------------------------- Transport

  @Override
  public byte[] address() {
    return address.clone();
  }

  @Override
  public TransportPeer connect(byte[] peerAddress) {
    return connect(peerAddress, ProcessIdentity.UNKNOWN);
  }

  @Override
  public TransportPeer connect(byte[] peerAddress, ProcessIdentity peerProcess) {
    if (setup.sharedMemoryBetweenProcesses() && peerProcess.inAnotherPidNamespaceOfThisHost()) {
      // UCX 1.13 takes such a peer for reachable over sysv or cma, and its ucp_ep_create or first
      // message then times out (ucx_perftest too): refuse at once, with the way out
      throw new FiException(
          FiErrno.EHOSTUNREACH,
          "the peer ("
              + peerProcess
              + ") runs on this host in another pid namespace, which UCX "
              + UcpNative.versionString()
              + "'s shared-memory transports cannot reach (a container with its own pids);"
              + " use tcp, or run both in one pid namespace (docker: --pid=host)");
    }
    String unreadable = UcxWorkerAddress.problem(peerAddress, setup.series().addressFormat());
    if (unreadable != null) {
      // UCX reads worker addresses unchecked: it would abort, or read or write out of bounds
      throw new FiException(FiErrno.EINVAL, "not a fiucx ucx address: " + unreadable);
    }
    UcxAddress addresses = UcxAddress.read(peerAddress);
    synchronized (this) {
      checkOpen();
      UcxPeer peer;
      try {
        peer = new UcxPeer(this, poster, peers.nextId(), addresses, peerProcess, tracked);
      } catch (UcxException e) {
        throw new FiException(FiErrno.EHOSTUNREACH, "cannot connect: " + e.getMessage(), e);
      }
      peers.add(peer);
      return peer;
    }
  }

  /**
   * Ends what the peers that {@link PeerWatch} saw gone left behind: a dead target's operations end
   * with {@code -FI_ECONNRESET}; a dead initiator's endpoint back is closed and its locks
   * reclaimed. A read of one flag when nobody died: no allocation, no system call.
   */
  @Override
  public int checkPeers() {
    return peers.checkPeers();
  }

  /**
   * On {@link PeerWatch}'s thread: looks at the processes of this transport's peers and of the
   * initiators it serves (where this process can see them: same host, same pid namespace) and
   * queues those gone for {@link #checkPeers}.
   */
  void lookForDeadPeers() {
    peers.lookForDead();
  }

  /**
   * UCX completed a pending operation of a transport that records them ({@link #tracked}); one the
   * transport already ended (its peer died) is reported to nobody.
   */
  private void trackedCompletion(long request, long token, int status) {
    int peer = tracked.completed(request, token);
    if (peer == PendingRequests.ENDED) {
      return;
    }
    if (status == -FiErrno.EIO && peers.processGone(peer)) {
      // UCX 1.18's shared memory ends an operation to a dead peer with a plain I/O error (cma
      // cannot read a process that is gone): say what happened; checkPeers ends the rest
      status = -FiErrno.ECONNRESET;
    }
    completions.completed(token, status);
  }

  /** Ends an operation UCX will never end (its peer died or closed) with {@code status}. */
  void endOperation(long token, int status) {
    completions.completed(token, status);
  }

  /** Operations recorded as pending to peers, or -1 where UCX ends them itself; for tests. */
  int trackedPending() {
    return tracked == null ? -1 : tracked.pending();
  }

  /** Operations this transport ended that UCX has not completed (yet), or -1; for tests. */
  int trackedEnded() {
    return tracked == null ? -1 : tracked.ended();
  }

  /**
   * Allocates through {@code ucp_mem_map}, refusing with {@code FI_ENOMEM} before UCX is called a
   * size beyond {@link UcxOptions#allocationLimit} (default: what the machine can back), so nothing
   * is created in {@code /dev/shm}. The region's segment belongs to an arena of its own, closed
   * before the memory is unmapped: a use after close throws instead of touching unmapped memory.
   */
  @Override
  public ExposedRegion allocate(long size, long access) {
    return regions.allocate(size, access);
  }

  @Override
  public ExposedRegion register(MemorySegment segment, long access) {
    return regions.register(segment, access);
  }

  /**
   * Progresses the data worker (completions, peers' software atomics, control messages from peers
   * without a control worker), the control worker when it is due (every {@link #CONTROL_EVERY}th
   * call, while a control answer or a close is awaited, or after its event fd woke a waiter), then
   * handles the control messages that arrived. Rethrows what a completion handler threw. No system
   * call and no allocation of its own on the calls between.
   */
  @Override
  public int progress() {
    int events;
    try {
      events = worker.progress();
    } catch (Exception e) {
      throw new FiException(FiErrno.EIO, "ucp_worker_progress: " + e.getMessage(), e);
    }
    poster.rethrowDeferred();
    if (controlWorker != null
        && (++progressCalls >= CONTROL_EVERY || controlWoken || controlWaits.get() != 0)) {
      events += progressControlWorker();
    }
    if (control.hasWork()) {
      events += control.drain();
    }
    return events;
  }

  private int progressControlWorker() {
    progressCalls = 0;
    controlWoken = false; // before: an event seen during this progress sets it again
    try {
      return controlWorker.progress();
    } catch (Exception e) {
      throw new FiException(FiErrno.EIO, "ucp_worker_progress (control): " + e.getMessage(), e);
    }
  }

  /**
   * A thread starts waiting for a control answer (a resolve, an acknowledgement, a close): every
   * {@link #progress} progresses the control worker until {@link #endControlWait}.
   */
  void beginControlWait() {
    controlWaits.incrementAndGet();
  }

  void endControlWait() {
    controlWaits.decrementAndGet();
  }

  /**
   * Arms the data worker (and the control worker) and sleeps in {@code ppoll} on their event fds
   * until a transport has an event (over tcp: a socket became readable), {@link #interruptAwait}
   * signals, or the timeout passes. Returns at once when a worker has events waiting ({@code
   * UCS_ERR_BUSY}) or control messages are queued; an event of the control worker makes the next
   * {@link #progress} progress it. Allocates nothing.
   */
  @Override
  public boolean awaitEvent(long timeoutNanos) {
    if (!wakeup.available() || awaitOff) {
      return false;
    }
    if (control.hasWork() || timeoutNanos <= 0) {
      return true;
    }
    return wakeup.sleep(timeoutNanos);
  }

  @Override
  public void interruptAwait() {
    if (wakeup.available() && !awaitOff) {
      wakeup.signal();
    }
  }

  @Override
  public long keysResolved() {
    return keysResolved.get();
  }

  @Override
  public long keysRevoked() {
    return keysRevoked.get();
  }

  /** A peer answered a RESOLVE with a region this transport had not resolved before. */
  void keyResolved() {
    keysResolved.incrementAndGet();
  }

  /** A peer revoked a key this transport had resolved. */
  void keyRevoked() {
    keysRevoked.incrementAndGet();
  }

  /**
   * Version, transports in use per connected peer, the effective UCX_TLS, UCX_ATOMIC_MODE and
   * UCX_PROTO_ENABLE, thread mode and failure detection.
   */
  @Override
  public Map<String, String> describe() {
    Map<String, String> d = description.facts();
    for (UcxPeer p : peers.open()) {
      d.put("ucx.peer." + p.id() + ".lanes", p.lanes());
      if (controlWorker != null) {
        d.put("ucx.peer." + p.id() + ".control_lanes", p.controlLanes());
      }
      if (p.failed()) {
        d.put("ucx.peer." + p.id() + ".failed", p.failureText());
      }
    }
    return d;
  }

  /**
   * Revokes every exposed region (waiting for acknowledgements up to the control timeout), closes
   * the peers and back endpoints, then the worker and the context.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    awaitOff = true;
    PeerWatch.unwatch(this);
    List<UcxExposedRegion> live = regions.live();
    live.forEach(UcxExposedRegion::beginRevoke);
    for (UcxExposedRegion r : live) {
      while (!r.revokeDone()) {
        progressWhileClosing();
      }
    }
    peers.open().forEach(UcxPeer::close);
    control.initiators().closeAll();
    if (controlWorker != null) {
      controlWorker.close();
    }
    worker.close();
    context.close();
    poster.close();
  }

  // ---------------------------------------------------------------- beyond the SPI

  /** {@return the options this transport was opened with} */
  public UcxOptions options() {
    return options;
  }

  // ---------------------------------------------------------------- package: peers and regions

  @Override
  public long instanceId() {
    return instanceId;
  }

  @Override
  public void onInitiatorFailure(java.util.function.LongConsumer listener) {
    initiatorFailures = listener;
  }

  /** The control channel found an initiator dead (inside progress). */
  void initiatorFailed(long initiatorId) {
    java.util.function.LongConsumer l = initiatorFailures;
    if (l != null) {
      l.accept(initiatorId);
    }
  }

  /** Whether UCX reports a dead peer by itself (peer-failure handling on every endpoint). */
  boolean detectsPeerFailure() {
    return detectPeerFailure;
  }

  long controlTimeoutNanos() {
    return options.controlTimeout().toNanos();
  }

  /** The data worker's native ucp_worker_h, for tests that look at its transports. */
  long dataWorkerHandle() {
    return workerHandle;
  }

  /** Opening and claiming endpoints on the data worker. */
  WorkerEndpoints dataEndpoints() {
    return dataEndpoints;
  }

  /** Opening and claiming endpoints on the control worker, or null where there is none. */
  WorkerEndpoints controlEndpoints() {
    return controlEndpoints;
  }

  /**
   * Where control messages to {@code peer} go from here: the control worker when both sides have
   * one, else the data worker.
   */
  WorkerEndpoints controlRouteTo(UcxAddress peer) {
    return controlEndpoints != null && peer.control() != null ? controlEndpoints : dataEndpoints;
  }

  /**
   * Opens an endpoint to where the transport at {@code transportAddress} takes control messages
   * from this one ({@link #controlRouteTo}): for tests that speak the control protocol themselves.
   */
  UcpEndpoint openControlEndpoint(byte[] transportAddress, FailureListener listener) {
    String unreadable = UcxWorkerAddress.problem(transportAddress, setup.series().addressFormat());
    if (unreadable != null) {
      throw new IllegalArgumentException(unreadable);
    }
    UcxAddress peer = UcxAddress.read(transportAddress);
    WorkerEndpoints side = controlRouteTo(peer);
    return side.open(side.addressIn(peer), listener);
  }

  /**
   * The UUID of the worker this transport sends control messages from where it can: the control
   * worker's, else the data worker's.
   */
  long controlWorkerUuid() {
    return controlEndpoints != null ? controlEndpoints.uuid() : workerUuid();
  }

  /**
   * The UUID of this transport's data worker, read from its address (0 when the address carries
   * none); what a target matches an initiator's endpoint by.
   */
  long workerUuid() {
    return dataEndpoints.uuid();
  }

  /** The worker UUID in a UCX worker address ({@link WorkerEndpoints#uuidOf}); for tests. */
  static long workerUuidOf(byte[] address) {
    return WorkerEndpoints.uuidOf(address);
  }

  /**
   * Closes an endpoint, flushing it first unless {@code force}, waiting at most a second ({@link
   * EndpointCloser#close(UcpEndpoint, boolean)}).
   */
  void closeEndpoint(UcpEndpoint ep, boolean force) {
    endpointCloser.close(ep, force);
  }

  /** {@link EndpointCloser#closeByForce}. */
  boolean closeEndpointByForce(UcpEndpoint ep, long waitNanos) {
    return endpointCloser.closeByForce(ep, waitNanos);
  }

  /**
   * Closes an endpoint by force where UCX allows it, else flushing; waits at most {@code waitNanos}
   * ({@link EndpointCloser#closeForcedWherePossible}).
   */
  void closeEndpointForcedWherePossible(UcpEndpoint ep, long waitNanos) {
    endpointCloser.closeForcedWherePossible(ep, waitNanos);
  }

  /**
   * Progress inside a closing loop, which must run to its end: what progress throws is counted and
   * logged here (in the domain's own progress it reaches the application's error handler).
   */
  void progressWhileClosing() {
    beginControlWait(); // a close waits for acknowledgements and disconnects on either worker
    try {
      progress();
    } catch (RuntimeException | Error e) {
      errors.caught("progress while closing", e);
    } finally {
      endControlWait();
    }
  }

  /** What this transport caught and survived. */
  UcxErrors errors() {
    return errors;
  }

  void forgetPeer(UcxPeer peer) {
    peers.forget(peer);
  }

  /** This transport's exposed regions. */
  UcxRegions regions() {
    return regions;
  }

  /**
   * The open peer one of whose endpoints (data or control) is the native ucp_ep_h {@code handle}.
   */
  UcxPeer peerByEndpoint(long handle) {
    return peers.byEndpoint(handle);
  }

  UcxPeer peer(int id) {
    return peers.byId(id);
  }

  synchronized boolean isClosed() {
    return closed;
  }

  ControlChannel control() {
    return control;
  }

  synchronized void checkOpen() {
    if (closed) {
      throw new FiException(FiErrno.EBADF, "transport closed");
    }
  }

  @Override
  public String toString() {
    return "UcxTransport[%016x, %s]".formatted(instanceId, options);
  }
}
