package dev.fiucx.ucx;

import static dev.fiucx.ucx.UcxConstants.*;

import dev.fiucx.FiErrno;
import dev.fiucx.spi.MappedWords;
import dev.fiucx.spi.ProcessIdentity;
import dev.fiucx.spi.RemoteAtomicOp;
import dev.fiucx.spi.RemoteRegion;
import dev.fiucx.spi.TransportPeer;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.function.Function;
import java.util.function.IntConsumer;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpRemoteKey;

/**
 * One UCX endpoint to a peer transport: posts atomics through the transport's {@link AtomicPoster}
 * onto the regions its {@link PeerKeys} resolve over the control channel, looked up in a long-keyed
 * map that {@link #cached} reads without allocating; and the peer's failure and close.
 *
 * <p>A peer that dies is found by UCX (tcp with peer-failure handling) or, where UCX cannot see it
 * (shared memory), by the transport's look at the peer's process ({@link #processExited}); either
 * way posts are refused from then on, before the direct path touches the dead process's memory, and
 * every operation still pending ends with {@code -FI_ECONNRESET}.
 *
 * <p>Where both this transport and the peer have a control worker ({@link ControlWorker}), control
 * messages go on an endpoint of their own between those workers, with peer-failure handling (tcp),
 * so that the target can free its end by force when this peer leaves; atomics, puts, gets and
 * flushes stay on the data endpoint (shared memory, no error handling), whose lanes and mappings
 * are what they were. When the control endpoint cannot be opened or fails (a peer in another
 * network namespace, where tcp does not reach), control goes on the data endpoint, and a RESOLVE
 * lost with the control endpoint is sent again there.
 */
final class UcxPeer implements TransportPeer {
  private static final System.Logger LOG = System.getLogger("dev.fiucx.ucx");
  // RemoteAtomicOp ordinal -> ucp_atomic_op_t
  private static final int[] OPCODES = new int[RemoteAtomicOp.values().length];

  static {
    OPCODES[RemoteAtomicOp.ADD.ordinal()] = UCP_ATOMIC_OP_ADD;
    OPCODES[RemoteAtomicOp.SWAP.ordinal()] = UCP_ATOMIC_OP_SWAP;
    OPCODES[RemoteAtomicOp.CSWAP.ordinal()] = UCP_ATOMIC_OP_CSWAP;
    OPCODES[RemoteAtomicOp.AND.ordinal()] = UCP_ATOMIC_OP_AND;
    OPCODES[RemoteAtomicOp.OR.ordinal()] = UCP_ATOMIC_OP_OR;
    OPCODES[RemoteAtomicOp.XOR.ordinal()] = UCP_ATOMIC_OP_XOR;
  }

  /** An outstanding RESOLVE. */
  static final class PendingResolve {
    final long requestId;
    final long key;
    volatile boolean done;
    volatile int status;

    PendingResolve(long requestId, long key) {
      this.requestId = requestId;
      this.key = key;
    }
  }

  private final UcxTransport transport;
  private final AtomicPoster poster;
  private static final java.security.SecureRandom SECRETS = new java.security.SecureRandom();

  private final int id;
  private final long secret = SECRETS.nextLong();
  private final UcxAddress peerAddress;
  private final ProcessIdentity process;

  /** Where this peer's pending operations are recorded, or null where UCX reports a dead peer. */
  private final PendingRequests tracked;

  private final UcpEndpoint endpoint;
  private final long ep;

  /** The control endpoint of its own, or null where control goes on {@link #endpoint}. */
  private final UcpEndpoint control;

  /** Where control messages go: {@link #control} until it fails, else {@link #endpoint}. */
  private volatile UcpEndpoint route;

  /** The keys this peer resolves, and the regions they name. */
  private final PeerKeys keys;

  /** {@link PeerKeys#cache}, read here directly: posts look up their region without a hop more. */
  private final LongObjectMap<UcxRemoteRegion> cache;

  private volatile int failure; // 0, or the negative fi_errno that posts now return

  /** Posts between their last look at a revocation or failure and UCX holding them. */
  private final PostWindow window;

  private volatile String failureText;
  private volatile boolean closed;

  /** Whether {@link #abandon} closed the data endpoint already (close must not close it again). */
  private volatile boolean dataClosed;

  UcxPeer(
      UcxTransport transport,
      AtomicPoster poster,
      int id,
      UcxAddress peerAddress,
      ProcessIdentity process,
      PendingRequests tracked) {
    this.transport = transport;
    this.poster = poster;
    this.id = id;
    this.peerAddress = peerAddress;
    this.process = process;
    this.tracked = tracked;
    this.window = new PostWindow(transport.options().threadSafe());
    this.endpoint = transport.dataEndpoints().open(peerAddress.data(), this::failed);
    this.ep = endpoint.getNativeId();
    boolean self = java.util.Arrays.equals(peerAddress.encode(), transport.address());
    WorkerEndpoints side = transport.controlRouteTo(peerAddress);
    UcpEndpoint c = null;
    if (side.controlOnly() && !self) { // self: no wire-up, nothing to free
      try {
        c = side.open(peerAddress.control(), this::controlFailed);
      } catch (RuntimeException e) { // UcxException: no tcp route to the peer's control worker
        transport
            .errors()
            .peerCaused("opening a control endpoint (control goes on the data one)", e);
      }
    }
    this.control = c;
    this.route = c != null ? c : endpoint;
    this.keys = new PeerKeys(this, transport, self, transport.mapsPeers() && !self);
    this.cache = keys.cache();
  }

  int id() {
    return id;
  }

  UcpEndpoint endpoint() {
    return endpoint;
  }

  /**
   * 64 random bits that this peer sends in its RESOLVEs and its target's messages carry back; a
   * message to this peer without them was not sent by that target.
   */
  long secret() {
    return secret;
  }

  /** Where control messages to the target go now: the control endpoint, or the data one. */
  UcpEndpoint route() {
    return route;
  }

  /** Whether {@code handle} is the native ucp_ep_h of this peer's data or control endpoint. */
  boolean owns(long handle) {
    return ep == handle || (control != null && control.getNativeId() == handle);
  }

  /**
   * The control endpoint failed (inside progress). Where the data endpoint has no peer-failure
   * handling of its own, the control endpoint is what watches the peer (tcp on protocols v2, whose
   * peer may live on another host, where its process cannot be looked at): the peer failed, and its
   * pending operations end. Where the data endpoint has it, control goes on the data endpoint from
   * now on, which may still reach the peer.
   */
  private void controlFailed(int ucsStatus, String text) {
    if (!transport.detectsPeerFailure() && !process.observable()) {
      int errno = UcsStatus.toFiErrno(ucsStatus);
      errno = errno < 0 ? errno : -FiErrno.ECONNRESET;
      if (fail(errno, "the control endpoint failed: " + text)) {
        endPending(errno);
      }
      return;
    }
    if (route != endpoint) {
      route = endpoint;
      transport
          .errors()
          .peerCaused(
              "the control endpoint failed (control goes on the data one)",
              new IllegalStateException(text));
    }
  }

  /** The addresses this peer was given (checked when it was inserted). */
  UcxAddress peerAddress() {
    return peerAddress;
  }

  @Override
  public RemoteRegion cached(long key) {
    return cache.get(key);
  }

  @Override
  public int postAtomic(
      RemoteRegion remote,
      long offset,
      RemoteAtomicOp op,
      int size,
      long value,
      long resultAddress,
      long token) {
    int f = failure;
    if (f != 0) {
      return f;
    }
    UcxRemoteRegion r = (UcxRemoteRegion) remote;
    MemorySegment m = r.mapping();
    if (m != null) {
      return postMapped(m, offset, op, size, value, 0, resultAddress);
    }
    int entered = window.enter(r, this);
    if (entered == PostWindow.REFUSED) {
      return refusal();
    }
    int rc;
    try {
      rc =
          poster.post(
              ep,
              r.rkeyHandle(),
              r.base() + offset,
              OPCODES[op.ordinal()],
              size,
              value,
              resultAddress,
              token);
    } finally {
      window.exit(entered);
    }
    return track(rc, token);
  }

  /**
   * The direct path's element, {@link MappedWords#element} on the peer's region mapped into this
   * process: done when it returns ({@link #DONE}, never pending, so nothing is tracked), its old
   * value stored at {@code resultAddress} unless that is 0. A SWAP or CSWAP without a result
   * address is refused before the word is touched, with {@code -FI_EINVAL} as through UCX (which
   * asserts on a swap without a reply buffer).
   */
  private static int postMapped(
      MemorySegment m,
      long offset,
      RemoteAtomicOp op,
      int size,
      long value,
      long compare,
      long resultAddress) {
    if (resultAddress != 0) {
      MappedAtomics.store(
          resultAddress, size, MappedWords.element(m, offset, op, size, value, compare));
      return DONE;
    }
    if (op == RemoteAtomicOp.SWAP || op == RemoteAtomicOp.CSWAP) {
      return -FiErrno.EINVAL;
    }
    MappedWords.element(m, offset, op, size, value, compare);
    return DONE;
  }

  /** What a post that {@link PostWindow#enter} turned away returns. */
  private int refusal() {
    int f = failure;
    return f != 0 ? f : -FiErrno.EKEYREJECTED;
  }

  @Override
  public MemorySegment mapped(RemoteRegion remote) {
    return failure == 0 ? ((UcxRemoteRegion) remote).mapping() : null;
  }

  @Override
  public int postCompareSwap(
      RemoteRegion remote,
      long offset,
      int size,
      long compare,
      long swap,
      long resultAddress,
      long token) {
    int f = failure;
    if (f != 0) {
      return f;
    }
    UcxRemoteRegion r = (UcxRemoteRegion) remote;
    MemorySegment m = r.mapping();
    if (m != null) {
      return postMapped(m, offset, RemoteAtomicOp.CSWAP, size, swap, compare, resultAddress);
    }
    int entered = window.enter(r, this);
    if (entered == PostWindow.REFUSED) {
      return refusal();
    }
    int rc;
    try {
      rc =
          poster.postCompareSwap(
              ep, r.rkeyHandle(), r.base() + offset, size, compare, swap, resultAddress, token);
    } finally {
      window.exit(entered);
    }
    return track(rc, token);
  }

  @Override
  public int postGet(RemoteRegion remote, long offset, int length, long localAddress, long token) {
    int f = failure;
    if (f != 0) {
      return f;
    }
    UcxRemoteRegion r = (UcxRemoteRegion) remote;
    MemorySegment m = r.mapping();
    if (m != null) {
      MappedAtomics.get(m, offset, length, localAddress);
      return DONE;
    }
    int entered = window.enter(r, this);
    if (entered == PostWindow.REFUSED) {
      return refusal();
    }
    int rc;
    try {
      rc = poster.postGet(ep, r.rkeyHandle(), r.base() + offset, length, localAddress, token);
    } finally {
      window.exit(entered);
    }
    return track(rc, token);
  }

  @Override
  public int postPut(RemoteRegion remote, long offset, int length, long localAddress, long token) {
    int f = failure;
    if (f != 0) {
      return f;
    }
    UcxRemoteRegion r = (UcxRemoteRegion) remote;
    MemorySegment m = r.mapping();
    if (m != null) {
      MappedAtomics.put(m, offset, length, localAddress);
      return DONE;
    }
    int entered = window.enter(r, this);
    if (entered == PostWindow.REFUSED) {
      return refusal();
    }
    int rc;
    try {
      rc = poster.postPut(ep, r.rkeyHandle(), r.base() + offset, length, localAddress, token);
    } finally {
      window.exit(entered);
    }
    return track(rc, token);
  }

  /**
   * Completes (DONE, or PENDING then {@code token}) once every operation posted to this peer before
   * has completed at the peer; what FI_DELIVERY_COMPLETE and a fence need, and not in the SPI yet.
   */
  int postFlush(long token) {
    int f = failure;
    return f != 0 ? f : track(poster.postFlush(ep, token), token);
  }

  /**
   * Records an operation that went pending where UCX would never end it if this peer died. A death
   * found between the post and this record ends it here.
   */
  private int track(int posted, long token) {
    if (posted == -FiErrno.EIO && process.observable() && !process.alive()) {
      // UCX 1.18 refuses an operation on shared memory to a dead peer with a plain I/O error
      // (cma cannot read a process that is gone): say what happened, and end the rest
      processExited();
      return -FiErrno.ECONNRESET;
    }
    if (posted == PENDING && tracked != null) {
      tracked.posted(poster.lastRequest(), token, id);
      if (failure != 0) {
        endPending(failure);
      }
    }
    return posted;
  }

  /** Ends every recorded operation still pending to this peer with {@code status}. */
  private void endPending(int status) {
    if (tracked == null) {
      return;
    }
    for (long token : tracked.takePeer(id)) {
      transport.endOperation(token, status);
    }
  }

  /** The process this peer lives in, as its address says. */
  ProcessIdentity process() {
    return process;
  }

  /**
   * The transport found this peer's process gone: refuse posts from now on (the direct path checks
   * the same flag, so nothing more is written into the dead process's memory), fail its pending
   * resolves, and end the operations UCX will never end. Returns whether this peer was live until
   * now.
   */
  boolean processExited() {
    if (!fail(-FiErrno.ECONNRESET, "the peer's process (" + process + ") exited")) {
      return false;
    }
    endPending(-FiErrno.ECONNRESET);
    return true;
  }

  /**
   * Gives up on this peer ({@link TransportPeer#abandon}): fails it, ends what UCX would never end,
   * and closes its data endpoint by force, so that UCX ends every request it holds to it (with an
   * error) and none writes into a caller's buffer later. Where UCX refuses a forced close (shared
   * memory, without peer-failure handling) the endpoint stays until {@link #close}: there this
   * process carries out its own atomics, and nothing waits on the peer.
   */
  @Override
  public void abandon(int errno, String why) {
    if (!fail(errno, why)) {
      return;
    }
    LOG.log(System.Logger.Level.WARNING, "giving up on " + this + ": " + why);
    endPending(errno);
    awaitPostsUnderway(); // a post that looked before the failure holds the endpoint until UCX does
    synchronized (this) {
      if (closed) {
        return;
      }
      dataClosed = transport.closeEndpointByForce(endpoint, ABANDON_WAIT_NANOS);
    }
  }

  /** How long abandoning a peer waits for its forced close. */
  private static final long ABANDON_WAIT_NANOS = 2_000_000_000L;

  /** Whether the connection failed or this peer was closed; posts then return an errno. */
  @Override
  public boolean failed() {
    return failure != 0;
  }

  /** 0, or the negative fi_errno that posts return since this peer failed or closed. */
  int failure() {
    return failure;
  }

  /** Why the connection failed (UCX's text), or null. */
  String failureText() {
    return failureText;
  }

  @Override
  public int resolve(long key) {
    return keys.resolve(key);
  }

  /**
   * Sends RESOLVE for {@code key} without waiting; the answer arrives during {@link
   * UcxTransport#progress}, after which {@link PendingResolve#done} is set. Returns null when the
   * request could not be sent.
   */
  PendingResolve startResolve(long key) {
    return keys.start(key);
  }

  /** The target answered a RESOLVE. */
  void onResolveReply(ControlMessage.ResolveReply reply) {
    keys.onResolveReply(reply);
  }

  /**
   * Sends the target a control message that {@code message} builds for the endpoint it goes on,
   * over {@link #route}. One lost with the control endpoint goes again on the data endpoint, the
   * route from then on; {@code onFailure} gets the negative fi_errno of a send that failed for good
   * (on the data endpoint, or once this peer failed or closed).
   */
  void sendToTarget(Function<UcpEndpoint, ControlMessage> message, IntConsumer onFailure) {
    UcpEndpoint via = route;
    transport
        .control()
        .send(
            via,
            message.apply(via),
            status -> {
              if (via == endpoint || closed || failure != 0) {
                onFailure.accept(status);
                return;
              }
              // lost with the control endpoint: again on the data endpoint, after this progress
              route = endpoint;
              transport
                  .control()
                  .defer(
                      () -> transport.control().send(endpoint, message.apply(endpoint), onFailure));
            });
  }

  /** The target is closing {@code key} ({@link PeerKeys#onRevoke}). */
  void onRevoke(long key) {
    keys.onRevoke(key);
  }

  /**
   * Returns once no post is between its last look at a key's revocation and UCX holding the
   * operation ({@link PostWindow}): called after a key was marked revoked, so that every post to it
   * is either refused or ahead of a flush started next.
   */
  void awaitPostsUnderway() {
    window.awaitEmpty();
  }

  /**
   * Called by UCX (inside progress) when the data endpoint fails. With peer-failure handling UCX
   * ends its own requests; without it (shared memory, or tcp on protocols v2) they would never end,
   * so the operations recorded as pending to this peer end here.
   */
  private void failed(int ucsStatus, String text) {
    int errno = UcsStatus.toFiErrno(ucsStatus);
    errno = errno < 0 ? errno : -FiErrno.EIO;
    if (errno == -FiErrno.EIO && process.observable() && !process.alive()) {
      // UCX 1.18's shared memory reports a dead peer as a plain I/O error: say what happened
      errno = -FiErrno.ECONNRESET;
      text = "the peer's process (" + process + ") exited: " + text;
    }
    if (fail(errno, text)) {
      endPending(errno);
    }
  }

  /**
   * Marks this peer failed (posts return {@code errno} from now on) and fails its pending resolves;
   * false when it had failed or closed already (the first reason stays).
   */
  private boolean fail(int errno, String text) {
    synchronized (this) {
      if (failure != 0) {
        return false;
      }
      failureText = text;
      failure = errno;
    }
    keys.failResolves(errno);
    return true;
  }

  /**
   * Tells the target to forget this peer, closes the endpoint (flushing it unless it failed) and
   * destroys every rkey it unpacked. Operations still in flight complete with an error.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    List<UcpRemoteKey> unpacked = keys.close();
    if (failure == 0 && !process.alive()) {
      processExited(); // a dead peer answers nothing: no release, no flush, a forced close
    }
    boolean wasFailed = failure != 0;
    if (!wasFailed) {
      if (keys.resolving()) {
        transport
            .control()
            .sendAndWait(route, new ControlMessage.Release(transport.instanceId(), id));
      }
      // from here on posts are refused instead of reaching a destroyed endpoint
      fail(-FiErrno.EBADF, "closed");
    }
    // the endpoint first: closing it completes (or cancels) what is in flight on these rkeys;
    // what UCX leaves pending on shared memory ends here
    if (!dataClosed) {
      transport.closeEndpoint(endpoint, wasFailed);
    }
    if (control != null) {
      transport.closeEndpoint(control, wasFailed || route != control);
    }
    endPending(wasFailed ? failure : -FiErrno.ECANCELED);
    keys.free(unpacked);
    transport.forgetPeer(this);
  }

  /** The lanes UCX chose for the data endpoint (ucp_ep_print_info), separated by "; ". */
  String lanes() {
    return lanes(ep);
  }

  /** The control endpoint's lanes, or where control goes instead. */
  String controlLanes() {
    if (control == null) {
      return "none (control goes on the data endpoint)";
    }
    return route == control
        ? lanes(control.getNativeId())
        : "failed (control goes on the data one)";
  }

  private static String lanes(long ep) {
    return UcpNative.endpointInfo(ep)
        .lines()
        .map(l -> l.replaceFirst("^#\\s*", "").replaceAll("\\s+", " "))
        .filter(l -> l.startsWith("lane["))
        .reduce((a, b) -> a + "; " + b)
        .orElse("");
  }

  @Override
  public String toString() {
    return "UcxPeer[" + id + (failure != 0 ? ", failed: " + failureText : "") + "]";
  }
}
