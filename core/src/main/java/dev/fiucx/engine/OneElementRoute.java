package dev.fiucx.engine;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.Mechanism;
import dev.fiucx.completion.CompletionCounter;
import dev.fiucx.completion.CompletionRing;
import dev.fiucx.completion.OperationCounts;
import dev.fiucx.dispatch.Dispatcher;
import dev.fiucx.semantics.AtomicCell;
import dev.fiucx.semantics.ElementSemantics;
import dev.fiucx.spi.RemoteAtomicOp;
import dev.fiucx.spi.RemoteRegion;
import dev.fiucx.spi.TransportPeer;
import dev.fiucx.validation.CallChecks;
import dev.fiucx.validation.LocalChecks;
import dev.fiucx.validation.RemoteChecks;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;

/**
 * The count-1 fast path: where the endpoint's last one-element call went, and the next call to the
 * same place carried out without looking the cell, the peer and the region up again. On a region
 * mapped into this process a native element is this CPU's atomic on the mapping ({@link
 * Dispatcher#runMapped}) and a CAS-loop or remote-lock element runs in place there when nothing of
 * its engine is in flight ({@link Dispatcher#runInPlace}), completed in the call without a pending
 * slot; a native fetching element on a region that is not mapped goes to the transport from here,
 * as {@link CallPoster#startOne} would send it but with the cell's atomic, size and flags the route
 * holds; any other element is started as a checked one-element call starts ({@link
 * CallPoster#startOne}).
 *
 * <p>A call with the same (family, op, datatype, {@code fi_addr}, key) as the call the route was
 * made from has passed, with that call, every check of {@link CallChecks} that depends on those
 * alone (flags, cell, count, access). It checks again, with validation's own rules, only what can
 * change between calls: its buffers ({@link LocalChecks#readable}, {@link LocalChecks#writable}),
 * the address vector's table still the one the peer was found in, the peer alive, the region and
 * lock region not revoked, and the offset inside the region and aligned ({@link
 * RemoteChecks#inBounds}, {@link RemoteChecks#aligned}). When any of them fails, {@link #post}
 * returns {@link #OFF_ROUTE} and the call goes the checked way, whose {@link CallChecks} refuses it
 * or posts it exactly as any call: the route refuses nothing itself. The checked way makes the
 * route again ({@link #postChecked}).
 *
 * <p>Made when the endpoint is enabled, from its bindings; the posting thread's alone.
 */
final class OneElementRoute {
  /** What {@link #post} returns when the call must go the checked way. */
  static final int OFF_ROUTE = 3;

  private final EngineAddressVector av;
  private final boolean virtualAddressing;
  private final boolean selective;
  private final CompletionRing cq;
  private final CompletionCounter readCounter;
  private final CompletionCounter writeCounter;
  private final OperationCounts counts;
  private final Dispatcher dispatcher;
  private final CallPoster poster;

  private AtomicFamily family;
  private FiOp op;
  private FiDatatype datatype;
  private long destAddr;
  private long key;

  /** The address vector's table when the route was made: while it is the same, so is the peer. */
  private Object peers;

  private AtomicCell cell;
  private Mechanism mechanism;
  private TransportPeer peer;
  private RemoteRegion region;

  /** The peer's lock region (REMOTE_LOCK cells), else null. */
  private RemoteRegion locks;

  /** The region's base: an address's offset under virtual addressing is the address minus this. */
  private long base;

  private long length;
  private int alignment;
  private int size;
  private RemoteAtomicOp nativeOp;
  private boolean readsOperand;
  private boolean fetches;
  private boolean compares;

  /** The cell's index in the endpoint's operation counts. */
  private int countIndex;

  /** The completion entry's flags. */
  private long cqFlags;

  /** The counter an element done here bumps, or null. */
  private CompletionCounter counter;

  /**
   * @param cq the bound completion queue, or null
   * @param selective whether the queue was bound with {@code FI_SELECTIVE_COMPLETION}
   * @param poster what starts an element that is not done on a mapping
   */
  OneElementRoute(
      EngineAddressVector av,
      boolean virtualAddressing,
      CompletionRing cq,
      boolean selective,
      CompletionCounter readCounter,
      CompletionCounter writeCounter,
      OperationCounts counts,
      Dispatcher dispatcher,
      CallPoster poster) {
    this.av = av;
    this.virtualAddressing = virtualAddressing;
    this.cq = cq;
    this.selective = selective;
    this.readCounter = readCounter;
    this.writeCounter = writeCounter;
    this.counts = counts;
    this.dispatcher = dispatcher;
    this.poster = poster;
  }

  /** Whether the call leads where the last one went. */
  boolean leadsTo(AtomicFamily family, FiOp op, FiDatatype datatype, long destAddr, long key) {
    return op == this.op
        && datatype == this.datatype
        && family == this.family
        && destAddr == this.destAddr
        && key == this.key;
  }

  /**
   * The one element of a call that {@link #leadsTo} the route: 0, {@link
   * InCallAtomics#DONE_IN_CALL} for an in-call element done in the call, a negative {@code
   * fi_errno} from the element's engine or the transport (as the checked way would return it), or
   * {@link #OFF_ROUTE}.
   *
   * @param flags the call's flags, or {@link CallPoster#IN_CALL}
   */
  int post(
      MemorySegment buf,
      MemorySegment compare,
      MemorySegment result,
      long addr,
      Object context,
      long flags) {
    int size = this.size;
    Thread caller = Thread.currentThread();
    if (readsOperand && !LocalChecks.readable(buf, size, caller)
        || fetches && !LocalChecks.writable(result, size, caller)
        || compares && !LocalChecks.readable(compare, size, caller)) {
      return OFF_ROUTE;
    }
    RemoteRegion region = this.region;
    long base = this.base;
    long offset = virtualAddressing ? addr - base : addr;
    // the same table: the same peer at this address (a lookup less on the call's load chain)
    if (av.table() != peers
        || region.revoked()
        || !RemoteChecks.inBounds(offset, size, length)
        || !RemoteChecks.aligned(base + offset, alignment)
        || locks != null && locks.revoked()) {
      return OFF_ROUTE;
    }
    // null when the region is not mapped, or the peer failed
    MemorySegment mapping = peer.mapped(region);
    if (mapping == null) {
      if (peer.failed()) {
        return OFF_ROUTE;
      }
      return mechanism == Mechanism.NATIVE && fetches && !compares
          ? postFetch(peer, region, offset, buf, result, context, flags)
          : poster.startOne(
              cell, peer, region, offset, locks, buf, compare, result, context, flags);
    }
    boolean inCall = flags == CallPoster.IN_CALL;
    // an in-call element is done here or started below: it needs no entry here
    boolean wantCompletion = !inCall && CallPoster.wantsCompletion(flags, selective);
    if (wantCompletion && (cq == null || !cq.reserve())) {
      return OFF_ROUTE;
    }
    long start = counts.start();
    int rc;
    try {
      rc =
          mechanism == Mechanism.NATIVE
              ? Dispatcher.runMapped(
                  mapping,
                  offset,
                  nativeOp,
                  size,
                  readsOperand ? buf : null,
                  compare,
                  fetches ? result : null)
              : dispatcher.runInPlace(
                  cell, peer, region, mapping, offset, locks, buf, compare, result);
    } catch (RuntimeException e) {
      if (wantCompletion) {
        cq.release();
      }
      throw e;
    }
    if (rc != TransportPeer.DONE) {
      if (wantCompletion) {
        cq.release();
      }
      // contended: the element goes through its engine, as a checked call's would
      return rc == Dispatcher.CONTENDED
          ? poster.startOne(cell, peer, region, offset, locks, buf, compare, result, context, flags)
          : rc;
    }
    CallPoster.doneAtOnce(
        counts, countIndex, start, wantCompletion ? cq : null, context, cqFlags, counter);
    // the element wrote its result during the call: the buffer stays reachable until here
    Reference.reachabilityFence(result);
    return inCall ? InCallAtomics.DONE_IN_CALL : 0;
  }

  /**
   * A native fetching element on a region that is not mapped: handed to the transport as {@link
   * CallPoster#startOne} and the dispatcher would hand it, with what the route already knows (the
   * cell's remote atomic, size and flags) instead of deriving it again per call.
   */
  private int postFetch(
      TransportPeer peer,
      RemoteRegion region,
      long offset,
      MemorySegment buf,
      MemorySegment result,
      Object context,
      long flags) {
    boolean inCall = flags == CallPoster.IN_CALL;
    // an in-call element reserves an entry in case it goes pending
    boolean wantCompletion = inCall || CallPoster.wantsCompletion(flags, selective);
    if (wantCompletion && (cq == null || !cq.reserve())) {
      return OFF_ROUTE;
    }
    long token = poster.peekToken();
    if (token < 0) {
      if (wantCompletion) {
        cq.release();
      }
      return (int) token;
    }
    long start = counts.start();
    int size = this.size;
    int rc;
    try {
      long value = readsOperand ? ElementSemantics.load(buf, 0, size) : 0;
      rc = peer.postAtomic(region, offset, nativeOp, size, value, result.address(), token);
    } catch (RuntimeException e) {
      if (wantCompletion) {
        cq.release();
      }
      throw e;
    }
    if (rc < 0) {
      if (wantCompletion) {
        cq.release();
      }
      return rc;
    }
    if (rc == TransportPeer.PENDING) {
      poster.openPending((int) token, cell, peer, start, context, wantCompletion, result);
      return 0;
    }
    if (inCall) {
      cq.release();
    }
    CallPoster.doneAtOnce(
        counts,
        countIndex,
        start,
        wantCompletion && !inCall ? cq : null,
        context,
        cqFlags,
        counter);
    // the element wrote its result during the post: the buffer stays reachable until here
    Reference.reachabilityFence(result);
    return inCall ? InCallAtomics.DONE_IN_CALL : 0;
  }

  /**
   * The one element of a call that passed {@link CallChecks#checkOne}, started on what it was
   * checked on; a call that started makes the route to where it went.
   *
   * @param peers the address vector's table, read before the checks looked the peer up in it
   * @param flags the call's flags, or {@link CallPoster#IN_CALL}
   */
  int postChecked(
      CallChecks checks,
      Object peers,
      long destAddr,
      long key,
      MemorySegment buf,
      MemorySegment compare,
      MemorySegment result,
      Object context,
      long flags) {
    AtomicCell cell = checks.cell();
    TransportPeer peer = checks.peer();
    RemoteRegion region = checks.region();
    RemoteRegion locks = checks.locks();
    int rc =
        poster.startOne(
            cell, peer, region, checks.offset(), locks, buf, compare, result, context, flags);
    if (rc >= 0) {
      remember(cell, destAddr, key, peers, peer, region, locks);
    }
    return rc;
  }

  /**
   * A one-element call on {@code cell} passed the checks and went to {@code region}: the next call
   * to the same place takes this route. What did not change since the last route is not stored
   * again: a reference store costs the collector's write barrier, and calls that alternate between
   * a few places mostly change the key and the region only.
   *
   * @param peers the address vector's table, read before {@code peer} was looked up in it
   * @param locks the peer's lock region (REMOTE_LOCK cells), else ignored
   */
  private void remember(
      AtomicCell cell,
      long destAddr,
      long key,
      Object peers,
      TransportPeer peer,
      RemoteRegion region,
      RemoteRegion locks) {
    if (this.cell != cell) {
      this.cell = cell;
      this.mechanism = cell.mechanism();
      this.family = cell.family();
      this.op = cell.op();
      this.datatype = cell.datatype();
      this.size = cell.size();
      this.alignment = cell.alignment();
      this.nativeOp = cell.nativeOp();
      this.readsOperand = cell.op() != FiOp.ATOMIC_READ;
      this.fetches = family != AtomicFamily.BASE;
      this.compares = family == AtomicFamily.COMPARE;
      this.countIndex = OperationCounts.index(family, op, datatype);
      this.cqFlags = FiFlags.ATOMIC | (fetches ? FiFlags.READ : FiFlags.WRITE);
      this.counter = fetches ? readCounter : writeCounter;
    }
    RemoteRegion l = mechanism == Mechanism.REMOTE_LOCK ? locks : null;
    if (this.locks != l) {
      this.locks = l;
    }
    if (this.peers != peers) {
      this.peers = peers;
    }
    if (this.peer != peer) {
      this.peer = peer;
    }
    if (this.region != region) {
      this.region = region;
      this.base = region.base();
      this.length = region.length();
    }
    this.destAddr = destAddr;
    this.key = key;
  }
}
