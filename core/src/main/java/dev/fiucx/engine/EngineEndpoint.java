package dev.fiucx.engine;

import static dev.fiucx.AtomicFamily.BASE;
import static dev.fiucx.AtomicFamily.COMPARE;
import static dev.fiucx.AtomicFamily.FETCH;

import dev.fiucx.AddressVector;
import dev.fiucx.AtomicFamily;
import dev.fiucx.AtomicMsg;
import dev.fiucx.CompletionQueue;
import dev.fiucx.Counter;
import dev.fiucx.Endpoint;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.Ioc;
import dev.fiucx.MemoryRegion;
import dev.fiucx.completion.CompletionRing;
import dev.fiucx.completion.OperationCounts;
import dev.fiucx.completion.PendingOperations;
import dev.fiucx.dispatch.Dispatcher;
import dev.fiucx.emulation.CasLoop;
import dev.fiucx.emulation.RemoteLock;
import dev.fiucx.semantics.AtomicTable;
import dev.fiucx.spi.Progress;
import dev.fiucx.spi.RemoteRegion;
import dev.fiucx.spi.TransportPeer;
import dev.fiucx.validation.CallChecks;
import dev.fiucx.validation.CallGuard;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * {@code fid_ep} for atomics: its set-up calls ({@link EndpointBindings}), its 13 calls, each
 * handed to {@link EndpointCalls} as one of three forms, the {@code *Valid} calls, and close. One
 * thread at a time may be inside an endpoint's calls ({@code FI_THREAD_ENDPOINT}): each call enters
 * the endpoint's {@link CallGuard} first, which refuses a second thread with {@code -FI_EBUSY} (or,
 * under {@code threading=safe}, makes it wait on the domain's lock), because the element walks, the
 * route and the poster's side of the completion bookkeeping are one thread's. Calls return 0 or a
 * negative {@code fi_errno} and allocate nothing on success (but for a call deferred by {@code
 * FI_FENCE}, whose operands are copied: {@link DeferredCalls}). Completions may be written by the
 * domain's progress thread, which also starts the deferred calls.
 */
final class EngineEndpoint implements Endpoint, InCallAtomics {
  private static final int IN_FLIGHT = 4096;

  /** How long close waits for the operations in flight before it leaves them to the transport. */
  private static final long CLOSE_WAIT_NANOS = 30_000_000_000L;

  private final EngineDomain domain;
  private final int index;
  private final AtomicTable table;
  private final boolean virtualAddressing;
  private final PendingOperations pending;
  private final OperationCounts counts;
  private final Arena arena = Arena.ofShared();
  private final CasLoop casLoop;
  private final RemoteLock remoteLock;
  private final Dispatcher dispatcher;
  private final EndpointLookups lookups;
  private final CallChecks checks;
  private final Progress progress;

  /** Calls deferred by {@code FI_FENCE}, started by progress. */
  private final DeferredCalls deferred;

  /** Who may be inside this endpoint's calls: one thread at a time, refused or serialized. */
  private final CallGuard guard;

  private final EndpointBindings bindings;

  private final EndpointCalls calls;
  private volatile boolean released;

  /**
   * @param guard the endpoint's own refusing guard, or the domain's (manual progress: one thread at
   *     a time uses the whole domain; {@code threading=safe}: a lock)
   */
  EngineEndpoint(EngineDomain domain, int index, Progress progress, CallGuard guard) {
    this.domain = domain;
    this.guard = guard;
    this.index = index;
    this.table = domain.table();
    this.virtualAddressing = domain.attr().virtualAddressing();
    this.pending = new PendingOperations(IN_FLIGHT, domain.concurrent());
    this.counts = pending.counts();
    // the CAS loop's steps carry tokens with bit 31 of the low word set; slots stay below it
    this.casLoop =
        new CasLoop(
            AtomicTable.MAX_ATOMIC_BYTES,
            arena,
            ((long) index << 32) | CasLoop.TOKEN_BIT,
            domain.emulationCounters(),
            pending::completed);
    // the remote lock's steps carry bit 30
    this.remoteLock =
        new RemoteLock(
            (int) (AtomicTable.MAX_ATOMIC_BYTES / 16),
            arena,
            ((long) index << 32) | RemoteLock.TOKEN_BIT,
            domain.lockOwner(),
            domain.lockLeaseNanos(),
            domain.emulationCounters(),
            pending::completed);
    this.dispatcher = new Dispatcher(arena.allocate(8, 8).address(), casLoop, remoteLock);
    this.bindings = new EndpointBindings(progress);
    this.progress = progress;
    this.lookups = new EndpointLookups();
    this.checks =
        new CallChecks(
            table,
            virtualAddressing,
            dispatcher.operands,
            dispatcher.compares,
            dispatcher.results,
            dispatcher.targets,
            lookups);
    this.deferred = new DeferredCalls(pending, counts, dispatcher, domain.errors());
    this.calls =
        new EndpointCalls(guard, counts, dispatcher, checks, lookups, domain.errors(), deferred);
  }

  @Override
  public void bind(CompletionQueue queue, long flags) {
    requireOpen();
    bindings.bind(queue, flags);
  }

  @Override
  public void bind(Counter counter, long flags) {
    requireOpen();
    bindings.bind(counter, flags);
  }

  @Override
  public void bind(AddressVector addresses) {
    requireOpen();
    bindings.bind(addresses);
  }

  /** Enables the endpoint: what posts its calls is made now, from what was bound. */
  @Override
  public void enable() {
    requireOpen();
    bindings.enable();
    EngineAddressVector av = bindings.av();
    CompletionRing cq = bindings.cq();
    boolean selective = bindings.selective();
    lookups.use(av);
    CallPoster poster =
        new CallPoster(
            index,
            pending,
            dispatcher,
            checks,
            domain,
            cq,
            selective,
            bindings.readCounter(),
            bindings.writeCounter());
    OneElementRoute route =
        new OneElementRoute(
            av,
            virtualAddressing,
            cq,
            selective,
            bindings.readCounter(),
            bindings.writeCounter(),
            counts,
            dispatcher,
            poster);
    deferred.enable(poster);
    calls.enable(poster, route);
  }

  @Override
  public byte[] name() {
    return domain.address();
  }

  private void requireOpen() {
    if (calls.closed()) {
      throw new FiException(FiErrno.EOPBADSTATE, "the endpoint is closed");
    }
  }

  @Override
  public int atomic(
      MemorySegment buf,
      long count,
      MemoryRegion desc,
      long destAddr,
      long addr,
      long key,
      FiDatatype datatype,
      FiOp op,
      Object context) {
    return calls.plain(BASE, op, datatype, buf, count, null, null, destAddr, addr, key, context, 0);
  }

  @Override
  public int atomicv(
      Ioc[] iov,
      MemoryRegion[] desc,
      int count,
      long destAddr,
      long addr,
      long key,
      FiDatatype datatype,
      FiOp op,
      Object context) {
    return calls.vector(
        BASE, op, datatype, iov, count, null, 0, null, 0, destAddr, addr, key, context);
  }

  @Override
  public int atomicmsg(AtomicMsg msg, long flags) {
    return calls.message(BASE, msg, null, 0, null, 0, flags);
  }

  @Override
  public int injectAtomic(
      MemorySegment buf,
      long count,
      long destAddr,
      long addr,
      long key,
      FiDatatype datatype,
      FiOp op) {
    return calls.plain(
        BASE, op, datatype, buf, count, null, null, destAddr, addr, key, null, FiFlags.INJECT);
  }

  @Override
  public int fetchAtomic(
      MemorySegment buf,
      long count,
      MemoryRegion desc,
      MemorySegment result,
      MemoryRegion resultDesc,
      long destAddr,
      long addr,
      long key,
      FiDatatype datatype,
      FiOp op,
      Object context) {
    return calls.plain(
        FETCH, op, datatype, buf, count, null, result, destAddr, addr, key, context, 0);
  }

  @Override
  public int fetchAtomicv(
      Ioc[] iov,
      MemoryRegion[] desc,
      int count,
      Ioc[] resultv,
      MemoryRegion[] resultDesc,
      int resultCount,
      long destAddr,
      long addr,
      long key,
      FiDatatype datatype,
      FiOp op,
      Object context) {
    return calls.vector(
        FETCH,
        op,
        datatype,
        iov,
        count,
        null,
        0,
        resultv,
        resultCount,
        destAddr,
        addr,
        key,
        context);
  }

  @Override
  public int fetchAtomicmsg(
      AtomicMsg msg, Ioc[] resultv, MemoryRegion[] resultDesc, int resultCount, long flags) {
    return calls.message(FETCH, msg, null, 0, resultv, resultCount, flags);
  }

  @Override
  public int compareAtomic(
      MemorySegment buf,
      long count,
      MemoryRegion desc,
      MemorySegment compare,
      MemoryRegion compareDesc,
      MemorySegment result,
      MemoryRegion resultDesc,
      long destAddr,
      long addr,
      long key,
      FiDatatype datatype,
      FiOp op,
      Object context) {
    return calls.plain(
        COMPARE, op, datatype, buf, count, compare, result, destAddr, addr, key, context, 0);
  }

  @Override
  public int compareAtomicv(
      Ioc[] iov,
      MemoryRegion[] desc,
      int count,
      Ioc[] comparev,
      MemoryRegion[] compareDesc,
      int compareCount,
      Ioc[] resultv,
      MemoryRegion[] resultDesc,
      int resultCount,
      long destAddr,
      long addr,
      long key,
      FiDatatype datatype,
      FiOp op,
      Object context) {
    return calls.vector(
        COMPARE,
        op,
        datatype,
        iov,
        count,
        comparev,
        compareCount,
        resultv,
        resultCount,
        destAddr,
        addr,
        key,
        context);
  }

  @Override
  public int compareAtomicmsg(
      AtomicMsg msg,
      Ioc[] comparev,
      MemoryRegion[] compareDesc,
      int compareCount,
      Ioc[] resultv,
      MemoryRegion[] resultDesc,
      int resultCount,
      long flags) {
    return calls.message(COMPARE, msg, comparev, compareCount, resultv, resultCount, flags);
  }

  @Override
  public int postInCall(
      AtomicFamily family,
      FiOp op,
      FiDatatype datatype,
      MemorySegment operand,
      MemorySegment compare,
      MemorySegment result,
      long destAddr,
      long addr,
      long key) {
    return calls.plain(
        family,
        op,
        datatype,
        operand,
        1,
        compare,
        result,
        destAddr,
        addr,
        key,
        null,
        CallPoster.IN_CALL);
  }

  // --- valid ---

  @Override
  public long atomicValid(FiDatatype datatype, FiOp op) {
    return datatype == null || op == null
        ? -FiErrno.EINVAL
        : table.valid(AtomicFamily.BASE, op, datatype);
  }

  @Override
  public long fetchAtomicValid(FiDatatype datatype, FiOp op) {
    return datatype == null || op == null
        ? -FiErrno.EINVAL
        : table.valid(AtomicFamily.FETCH, op, datatype);
  }

  @Override
  public long compareAtomicValid(FiDatatype datatype, FiOp op) {
    return datatype == null || op == null
        ? -FiErrno.EINVAL
        : table.valid(AtomicFamily.COMPARE, op, datatype);
  }

  @Override
  public String atomicPath(long destAddr, long key) {
    // it fills the last-region cache the calls read: inside the guard, waiting for a call to end
    guard.enterWaiting();
    try {
      requireOpen();
      EngineAddressVector av = bindings.av();
      TransportPeer peer = av == null ? null : av.peer(destAddr);
      if (peer == null) {
        throw new FiException(FiErrno.EADDRNOTAVAIL, "no peer at fi_addr " + destAddr);
      }
      RemoteRegion region = dispatcher.targets.region(peer, key);
      if (region == null) {
        int rc = dispatcher.targets.lastError();
        throw new FiException(-rc, "key 0x" + Long.toHexString(key));
      }
      return region.path();
    } finally {
      guard.exit();
    }
  }

  /** A transport completion for one of this endpoint's slots, or a step of its CAS loop. */
  void completed(int low, int status) {
    if (CasLoop.owns(low)) {
      casLoop.completed(low, status);
    } else if (RemoteLock.owns(low)) {
      remoteLock.completed(low, status);
    } else {
      pending.completed(low, status);
    }
  }

  /**
   * Takes the CAS loop's next steps: the domain's progress calls it right after the transport's, on
   * the one thread that progresses. Returns the elements stepped.
   */
  int drainEmulation() {
    return released ? 0 : casLoop.drain() + remoteLock.drain();
  }

  /**
   * Gives up on every peer with an operation in flight for longer than {@code limit} ticks ({@link
   * PendingOperations#overdue}): its operations end with {@code -FI_ETIMEDOUT}, later posts to it
   * fail as to a dead peer. The domain's progress calls it once per clock tick. Returns how many
   * peers it gave up on.
   */
  int abandonLatePeers(int now, int limit, long timeoutMillis) {
    if (released) {
      return 0;
    }
    int n = 0;
    for (TransportPeer late; (late = pending.overdue(now, limit)) != null; n++) {
      late.abandon(
          -FiErrno.ETIMEDOUT, "no answer within the operation timeout, " + timeoutMillis + " ms");
    }
    return n;
  }

  /**
   * Starts the calls deferred by {@code FI_FENCE} that may start now: the domain's progress calls
   * it after {@link #drainEmulation}. Returns how many started (or ended).
   */
  int startDeferred() {
    return released ? 0 : deferred.drain();
  }

  /** Whether a call deferred by {@code FI_FENCE} waits to start. */
  boolean deferring() {
    return deferred.backlog();
  }

  /**
   * After {@link #drainEmulation}: how long the progressing thread may wait for the transport
   * before an emulation step of this endpoint is due (see {@link RemoteLock#quietNanos}), or a
   * deferred call may start (none in flight: now).
   */
  long quietNanos(long now) {
    if (released) {
      return Long.MAX_VALUE;
    }
    if (deferred.backlog() && !deferred.inFlight()) {
      return 0;
    }
    return casLoop.idle() ? remoteLock.quietNanos(now) : 0;
  }

  /** What metrics read of this endpoint's operations. */
  OperationCounts counts() {
    return counts;
  }

  /** Operations posted and not yet completed. */
  int inFlight() {
    return pending.inFlight();
  }

  /**
   * Closes the endpoint once: later calls return {@code -FI_EOPBADSTATE} (set-up calls throw it),
   * and a second close does nothing. Waits for a call another thread is inside, ends every call
   * deferred by {@code FI_FENCE} with an {@code -FI_ECANCELED} error entry, then waits for the
   * operations in flight (at most 30 s; the transport may still write into what it leaves).
   */
  @Override
  public void close() {
    guard.enterWaiting();
    try {
      if (calls.closed()) {
        return;
      }
      calls.close();
      deferred.cancel();
      awaitInFlight();
      released = true; // no more draining: the CAS loop's scratch goes with the arena
      if (pending.inFlight() > 0) {
        domain.keepUntilTransportCloses(arena); // UCX may still write results into it
      } else {
        arena.close();
      }
    } finally {
      guard.exit();
    }
  }

  /** Progresses until no operation of the endpoint is in flight, or 30 s have passed. */
  private void awaitInFlight() {
    long start = System.nanoTime();
    long deadline = start + CLOSE_WAIT_NANOS;
    while (pending.inFlight() > 0) {
      long now = System.nanoTime();
      if (now - deadline > 0) {
        return;
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
  }
}
