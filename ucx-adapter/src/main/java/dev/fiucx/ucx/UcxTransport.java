package dev.fiucx.ucx;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.FiFlags;
import dev.fiucx.spi.ExposedRegion;
import dev.fiucx.spi.ProcessIdentity;
import dev.fiucx.spi.Transport;
import dev.fiucx.spi.TransportCompletions;
import dev.fiucx.spi.TransportPeer;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.openucx.jucx.UcxException;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpMemMapParams;
import org.openucx.jucx.ucp.UcpMemory;
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
  private static final long CLOSE_WAIT_NANOS = 1_000_000_000L;

  private final UcxOptions options;
  private final Map<String, String> configOverrides;
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
  private final java.util.concurrent.atomic.AtomicInteger controlWaits =
      new java.util.concurrent.atomic.AtomicInteger();

  private final long instanceId;

  /** What fiucx knows of the UCX series loaded here. */
  private final UcxSeries series;

  /** Whether UCX's protocols in use may read an atomic's operand after the call returned (v2). */
  private final boolean operandKept;

  private final AtomicPoster poster;
  private final TransportCompletions completions;

  /**
   * Operations pending per peer, where UCX cannot end them when a peer dies (no peer-failure
   * handling: shared memory); null where it can.
   */
  private final PendingRequests tracked;

  /** Peers and initiators {@link PeerWatch} saw gone, for {@link #checkPeers}. */
  private final java.util.Queue<UcxPeer> deadPeers =
      new java.util.concurrent.ConcurrentLinkedQueue<>();

  private final java.util.Queue<Long> deadInitiators =
      new java.util.concurrent.ConcurrentLinkedQueue<>();
  private volatile boolean deathsSeen;

  /** Why peers' regions are not mapped for CPU atomics, or null when they are where UCX can. */
  private final String directPathOff;

  private final UcxErrors errors = new UcxErrors();
  // metrics: written by the control handling (progress), read by any thread
  private final java.util.concurrent.atomic.AtomicLong keysResolved =
      new java.util.concurrent.atomic.AtomicLong();
  private final java.util.concurrent.atomic.AtomicLong keysRevoked =
      new java.util.concurrent.atomic.AtomicLong();

  /** Whether UCX may allocate in /dev/shm: its free space then bounds {@link #allocate}. */
  private final boolean sharedMemory;

  private final boolean sharedMemoryBetweenProcesses;

  private final ControlChannel control = new ControlChannel(this);
  private volatile java.util.function.LongConsumer initiatorFailures;

  /** Keys a RESOLVE may find. */
  private final LongObjectMap<UcxExposedRegion> published = new LongObjectMap<>();

  /** Every region not yet unmapped (published or revoking), for acks and close. */
  private final LongObjectMap<UcxExposedRegion> live = new LongObjectMap<>();

  // control-plane state, guarded by this
  private final List<UcxPeer> peers = new ArrayList<>();
  private boolean closed;

  /**
   * The worker's event file descriptor ({@code ucp_worker_get_efd}), or -1 when the worker cannot
   * wake a waiter: {@link #awaitEvent} then answers false.
   */
  private final int eventFd;

  /** The control worker's event fd, or -1 (none, or it cannot wake a waiter). */
  private final int controlEventFd;

  /**
   * Two {@code struct pollfd} (8 bytes each: data worker, control worker) and one {@code struct
   * timespec} (16) for {@link #awaitEvent}, whose caller is the one thread that progresses. Freed
   * by the collector, never by close: a waiter may still be inside ppoll then.
   */
  private final MemorySegment pollScratch = Arena.ofAuto().allocate(32, 8);

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
    this.series = UcxSeries.loaded();
    this.options = options;
    this.sharedMemory = options.mayUseSharedMemory(System.getenv("UCX_TLS"));
    this.sharedMemoryBetweenProcesses =
        options.mayUseSharedMemoryBetweenProcesses(System.getenv("UCX_TLS"));
    Map<String, String> overrides = new LinkedHashMap<>();
    String tls = options.tlsOverride();
    if (tls != null) {
      overrides.put("TLS", tls);
    }
    // UCX's default protocols, but v1 where the series' facts say so (UcxSeries#protocolV1Only)
    // and the user set no UCX_PROTO_ENABLE of their own (which bench uses to compare the two)
    if (protoEnable != null) {
      overrides.put("PROTO_ENABLE", protoEnable);
    } else if (series.protocolV1Only() && System.getenv("UCX_PROTO_ENABLE") == null) {
      overrides.put("PROTO_ENABLE", "n");
    }
    // v2 may read an atomic's operand after ucp_atomic_op_nbx returned (at the first send attempt
    // of a request it queued); v1 copies it inside the call
    this.configOverrides = Map.copyOf(overrides);
    this.operandKept = !"n".equalsIgnoreCase(UcpNative.configValue("PROTO_ENABLE", overrides));
    this.detectPeerFailure = options.detectPeerFailure(System.getenv("UCX_TLS"), series);
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
    overrides.forEach(params::setConfig);
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
              operandKept,
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
    this.eventFd = ControlWorker.eventFdOf(w);
    this.dataEndpoints = de;
    ControlWorker cw = null;
    WorkerEndpoints ce = null;
    String failure = null;
    if (options.controlWorker(System.getenv("UCX_TLS"), series)) {
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
    this.controlEventFd = cw == null ? -1 : cw.eventFd();
    this.address = new UcxAddress(de.address(), ce == null ? null : ce.address()).encode();
    long id;
    do {
      id = RANDOM.nextLong();
    } while (id == 0);
    this.instanceId = id;
    this.directPathOff = directPathOff();
    PeerWatch.watch(this);
  }

  /**
   * The direct path is honest only where every atomic on the memory is a CPU atomic: the option is
   * on, UCX is not told to use device (NIC) atomics, the worker's atomic resources are all memory
   * domains whose atomics the CPU executes, and the CPU atomics were seen right here.
   */
  private String directPathOff() {
    if (!options.directPath()) {
      return "off (" + dev.fiucx.DomainAttr.DIRECT_PATH_OPTION + "=off)";
    }
    String mode = UcpNative.configValue("ATOMIC_MODE", configOverrides);
    if ("device".equalsIgnoreCase(mode)) {
      return "off (UCX_ATOMIC_MODE=device: NIC atomics are not coherent with CPU atomics)";
    }
    String resources = workerAtomics();
    for (String r : resources.split(",")) {
      String md = r.replaceFirst("^\\s*\\d+:", "").replaceFirst("/.*", "").trim();
      if (!md.isEmpty() && !CPU_ATOMIC_DOMAINS.contains(md)) {
        return "off (UCX has device atomics on " + md + ")";
      }
    }
    String wrong = MappedAtomics.selfTest();
    return wrong == null ? null : "off (" + wrong + ")";
  }

  /** UCX memory domains whose atomics are executed by a CPU (shared memory, self, software). */
  private static final java.util.Set<String> CPU_ATOMIC_DOMAINS =
      java.util.Set.of("self", "sysv", "posix", "xpmem", "cma", "knem", "tcp");

  /** The "atomics:" line of ucp_worker_print_info: the worker's atomic resources. */
  private String workerAtomics() {
    return UcpNative.workerInfo(workerHandle)
        .lines()
        .map(l -> l.replaceFirst("^#\\s*", ""))
        .filter(l -> l.startsWith("atomics:"))
        .map(l -> l.substring("atomics:".length()).trim())
        .findFirst()
        .orElse("");
  }

  /**
   * Whether peers' regions that UCX can map into this process get CPU atomics on the mapping; a
   * connection to this transport itself never does, so the self-test proves UCX's own atomics.
   */
  boolean mapsPeers() {
    return directPathOff == null;
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
    if (sharedMemoryBetweenProcesses && peerProcess.inAnotherPidNamespaceOfThisHost()) {
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
    String unreadable = UcxWorkerAddress.problem(peerAddress, series.addressFormat());
    if (unreadable != null) {
      // UCX reads worker addresses unchecked: it would abort, or read or write out of bounds
      throw new FiException(FiErrno.EINVAL, "not a fiucx ucx address: " + unreadable);
    }
    UcxAddress addresses = UcxAddress.read(peerAddress);
    synchronized (this) {
      checkOpen();
      UcxPeer peer;
      try {
        peer = new UcxPeer(this, poster, peers.size(), addresses, peerProcess, tracked);
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
      if (control.dropDeadInitiator(initiator)) {
        dead++;
      }
    }
    return dead;
  }

  /**
   * On {@link PeerWatch}'s thread: looks at the processes of this transport's peers and of the
   * initiators it serves (where this process can see them: same host, same pid namespace) and
   * queues those gone for {@link #checkPeers}.
   */
  void lookForDeadPeers() {
    List<UcxPeer> snapshot;
    synchronized (this) {
      if (closed) {
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
    for (long id : control.deadInitiators()) {
      deadInitiators.add(id);
      seen = true;
    }
    if (seen) {
      deathsSeen = true;
    }
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
    if (status == -FiErrno.EIO && peerProcessGone(peer)) {
      // UCX 1.18's shared memory ends an operation to a dead peer with a plain I/O error (cma
      // cannot read a process that is gone): say what happened; checkPeers ends the rest
      status = -FiErrno.ECONNRESET;
    }
    completions.completed(token, status);
  }

  /**
   * Whether peer number {@code id}'s process is observably gone; if so it is queued for {@link
   * #checkPeers}, as {@link PeerWatch} would. Only on an operation's failure.
   */
  private boolean peerProcessGone(int id) {
    UcxPeer p;
    synchronized (this) {
      p = id >= 0 && id < peers.size() ? peers.get(id) : null;
    }
    if (p == null || !p.process().observable() || p.process().alive()) {
      return false;
    }
    deadPeers.add(p);
    deathsSeen = true;
    return true;
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
  @SuppressWarnings("restricted") // scopes UCX's allocation, which this region owns, to its arena
  public ExposedRegion allocate(long size, long access) {
    if (size <= 0 || size > Long.MAX_VALUE - 7) {
      throw new FiException(FiErrno.EINVAL, "size " + size);
    }
    long length = (size + 7) & ~7L;
    checkAllocationLimit(length);
    UcpMemMapParams params =
        new UcpMemMapParams().allocate().setLength(length).setProtection(protection(access));
    UcpMemory memory = map(params);
    Arena scope = Arena.ofShared();
    MemorySegment segment =
        UcpNative.ALL.asSlice(memory.getAddress(), length).reinterpret(scope, null);
    segment.fill((byte) 0); // ucp_mem_map may hand out recycled memory
    try {
      return publish(memory, segment, scope, access);
    } catch (RuntimeException e) {
      scope.close(); // publish deregistered the memory
      throw e;
    }
  }

  private void checkAllocationLimit(long length) {
    long limit = options.allocationLimit();
    String source = dev.fiucx.DomainAttr.ALLOC_LIMIT_OPTION;
    if (limit == 0) {
      MachineMemory.Backable b = MachineMemory.backable(sharedMemory, errors);
      limit = b.bytes();
      source = "what this machine can back now: " + b.source();
    }
    if (length > limit) {
      throw new FiException(
          FiErrno.ENOMEM,
          "allocateMemory of "
              + length
              + " bytes refused: the limit is "
              + limit
              + " bytes ("
              + source
              + "; set the domain option "
              + dev.fiucx.DomainAttr.ALLOC_LIMIT_OPTION
              + " to change it)");
    }
  }

  @Override
  public ExposedRegion register(MemorySegment segment, long access) {
    if (!segment.isNative()
        || segment.address() % 8 != 0
        || segment.byteSize() == 0
        || segment.byteSize() % 8 != 0) {
      throw new FiException(
          FiErrno.EINVAL,
          "registered memory must be native, 8-byte aligned and a non-zero multiple of 8 bytes: "
              + segment);
    }
    UcpMemMapParams params =
        new UcpMemMapParams()
            .setAddress(segment.address())
            .setLength(segment.byteSize())
            .setProtection(protection(access));
    return publish(map(params), segment, null, access);
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
    if (eventFd < 0 || awaitOff) {
      return false;
    }
    if (control.hasWork() || timeoutNanos <= 0) {
      return true;
    }
    int status = UcpNative.workerArm(workerHandle);
    if (status == UcxConstants.UCS_ERR_BUSY) {
      return true; // progress first
    }
    if (status != 0) {
      return false;
    }
    int fds = 1;
    if (controlEventFd >= 0) {
      int controlStatus = UcpNative.workerArm(controlWorker.handle());
      if (controlStatus == UcxConstants.UCS_ERR_BUSY) {
        controlWoken = true;
        return true;
      }
      fds = controlStatus == 0 ? 2 : 1;
    }
    MemorySegment s = pollScratch;
    s.set(JAVA_INT, 0, eventFd);
    s.set(JAVA_INT, 4, POLLIN); // events (short) = POLLIN, revents (short) = 0
    s.set(JAVA_INT, 8, controlEventFd);
    s.set(JAVA_INT, 12, POLLIN);
    s.set(JAVA_LONG, 16, timeoutNanos / 1_000_000_000L);
    s.set(JAVA_LONG, 24, timeoutNanos % 1_000_000_000L);
    UcpNative.ppoll(s.address(), fds, s.address() + 16);
    if (fds == 2 && (s.get(JAVA_INT, 12) >>> 16) != 0) { // revents of the control worker's fd
      controlWoken = true;
    }
    return true;
  }

  private static final int POLLIN = 1;

  @Override
  public void interruptAwait() {
    if (eventFd >= 0 && !awaitOff) {
      UcpNative.workerSignal(workerHandle);
    }
  }

  /**
   * Version, transports in use per connected peer, the effective UCX_TLS, UCX_ATOMIC_MODE and
   * UCX_PROTO_ENABLE, thread mode and failure detection.
   */
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

  @Override
  public Map<String, String> describe() {
    Map<String, String> d = new LinkedHashMap<>();
    d.put("provider", "ucx");
    d.put("ucx.version", UcpNative.versionString());
    d.put("ucx.series", UcxSeries.verdict());
    d.put("ucx.api", UcpNative.apiNote());
    d.put("jucx.version", jucxVersion());
    d.put("ucx.tls", String.valueOf(UcpNative.configValue("TLS", configOverrides)));
    d.put("ucx.atomic_mode", String.valueOf(UcpNative.configValue("ATOMIC_MODE", configOverrides)));
    d.put(
        "ucx.protocols",
        (operandKept ? "v2" : "v1")
            + " (UCX_PROTO_ENABLE="
            + UcpNative.configValue("PROTO_ENABLE", configOverrides)
            + (configOverrides.containsKey("PROTO_ENABLE") ? ", set by fiucx)" : ")"));
    d.put("ucx.thread_mode", options.threadSafe() ? "multi" : "serialized");
    d.put("ucx.peer_failure_detection", detectPeerFailure ? "on" : "off");
    d.put(
        "ucx.control_endpoint",
        controlWorker != null
            ? "per peer, on the control worker (tcp, peer-failure handling) where the peer has"
                + " one and it reaches it, else the data endpoint"
            : "the data endpoint");
    d.put(
        "ucx.control_worker",
        controlWorker != null
            ? "UCX context of its own (UCX_TLS="
                + ControlWorker.TLS
                + "), "
                + controlEndpoints.addressLength()
                + " address bytes; progressed every "
                + CONTROL_EVERY
                + "th progress, while control answers are awaited and when its event fd wakes"
            : controlWorkerAbsence());
    d.put(
        "ucx.dead_peers",
        (detectPeerFailure ? "UCX's peer-failure handling; " : "")
            + "processes of peers in this host and pid namespace are watched");
    d.put("ucx.initiators_served", Integer.toString(control.initiatorsServed()));
    d.put("ucx.initiator_endpoints", Integer.toString(control.initiatorEndpoints()));
    d.put("ucx.initiator_claims", control.claims());
    d.put("ucx.address_bytes", Integer.toString(address.length));
    d.put("ucx.worker.address_bytes", Integer.toString(dataEndpoints.addressLength()));
    d.put("ucx.worker.atomics", workerAtomics());
    d.put(
        "ucx.request_slots",
        poster.requestSlots() == 0
            ? "unused (UCX never purges requests without peer-failure detection)"
            : poster.requestSlots()
                + " for fetching atomics in flight, "
                + poster.requestSlotsInUse()
                + " in use; "
                + poster.slotsExhausted()
                + " posts refused with FI_EAGAIN when all were in use");
    d.put(
        "ucx.alloc_limit",
        options.allocationLimit() == 0
            ? "what the machine can back at each allocation ("
                + dev.fiucx.DomainAttr.ALLOC_LIMIT_OPTION
                + "=machine): now "
                + MachineMemory.backable(sharedMemory, errors).bytes()
                + " bytes"
            : options.allocationLimit()
                + " bytes ("
                + dev.fiucx.DomainAttr.ALLOC_LIMIT_OPTION
                + ")");
    d.put("ucx.errors", errors.summary());
    d.put(
        "ucx.direct_path",
        directPathOff == null
            ? "on (native ops on peer memory UCX maps here are CPU atomics on the mapping)"
            : directPathOff);
    List<UcxPeer> snapshot;
    synchronized (this) {
      snapshot = List.copyOf(peers.stream().filter(p -> p != null).toList());
    }
    for (UcxPeer p : snapshot) {
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
    List<UcxPeer> peerList;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    awaitOff = true;
    PeerWatch.unwatch(this);
    List<UcxExposedRegion> regions = live.values();
    regions.forEach(UcxExposedRegion::beginRevoke);
    for (UcxExposedRegion r : regions) {
      while (!r.revokeDone()) {
        progressWhileClosing();
      }
    }
    synchronized (this) {
      peerList = peers.stream().filter(p -> p != null).toList();
    }
    peerList.forEach(UcxPeer::close);
    control.closeBackEndpoints();
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
    String unreadable = UcxWorkerAddress.problem(transportAddress, series.addressFormat());
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

  /** Why this transport has no control worker, for describe. */
  private String controlWorkerAbsence() {
    if (!options.controlWorker(System.getenv("UCX_TLS"), series)) {
      return "none (the data endpoints have peer-failure handling themselves)";
    }
    return "none (it could not be opened: "
        + controlWorkerFailure
        + "; control goes on the data worker)";
  }

  /**
   * The UUID of this transport's data worker, read from its address (0 when the address carries
   * none); what a target matches an initiator's endpoint by.
   */
  long workerUuid() {
    return dataEndpoints.uuid();
  }

  /** The worker UUID in a UCX worker address (checked by DomainAddress, or our own), or 0. */
  static long workerUuidOf(byte[] address) {
    int version = address[0] & UcxConstants.UCP_ADDRESS_VERSION_MASK;
    int flags =
        version == UcxConstants.UCP_ADDRESS_VERSION_V1
            ? (address[0] & 0xff) >>> UcxConstants.UCP_ADDRESS_FLAGS_SHIFT_V1
            : address[1] & 0xff;
    int at = version == UcxConstants.UCP_ADDRESS_VERSION_V1 ? 1 : 2;
    if ((flags & UcxConstants.UCP_ADDRESS_HEADER_FLAG_WORKER_UUID) == 0
        || address.length < at + 8) {
      return 0;
    }
    return ByteBuffer.wrap(address, at, 8).order(java.nio.ByteOrder.nativeOrder()).getLong();
  }

  /**
   * Closes an endpoint, flushing it first unless {@code force}, waiting at most a second (a force
   * UCX refuses, on an endpoint without peer-failure handling, closes nothing). The close goes
   * through ucp_ep_close_nbx directly, without a callback: we poll the request and free it exactly
   * once, finished or not. A flushing close needs the peer to progress (over tcp with failure
   * detection it exchanges a disconnect); an unfinished one handed back this way is completed or
   * dropped by UCX itself, whereas one never released trips UCX's assertion in ucp_worker_destroy
   * ("req->flags & UCP_REQUEST_FLAG_RELEASED"). jucx's own close could not be used: its callback
   * frees the request too, which races with a timeout in thread-safe mode.
   */
  void closeEndpoint(UcpEndpoint ep, boolean force) {
    closeEndpoint(ep, force, CLOSE_WAIT_NANOS);
  }

  /**
   * {@link #closeEndpoint(UcpEndpoint, boolean)}, waiting at most {@code waitNanos}. Why not always
   * force: UCX 1.13 does not unmap a shared-memory peer's FIFO when an endpoint to it is
   * force-closed (measured across processes: the mapping stays until the worker is destroyed),
   * while a flushing close of an endpoint with nothing in flight unmaps it at once, without the
   * peer's help (unless a message above the inline size went over it; see ControlChannel).
   */
  void closeEndpoint(UcpEndpoint ep, boolean force, long waitNanos) {
    awaitClose(startClose(ep, force), waitNanos);
  }

  /**
   * Closes an endpoint by force where UCX allows it (peer-failure handling: the only close after
   * which UCX 1.13 frees an endpoint wired up to its peer), else flushing; waits at most {@code
   * waitNanos}. For endpoints claimed for initiators, whose mode the initiator chose.
   */
  void closeEndpointForcedWherePossible(UcpEndpoint ep, long waitNanos) {
    long request = startClose(ep, true);
    if (request == UcxConstants.UCS_ERR_INVALID_PARAM) {
      // a status pointer: no peer-failure handling on this endpoint, so UCX refused the force
      // before it did anything
      request = startClose(ep, false);
    }
    awaitClose(request, waitNanos);
  }

  private void awaitClose(long request, long waitNanos) {
    if (request == 0 || UcsStatus.isError(request)) {
      return;
    }
    long deadline = System.nanoTime() + waitNanos;
    while (UcpNative.requestCheckStatus(request) == UcxConstants.UCS_INPROGRESS
        && System.nanoTime() - deadline < 0) {
      progressWhileClosing();
    }
    UcpNative.requestFree(request);
  }

  private static long startClose(UcpEndpoint ep, boolean force) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment param = arena.allocate(UcxLayout.PARAM_ROOM, 8);
      param.set(JAVA_INT, UcxLayout.PARAM_OP_ATTR_MASK, UcxConstants.UCP_OP_ATTR_FIELD_FLAGS);
      param.set(JAVA_INT, UcxLayout.PARAM_FLAGS, force ? UcxConstants.UCP_EP_CLOSE_FLAG_FORCE : 0);
      return UcpNative.epCloseNbx(ep.getNativeId(), param.address());
    }
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

  synchronized void forgetPeer(UcxPeer peer) {
    if (peer.id() < peers.size() && peers.get(peer.id()) == peer) {
      peers.set(peer.id(), null); // ids stay stable: targets still name peers by them
    }
  }

  void unpublish(long key) {
    published.remove(key);
  }

  void closed(UcxExposedRegion region) {
    live.remove(region.key());
  }

  /** The region published under {@code key}, or null: what a RESOLVE may find. */
  UcxExposedRegion publishedRegion(long key) {
    return published.get(key);
  }

  /** A region not yet unmapped (published or revoking), or null. */
  UcxExposedRegion liveRegion(long key) {
    return live.get(key);
  }

  List<UcxExposedRegion> liveRegions() {
    return live.values();
  }

  /**
   * The open peer one of whose endpoints (data or control) is the native ucp_ep_h {@code handle}.
   */
  synchronized UcxPeer peerByEndpoint(long handle) {
    for (UcxPeer p : peers) {
      if (p != null && p.owns(handle)) {
        return p;
      }
    }
    return null;
  }

  synchronized UcxPeer peer(int id) {
    return id >= 0 && id < peers.size() ? peers.get(id) : null;
  }

  synchronized boolean isClosed() {
    return closed;
  }

  ControlChannel control() {
    return control;
  }

  // ---------------------------------------------------------------- memory

  /**
   * @param scope the arena of {@code segment} when this transport allocated the memory (the region
   *     closes it before unmapping), or null for the user's registered memory
   */
  private UcxExposedRegion publish(
      UcpMemory memory, MemorySegment segment, Arena scope, long access) {
    UcxExposedRegion region;
    synchronized (this) {
      if (closed) {
        memory.deregister();
        throw new FiException(FiErrno.EBADF, "transport closed");
      }
      long key;
      do {
        key = RANDOM.nextLong();
      } while (key == 0 || live.get(key) != null);
      region = new UcxExposedRegion(this, key, memory, segment, scope, access);
      live.put(key, region);
      published.put(key, region);
    }
    return region;
  }

  private UcpMemory map(UcpMemMapParams params) {
    checkOpen();
    try {
      return context.memoryMap(params);
    } catch (UcxException e) {
      throw new FiException(FiErrno.ENOMEM, "ucp_mem_map: " + e.getMessage(), e);
    }
  }

  /** FI_REMOTE_* to UCP_MEM_MAP_PROT_*; local access is always granted (the caller's memory). */
  private static long protection(long access) {
    long prot =
        UcxConstants.UCP_MEM_MAP_PROT_LOCAL_READ | UcxConstants.UCP_MEM_MAP_PROT_LOCAL_WRITE;
    if ((access & FiFlags.REMOTE_READ) != 0) {
      prot |= UcxConstants.UCP_MEM_MAP_PROT_REMOTE_READ;
    }
    if ((access & FiFlags.REMOTE_WRITE) != 0) {
      prot |= UcxConstants.UCP_MEM_MAP_PROT_REMOTE_WRITE;
    }
    return prot;
  }

  private synchronized void checkOpen() {
    if (closed) {
      throw new FiException(FiErrno.EBADF, "transport closed");
    }
  }

  private String jucxVersion() {
    try (InputStream in =
        UcpContext.class.getResourceAsStream("/META-INF/maven/org.openucx/jucx/pom.properties")) {
      if (in == null) {
        return "unknown";
      }
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("version", "unknown");
    } catch (IOException e) {
      errors.caught("reading jucx's version", e);
      return "unknown";
    }
  }

  @Override
  public String toString() {
    return "UcxTransport[%016x, %s]".formatted(instanceId, options);
  }
}
