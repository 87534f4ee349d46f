package dev.fiucx.engine;

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
import dev.fiucx.Mechanism;
import dev.fiucx.MemoryRegion;
import dev.fiucx.completion.CompletionCounter;
import dev.fiucx.completion.CompletionRing;
import dev.fiucx.completion.OperationCounts;
import dev.fiucx.completion.PendingOperations;
import dev.fiucx.dispatch.Dispatcher;
import dev.fiucx.dispatch.LocalElements;
import dev.fiucx.dispatch.LocalElements.Need;
import dev.fiucx.emulation.CasLoop;
import dev.fiucx.emulation.RemoteLock;
import dev.fiucx.semantics.AtomicCell;
import dev.fiucx.semantics.AtomicTable;
import dev.fiucx.semantics.ElementSemantics;
import dev.fiucx.spi.MappedWords;
import dev.fiucx.spi.Progress;
import dev.fiucx.spi.RemoteRegion;
import dev.fiucx.spi.TransportPeer;
import dev.fiucx.validation.CallGuard;
import dev.fiucx.validation.LocalChecks;
import dev.fiucx.validation.RemoteChecks;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;

/**
 * {@code fid_ep} for atomics: each of the 13 calls fills the dispatcher's element walks, then one
 * path validates (flags, cell, counts, buffers, then every remote range), takes a completion slot
 * and dispatches. Calls return 0 or a negative {@code fi_errno} and allocate nothing on success.
 * One thread at a time may be inside an endpoint's calls ({@code FI_THREAD_ENDPOINT}): each call
 * enters the endpoint's {@link CallGuard} first, which refuses a second thread with {@code
 * -FI_EBUSY} (or, under {@code threading=safe}, makes it wait on the domain's lock), because the
 * element walks, the last-region cache and the poster's side of the completion bookkeeping are one
 * thread's. Completions may be written by the domain's progress thread.
 */
final class EngineEndpoint implements Endpoint, InCallAtomics {
  private static final int IN_FLIGHT = 4096;
  private static final long FENCE_TIMEOUT_NANOS = 30_000_000_000L;

  private final EngineDomain domain;
  private final int index;
  private final AtomicTable table;
  private final boolean virtualAddressing;
  private final Progress progress;
  private final PendingOperations pending;
  private final OperationCounts counts;
  private final Arena arena = Arena.ofShared();
  private final CasLoop casLoop;
  private final RemoteLock remoteLock;
  private final Dispatcher dispatcher;

  /** Who may be inside this endpoint's calls: one thread at a time, refused or serialized. */
  private final CallGuard guard;

  private EngineAddressVector av;
  private CompletionRing cq;
  private boolean selective;
  private CompletionCounter readCounter;
  private CompletionCounter writeCounter;
  private boolean enabled;
  private volatile boolean closed;
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
    this.progress = progress;
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
  }

  @Override
  public void bind(CompletionQueue queue, long flags) {
    requireOpen();
    if (!(queue instanceof CompletionRing ring)) {
      throw new FiException(FiErrno.EINVAL, "not a completion queue of this provider: " + queue);
    }
    if (!ring.progressedBy(progress)) {
      throw new FiException(FiErrno.EINVAL, "the completion queue belongs to another domain");
    }
    if (ring.isClosed()) {
      throw new FiException(FiErrno.EOPBADSTATE, "the completion queue is closed");
    }
    if ((flags & ~(FiFlags.TRANSMIT | FiFlags.RECV | FiFlags.SELECTIVE_COMPLETION)) != 0) {
      throw new FiException(FiErrno.EBADFLAGS, "fi_ep_bind(cq): 0x" + Long.toHexString(flags));
    }
    requireDisabled();
    if (cq != null) {
      // libfabric's util endpoints: "duplicate CQ binding", -FI_EINVAL
      throw new FiException(FiErrno.EINVAL, "a completion queue is already bound");
    }
    try {
      ring.bindEndpoint();
    } catch (IllegalStateException e) {
      throw new FiException(FiErrno.EBUSY, e.getMessage());
    }
    cq = ring;
    selective = (flags & FiFlags.SELECTIVE_COMPLETION) != 0;
  }

  @Override
  public void bind(Counter counter, long flags) {
    requireOpen();
    if (!(counter instanceof CompletionCounter c)) {
      throw new FiException(FiErrno.EINVAL, "not a counter of this provider: " + counter);
    }
    if (!c.progressedBy(progress)) {
      throw new FiException(FiErrno.EINVAL, "the counter belongs to another domain");
    }
    if (c.isClosed()) {
      throw new FiException(FiErrno.EOPBADSTATE, "the counter is closed");
    }
    if ((flags & ~(FiFlags.READ | FiFlags.WRITE)) != 0 || flags == 0) {
      throw new FiException(
          FiErrno.EBADFLAGS, "fi_ep_bind(cntr) takes FI_READ and/or FI_WRITE for atomics");
    }
    requireDisabled();
    if ((flags & FiFlags.READ) != 0 && readCounter != null
        || (flags & FiFlags.WRITE) != 0 && writeCounter != null) {
      // libfabric's util endpoints: "duplicate counter binding", -FI_EINVAL
      throw new FiException(FiErrno.EINVAL, "a counter is already bound for these events");
    }
    if ((flags & FiFlags.READ) != 0) {
      readCounter = c;
    }
    if ((flags & FiFlags.WRITE) != 0) {
      writeCounter = c;
    }
  }

  @Override
  public void bind(AddressVector addresses) {
    requireOpen();
    if (!(addresses instanceof EngineAddressVector a)) {
      throw new FiException(FiErrno.EINVAL, "not an address vector of this provider: " + addresses);
    }
    requireDisabled();
    if (av != null) {
      // libfabric's util endpoints: "duplicate AV binding", -FI_EINVAL
      throw new FiException(FiErrno.EINVAL, "an address vector is already bound");
    }
    av = a;
  }

  @Override
  public void enable() {
    requireOpen();
    if (enabled) {
      throw new FiException(FiErrno.EOPBADSTATE, "the endpoint is already enabled");
    }
    if (av == null) {
      throw new FiException(FiErrno.ENOAV, "bind an address vector before fi_enable");
    }
    enabled = true;
  }

  @Override
  public byte[] name() {
    return domain.address();
  }

  private void requireOpen() {
    if (closed) {
      throw new FiException(FiErrno.EOPBADSTATE, "the endpoint is closed");
    }
  }

  private void requireDisabled() {
    if (enabled) {
      throw new FiException(FiErrno.EOPBADSTATE, "the endpoint is already enabled");
    }
  }

  private long defaultFlags() {
    return selective ? 0 : FiFlags.COMPLETION;
  }

  // --- the calls: each enters the guard (refused with -FI_EBUSY while another thread is inside,
  // or waiting under threading=safe), runs inside it, and never throws ---

  /**
   * What a call returns when something threw inside it: an engine or transport failure, or a buffer
   * closed or confined to another thread by a racing thread after its checks (the checks refuse one
   * already closed or foreign with {@code -FI_EINVAL}). Counted and logged as an internal error
   * ({@link CallFailures#thrown}), not as bad input; the call's element walks are dropped.
   */
  private int thrown(RuntimeException e) {
    dispatcher.forget();
    failedCheck = null; // logged at ERROR by the domain, not as a refusal
    return counts.refused(CallFailures.thrown(domain.errors(), e));
  }

  /** The check that refused the current call, named for its DEBUG log line; null when none did. */
  private String failedCheck;

  // the checks' names in the refusals' DEBUG log lines
  private static final String NOT_ENABLED = "the endpoint is closed or not enabled";
  private static final String NOT_CARRIED_OUT = "the cell (op, datatype) is not carried out";
  private static final String LOCAL_BUFFERS =
      "a local buffer (null, closed, another thread's, too small, or not native for results)";
  private static final String NO_PEER = "dest_addr is not in the address vector";
  private static final String PEER_FAILED = "the peer at dest_addr has failed";
  private static final String REMOTE_RANGE =
      "the remote range (key, bounds, alignment, access) or its key's resolution";
  private static final String LOCK_REGION = "the peer's remote lock region did not resolve";
  private static final String NO_CQ = "a completion is wanted and no completion queue is bound";

  /** Names the check that refused the call; returns {@code rc}. */
  private int refuse(int rc, String check) {
    failedCheck = check;
    return rc;
  }

  /** Logs the call's refusal (when DEBUG is on) with the check that failed; returns {@code rc}. */
  private int logged(int rc, AtomicFamily family, FiOp op, FiDatatype datatype) {
    if (rc < 0) {
      String check = failedCheck;
      failedCheck = null;
      CallFailures.refused(rc, family, op, datatype, check);
    }
    return rc;
  }

  private int logged(int rc, AtomicFamily family, AtomicMsg msg) {
    return rc < 0 && msg != null ? logged(rc, family, msg.op(), msg.datatype()) : rc;
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
    int rc = guard.enter();
    if (rc < 0) {
      return rc;
    }
    try {
      return logged(
          atomicInside(buf, count, desc, destAddr, addr, key, datatype, op, context),
          AtomicFamily.BASE,
          op,
          datatype);
    } catch (RuntimeException e) {
      return thrown(e);
    } finally {
      guard.exit();
    }
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
    int rc = guard.enter();
    if (rc < 0) {
      return rc;
    }
    try {
      return logged(
          atomicvInside(iov, desc, count, destAddr, addr, key, datatype, op, context),
          AtomicFamily.BASE,
          op,
          datatype);
    } catch (RuntimeException e) {
      return thrown(e);
    } finally {
      guard.exit();
    }
  }

  @Override
  public int atomicmsg(AtomicMsg msg, long flags) {
    int rc = guard.enter();
    if (rc < 0) {
      return rc;
    }
    try {
      return logged(atomicmsgInside(msg, flags), AtomicFamily.BASE, msg);
    } catch (RuntimeException e) {
      return thrown(e);
    } finally {
      guard.exit();
    }
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
    int rc = guard.enter();
    if (rc < 0) {
      return rc;
    }
    try {
      return logged(
          injectAtomicInside(buf, count, destAddr, addr, key, datatype, op),
          AtomicFamily.BASE,
          op,
          datatype);
    } catch (RuntimeException e) {
      return thrown(e);
    } finally {
      guard.exit();
    }
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
    int rc = guard.enter();
    if (rc < 0) {
      return rc;
    }
    try {
      return logged(
          fetchAtomicInside(
              buf, count, desc, result, resultDesc, destAddr, addr, key, datatype, op, context),
          AtomicFamily.FETCH,
          op,
          datatype);
    } catch (RuntimeException e) {
      return thrown(e);
    } finally {
      guard.exit();
    }
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
    int rc = guard.enter();
    if (rc < 0) {
      return rc;
    }
    try {
      return logged(
          fetchAtomicvInside(
              iov,
              desc,
              count,
              resultv,
              resultDesc,
              resultCount,
              destAddr,
              addr,
              key,
              datatype,
              op,
              context),
          AtomicFamily.FETCH,
          op,
          datatype);
    } catch (RuntimeException e) {
      return thrown(e);
    } finally {
      guard.exit();
    }
  }

  @Override
  public int fetchAtomicmsg(
      AtomicMsg msg, Ioc[] resultv, MemoryRegion[] resultDesc, int resultCount, long flags) {
    int rc = guard.enter();
    if (rc < 0) {
      return rc;
    }
    try {
      return logged(
          fetchAtomicmsgInside(msg, resultv, resultDesc, resultCount, flags),
          AtomicFamily.FETCH,
          msg);
    } catch (RuntimeException e) {
      return thrown(e);
    } finally {
      guard.exit();
    }
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
    int rc = guard.enter();
    if (rc < 0) {
      return rc;
    }
    try {
      return logged(
          compareAtomicInside(
              buf,
              count,
              desc,
              compare,
              compareDesc,
              result,
              resultDesc,
              destAddr,
              addr,
              key,
              datatype,
              op,
              context),
          AtomicFamily.COMPARE,
          op,
          datatype);
    } catch (RuntimeException e) {
      return thrown(e);
    } finally {
      guard.exit();
    }
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
    int rc = guard.enter();
    if (rc < 0) {
      return rc;
    }
    try {
      return logged(
          compareAtomicvInside(
              iov,
              desc,
              count,
              comparev,
              compareDesc,
              compareCount,
              resultv,
              resultDesc,
              resultCount,
              destAddr,
              addr,
              key,
              datatype,
              op,
              context),
          AtomicFamily.COMPARE,
          op,
          datatype);
    } catch (RuntimeException e) {
      return thrown(e);
    } finally {
      guard.exit();
    }
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
    int rc = guard.enter();
    if (rc < 0) {
      return rc;
    }
    try {
      return logged(
          compareAtomicmsgInside(
              msg, comparev, compareDesc, compareCount, resultv, resultDesc, resultCount, flags),
          AtomicFamily.COMPARE,
          msg);
    } catch (RuntimeException e) {
      return thrown(e);
    } finally {
      guard.exit();
    }
  }

  // --- base family ---

  private int atomicInside(
      MemorySegment buf,
      long count,
      MemoryRegion desc,
      long destAddr,
      long addr,
      long key,
      FiDatatype datatype,
      FiOp op,
      Object context) {
    if (count == 1) {
      int rc =
          postOneElement(
              AtomicFamily.BASE, op, datatype, buf, null, null, destAddr, addr, key, context, 0);
      if (rc != NOT_ONE_ELEMENT) {
        return counts.refused(rc);
      }
    }
    dispatcher.operands.set(buf, count);
    dispatcher.targets.set(addr, count, key);
    return submit(AtomicFamily.BASE, op, datatype, destAddr, context, defaultFlags());
  }

  private int atomicvInside(
      Ioc[] iov,
      MemoryRegion[] desc,
      int count,
      long destAddr,
      long addr,
      long key,
      FiDatatype datatype,
      FiOp op,
      Object context) {
    int rc = dispatcher.operands.set(iov, count);
    if (rc < 0) {
      return counts.refused(rc);
    }
    dispatcher.targets.set(addr, dispatcher.operands.check(1, Need.COUNT_ONLY), key);
    return submit(AtomicFamily.BASE, op, datatype, destAddr, context, defaultFlags());
  }

  private int atomicmsgInside(AtomicMsg msg, long flags) {
    int rc = setMessage(msg);
    return rc < 0
        ? counts.refused(rc)
        : submit(AtomicFamily.BASE, msg.op(), msg.datatype(), msg.addr(), msg.context(), flags);
  }

  private int injectAtomicInside(
      MemorySegment buf,
      long count,
      long destAddr,
      long addr,
      long key,
      FiDatatype datatype,
      FiOp op) {
    if (count == 1) {
      int rc =
          postOneElement(
              AtomicFamily.BASE,
              op,
              datatype,
              buf,
              null,
              null,
              destAddr,
              addr,
              key,
              null,
              FiFlags.INJECT);
      if (rc != NOT_ONE_ELEMENT) {
        return counts.refused(rc);
      }
    }
    dispatcher.operands.set(buf, count);
    dispatcher.targets.set(addr, count, key);
    return submit(AtomicFamily.BASE, op, datatype, destAddr, null, FiFlags.INJECT);
  }

  // --- fetch family ---

  private int fetchAtomicInside(
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
    if (count == 1) {
      int rc =
          postOneElement(
              AtomicFamily.FETCH, op, datatype, buf, null, result, destAddr, addr, key, context, 0);
      if (rc != NOT_ONE_ELEMENT) {
        return counts.refused(rc);
      }
    }
    dispatcher.operands.set(buf, count);
    dispatcher.results.set(result, count);
    dispatcher.targets.set(addr, count, key);
    return submit(AtomicFamily.FETCH, op, datatype, destAddr, context, defaultFlags());
  }

  private int fetchAtomicvInside(
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
    int rc = setLocal(iov, count, null, 0, resultv, resultCount);
    if (rc < 0) {
      return counts.refused(rc);
    }
    dispatcher.targets.set(addr, dispatcher.operands.check(1, Need.COUNT_ONLY), key);
    return submit(AtomicFamily.FETCH, op, datatype, destAddr, context, defaultFlags());
  }

  private int fetchAtomicmsgInside(
      AtomicMsg msg, Ioc[] resultv, MemoryRegion[] resultDesc, int resultCount, long flags) {
    int rc = setMessage(msg);
    if (rc < 0) {
      return counts.refused(rc);
    }
    rc = dispatcher.results.set(resultv, resultCount);
    return rc < 0
        ? counts.refused(rc)
        : submit(AtomicFamily.FETCH, msg.op(), msg.datatype(), msg.addr(), msg.context(), flags);
  }

  // --- compare family ---

  private int compareAtomicInside(
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
    if (count == 1) {
      int rc =
          postOneElement(
              AtomicFamily.COMPARE,
              op,
              datatype,
              buf,
              compare,
              result,
              destAddr,
              addr,
              key,
              context,
              0);
      if (rc != NOT_ONE_ELEMENT) {
        return counts.refused(rc);
      }
    }
    dispatcher.operands.set(buf, count);
    dispatcher.compares.set(compare, count);
    dispatcher.results.set(result, count);
    dispatcher.targets.set(addr, count, key);
    return submit(AtomicFamily.COMPARE, op, datatype, destAddr, context, defaultFlags());
  }

  private int compareAtomicvInside(
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
    int rc = setLocal(iov, count, comparev, compareCount, resultv, resultCount);
    if (rc < 0) {
      return counts.refused(rc);
    }
    dispatcher.targets.set(addr, dispatcher.operands.check(1, Need.COUNT_ONLY), key);
    return submit(AtomicFamily.COMPARE, op, datatype, destAddr, context, defaultFlags());
  }

  private int compareAtomicmsgInside(
      AtomicMsg msg,
      Ioc[] comparev,
      MemoryRegion[] compareDesc,
      int compareCount,
      Ioc[] resultv,
      MemoryRegion[] resultDesc,
      int resultCount,
      long flags) {
    int rc = setMessage(msg);
    if (rc < 0) {
      return counts.refused(rc);
    }
    rc = dispatcher.compares.set(comparev, compareCount);
    if (rc < 0) {
      return counts.refused(rc);
    }
    rc = dispatcher.results.set(resultv, resultCount);
    return rc < 0
        ? counts.refused(rc)
        : submit(AtomicFamily.COMPARE, msg.op(), msg.datatype(), msg.addr(), msg.context(), flags);
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

  private int setMessage(AtomicMsg msg) {
    if (msg == null) {
      return -FiErrno.EINVAL;
    }
    int rc = dispatcher.operands.set(msg.msgIov(), msg.msgIov() == null ? 0 : msg.msgIov().length);
    if (rc < 0) {
      return rc;
    }
    return dispatcher.targets.set(msg.rmaIov(), msg.rmaIov() == null ? 0 : msg.rmaIov().length);
  }

  private int setLocal(
      Ioc[] iov, int count, Ioc[] comparev, int compareCount, Ioc[] resultv, int resultCount) {
    int rc = dispatcher.operands.set(iov, count);
    if (rc == 0 && comparev != null) {
      rc = dispatcher.compares.set(comparev, compareCount);
    }
    if (rc == 0) {
      rc = dispatcher.results.set(resultv, resultCount);
    }
    return rc;
  }

  /**
   * The cell when it is carried out (natively, by the CAS loop or under a remote lock): what {@link
   * #postOne} takes; else null.
   */
  private AtomicCell validCell(AtomicFamily family, FiOp op, FiDatatype datatype) {
    if (op == null || datatype == null) {
      return null;
    }
    AtomicCell cell = table.cell(family, op, datatype);
    return cell.valid() ? cell : null;
  }

  /** What {@link #postOneElement} returns for a cell that is not carried out: the general path. */
  private static final int NOT_ONE_ELEMENT = 2;

  /** What {@link #postOnRoute} returns when the call must take {@link #postOne}. */
  private static final int OFF_ROUTE = 3;

  /**
   * Not a libfabric flag: the {@code flags} of {@link #postInCall}, which wants a completion entry
   * only for an element that is not done in the call ({@link #DONE_IN_CALL} then says it was).
   */
  private static final long IN_CALL = 1L << 62;

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
    int rc = guard.enter();
    if (rc < 0) {
      return rc;
    }
    try {
      rc =
          postOneElement(
              family, op, datatype, operand, compare, result, destAddr, addr, key, null, IN_CALL);
      // a cell that is not carried out (the typed layer asks for none): fi_atomic's refusal
      rc = rc == NOT_ONE_ELEMENT ? refuse(-FiErrno.EOPNOTSUPP, NOT_CARRIED_OUT) : rc;
      return logged(counts.refused(rc), family, op, datatype);
    } catch (RuntimeException e) {
      return thrown(e);
    } finally {
      guard.exit();
    }
  }

  /** Where the last one-element native call on a mapped region went. */
  private final MappedRoute route = new MappedRoute();

  /**
   * A count-1 plain call or inject: on the last route when it leads where the call goes, else by
   * {@link #postOne} when the cell is carried out; {@link #NOT_ONE_ELEMENT} when it is not (the
   * general path reports why).
   */
  private int postOneElement(
      AtomicFamily family,
      FiOp op,
      FiDatatype datatype,
      MemorySegment buf,
      MemorySegment compare,
      MemorySegment result,
      long destAddr,
      long addr,
      long key,
      Object context,
      long flags) {
    if (route.leadsTo(family, op, datatype, destAddr, key)) {
      int rc = postOnRoute(buf, compare, result, destAddr, addr, context, flags);
      if (rc != OFF_ROUTE) {
        return rc;
      }
    }
    AtomicCell cell = validCell(family, op, datatype);
    return cell == null
        ? NOT_ONE_ELEMENT
        : postOne(cell, buf, compare, result, destAddr, addr, key, context, flags);
  }

  /**
   * {@link #postOne} for a call that leads where the last route went: the same checks, in the same
   * order, on the remembered region, and the element as a CPU atomic on its mapping, completed at
   * once. {@link #OFF_ROUTE} when the peer or the region changed or a check fails (the general path
   * then reports it exactly).
   */
  private int postOnRoute(
      MemorySegment buf,
      MemorySegment compare,
      MemorySegment result,
      long destAddr,
      long addr,
      Object context,
      long flags) {
    if (closed || !enabled) {
      return refuse(-FiErrno.EOPBADSTATE, NOT_ENABLED);
    }
    MappedRoute r = route;
    int size = r.size;
    if (!buffersUsable(r.readsOperand, r.fetches, r.compares, size, buf, compare, result)) {
      return refuse(-FiErrno.EINVAL, LOCAL_BUFFERS);
    }
    TransportPeer peer = r.peer;
    RemoteRegion region = r.region;
    // the same table: the same peer at this address (a lookup less on the call's load chain)
    MemorySegment mapping = av.table() == r.peers ? peer.mapped(region) : null;
    long offset = virtualAddressing ? addr - r.base : addr;
    if (mapping == null
        || region.revoked()
        || offset < 0
        || offset > r.lastOffset
        || (r.base + offset & r.alignmentMask) != 0
        || r.locks != null && r.locks.revoked()) {
      return OFF_ROUTE;
    }
    boolean wantCompletion = flags == 0 && !selective;
    if (wantCompletion && (cq == null || !cq.reserve())) {
      return OFF_ROUTE;
    }
    long start = counts.start();
    int rc;
    try {
      rc =
          r.mechanism == Mechanism.NATIVE
              ? runNative(r, mapping, offset, buf, compare, result)
              : dispatcher.runInPlace(
                  r.cell, peer, region, mapping, offset, r.locks, buf, compare, result);
    } catch (RuntimeException e) {
      rc = refuse(CallFailures.thrown(domain.errors(), e), CallFailures.THREW);
    }
    if (rc != TransportPeer.DONE) {
      if (wantCompletion) {
        cq.release();
      }
      return rc == Dispatcher.CONTENDED ? OFF_ROUTE : rc;
    }
    doneAtOnce(r.countIndex, start, wantCompletion, context, r.cqFlags, r.fetches);
    Reference.reachabilityFence(result);
    return flags == IN_CALL ? DONE_IN_CALL : 0;
  }

  /**
   * An element done in its call: counted, its completion written (when wanted) and its counter
   * bumped. The route's and {@link #startOne}'s.
   */
  private void doneAtOnce(
      int countIndex,
      long start,
      boolean wantCompletion,
      Object context,
      long cqFlags,
      boolean reads) {
    counts.doneAt(countIndex, start);
    if (wantCompletion) {
      cq.complete(context, cqFlags, 0);
    }
    CompletionCounter counter = reads ? readCounter : writeCounter;
    if (counter != null) {
      counter.increment();
    }
  }

  /** A native element on the route's mapping: the CPU atomic, its old value to the result. */
  private static int runNative(
      MappedRoute r,
      MemorySegment mapping,
      long offset,
      MemorySegment buf,
      MemorySegment compare,
      MemorySegment result) {
    int size = r.size;
    long value = r.readsOperand ? ElementSemantics.load(buf, 0, size) : 0;
    long old =
        r.compares
            ? MappedWords.compareSwap(
                mapping, offset, size, ElementSemantics.load(compare, 0, size), value)
            : MappedWords.apply(mapping, offset, r.nativeOp, size, value);
    if (r.fetches) {
      ElementSemantics.store(result, 0, size, old);
    }
    return TransportPeer.DONE;
  }

  /**
   * The count-1 path of the plain calls and inject on a valid cell: the same checks in the same
   * order as {@link #submit}, on the single buffers directly, with the last region resolved (no
   * element walks), then one element by its cell's mechanism. Split in three small methods so that
   * the JIT compiles the whole native path into the caller's call.
   *
   * @param flags 0 for the plain calls (their default completion flags), or FI_INJECT
   */
  private int postOne(
      AtomicCell cell,
      MemorySegment buf,
      MemorySegment compare,
      MemorySegment result,
      long destAddr,
      long addr,
      long key,
      Object context,
      long flags) {
    if (closed || !enabled) {
      return refuse(-FiErrno.EOPBADSTATE, NOT_ENABLED);
    }
    int rc = checkOneBuffers(cell, buf, compare, result);
    if (rc < 0) {
      return refuse(rc, LOCAL_BUFFERS);
    }
    Object peers = av.table(); // before the lookup: a route made now must not outlive this peer
    TransportPeer peer = av.peer(destAddr);
    if (peer == null) {
      return refuse(-FiErrno.EADDRNOTAVAIL, NO_PEER);
    }
    if (peer.failed()) {
      return refuse(-FiErrno.ECONNRESET, PEER_FAILED);
    }
    RemoteRegion region = dispatcher.targets.region(peer, key);
    if (region == null) {
      return refuse(dispatcher.targets.lastError(), REMOTE_RANGE);
    }
    long offset = virtualAddressing ? addr - region.base() : addr;
    AtomicFamily family = cell.family();
    rc =
        RemoteChecks.range(
            region,
            offset,
            cell.size(),
            cell.alignment(),
            RemoteChecks.accessFor(family != AtomicFamily.BASE, cell.op() == FiOp.ATOMIC_READ));
    if (rc < 0) {
      return refuse(rc, REMOTE_RANGE);
    }
    RemoteRegion locks = null;
    if (cell.mechanism() == dev.fiucx.Mechanism.REMOTE_LOCK) {
      locks = lockRegion(peer, destAddr);
      if (locks == null) {
        return refuse(lockError, LOCK_REGION);
      }
    }
    // the plain calls' default flags ask for a completion unless the CQ was bound selective; an
    // in-call element reserves one in case it goes pending
    boolean inCall = flags == IN_CALL;
    boolean wantCompletion = inCall || flags == 0 && !selective;
    if (wantCompletion && cq == null) {
      return refuse(-FiErrno.ENOCQ, NO_CQ);
    }
    if (wantCompletion && !cq.reserve()) {
      return -FiErrno.EAGAIN;
    }
    rc =
        startOne(
            cell,
            peer,
            region,
            offset,
            locks,
            buf,
            compare,
            result,
            context,
            wantCompletion,
            inCall);
    if (rc >= 0 && peer.mapped(region) != null) {
      route.remember(cell, destAddr, key, peers, peer, region, locks);
    }
    // an element done at once wrote its result during the post: the buffer stays reachable until
    // here, so an automatic arena's memory cannot be freed under the transport's write
    Reference.reachabilityFence(result);
    return rc;
  }

  /**
   * The same buffer checks as LocalElements.check: Java reads operands and compare values (alive,
   * this thread's to read), the transport writes results by address (also native, writable).
   */
  private static int checkOneBuffers(
      AtomicCell cell, MemorySegment buf, MemorySegment compare, MemorySegment result) {
    AtomicFamily family = cell.family();
    boolean usable =
        buffersUsable(
            cell.op() != FiOp.ATOMIC_READ,
            family != AtomicFamily.BASE,
            family == AtomicFamily.COMPARE,
            cell.size(),
            buf,
            compare,
            result);
    return usable ? 0 : -FiErrno.EINVAL;
  }

  /** {@link #checkOneBuffers} for a call that reads an operand, fetches, compares as given. */
  private static boolean buffersUsable(
      boolean readsOperand,
      boolean fetches,
      boolean compares,
      int size,
      MemorySegment buf,
      MemorySegment compare,
      MemorySegment result) {
    Thread caller = Thread.currentThread();
    return (!readsOperand || LocalElements.readable(buf, size, caller))
        && (!fetches || LocalElements.writable(result, size, caller))
        && (!compares || LocalElements.readable(compare, size, caller));
  }

  /**
   * Starts the checked element, its completion reserved when {@code wantCompletion}, and reports
   * it: at once when it is done, else through the slot it then opens. An {@code inCall} element
   * done at once gives its reservation back and returns {@link #DONE_IN_CALL} instead.
   */
  private int startOne(
      AtomicCell cell,
      TransportPeer peer,
      RemoteRegion region,
      long offset,
      RemoteRegion locks,
      MemorySegment buf,
      MemorySegment compare,
      MemorySegment result,
      Object context,
      boolean wantCompletion,
      boolean inCall) {
    boolean reads = cell.family() != AtomicFamily.BASE;
    // the slot is opened only when the element goes pending (openAt copes with a completion that
    // came first on another thread); an element done at once writes its completion here and never
    // touches the slot table
    int slot = pending.peek();
    if (slot < 0) {
      if (wantCompletion) {
        cq.release();
      }
      return slot;
    }
    long start = counts.start();
    int rc;
    try {
      rc =
          dispatcher.postOne(
              cell,
              peer,
              region,
              offset,
              locks,
              buf,
              compare,
              result,
              slot,
              ((long) index << 32) | slot);
    } catch (RuntimeException e) {
      rc = refuse(CallFailures.thrown(domain.errors(), e), CallFailures.THREW);
    }
    if (rc < 0) {
      if (wantCompletion) {
        cq.release();
      }
      return rc;
    }
    CompletionCounter counter = reads ? readCounter : writeCounter;
    long cqFlags = FiFlags.ATOMIC | (reads ? FiFlags.READ : FiFlags.WRITE);
    if (rc == TransportPeer.PENDING) {
      counts.opened(slot, cell, 1, start);
      // the slot holds the result buffer until the element has written it
      pending.openAt(slot, context, cq, wantCompletion, counter, cqFlags, result);
      domain.wakeProgress();
      return 0;
    }
    if (inCall) {
      cq.release();
    }
    doneAtOnce(
        OperationCounts.index(cell.family(), cell.op(), cell.datatype()),
        start,
        wantCompletion && !inCall,
        context,
        cqFlags,
        reads);
    return inCall ? DONE_IN_CALL : 0;
  }

  /** Why {@link #lockRegion} returned null. */
  private int lockError;

  /** The last lock region {@link #lockRegion} resolved, and its peer: one lookup per peer. */
  private TransportPeer lastLocksPeer;

  private RemoteRegion lastLocks;

  /**
   * The lock region of the peer at {@code destAddr}, resolved once per peer (it lives as long as
   * its domain); null with {@link #lockError} set when the peer does not answer.
   */
  private RemoteRegion lockRegion(TransportPeer peer, long destAddr) {
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

  /** The one path every call takes: validate, take a slot, dispatch. */
  private int submit(
      AtomicFamily family,
      FiOp op,
      FiDatatype datatype,
      long destAddr,
      Object context,
      long flags) {
    int rc = validateAndPost(family, op, datatype, destAddr, context, flags);
    if (rc < 0) {
      dispatcher.forget();
    }
    return counts.refused(rc);
  }

  private int validateAndPost(
      AtomicFamily family,
      FiOp op,
      FiDatatype datatype,
      long destAddr,
      Object context,
      long flags) {
    if (closed || !enabled) {
      return refuse(-FiErrno.EOPBADSTATE, NOT_ENABLED);
    }
    int rc = LocalChecks.flags(flags);
    if (rc < 0) {
      return refuse(rc, "the flags");
    }
    if (op == null || datatype == null) {
      return refuse(-FiErrno.EINVAL, "a null op or datatype");
    }
    AtomicCell cell = table.cell(family, op, datatype);
    rc = LocalChecks.cell(cell);
    if (rc < 0) {
      return refuse(rc, NOT_CARRIED_OUT);
    }
    long elements = dispatcher.targets.total();
    if (elements < 0) {
      return refuse((int) elements, "the remote iov (count, entries)");
    }
    rc = LocalChecks.count(cell, elements);
    if (rc < 0) {
      return refuse(rc, "the element count");
    }
    rc = checkLocal(cell, elements);
    if (rc < 0) {
      return refuse(rc, LOCAL_BUFFERS);
    }
    TransportPeer peer = av.peer(destAddr);
    if (peer == null) {
      return refuse(-FiErrno.EADDRNOTAVAIL, NO_PEER);
    }
    if (peer.failed()) {
      return refuse(-FiErrno.ECONNRESET, PEER_FAILED);
    }
    long access = RemoteChecks.accessFor(family.fetches(), op == FiOp.ATOMIC_READ);
    rc = dispatcher.targets.resolve(peer, cell, virtualAddressing, access);
    if (rc < 0) {
      return refuse(rc, REMOTE_RANGE);
    }
    RemoteRegion locks = null;
    if (cell.mechanism() == dev.fiucx.Mechanism.REMOTE_LOCK) {
      locks = lockRegion(peer, destAddr);
      if (locks == null) {
        return refuse(lockError, LOCK_REGION);
      }
    }
    if ((flags & FiFlags.FENCE) != 0) {
      rc = awaitEarlierOperations();
      if (rc < 0) {
        return refuse(rc, "FI_FENCE: earlier operations did not complete");
      }
    }
    return post(cell, peer, locks, elements, context, flags);
  }

  /** Every local side must be usable and hold as many elements as the remote side. */
  private int checkLocal(AtomicCell cell, long elements) {
    int size = cell.size();
    long n =
        dispatcher.operands.check(
            size, cell.op() == FiOp.ATOMIC_READ ? Need.COUNT_ONLY : Need.READABLE);
    int rc = n < 0 ? (int) n : LocalChecks.sameCount(elements, n);
    if (rc == 0 && cell.family() != AtomicFamily.BASE) {
      n = dispatcher.results.check(size, Need.NATIVE);
      rc = n < 0 ? (int) n : LocalChecks.sameCount(elements, n);
    }
    if (rc == 0 && cell.family() == AtomicFamily.COMPARE) {
      n = dispatcher.compares.check(size, Need.READABLE);
      rc = n < 0 ? (int) n : LocalChecks.sameCount(elements, n);
    }
    return rc;
  }

  private int post(
      AtomicCell cell,
      TransportPeer peer,
      RemoteRegion locks,
      long elements,
      Object context,
      long flags) {
    boolean wantCompletion =
        (flags & FiFlags.INJECT) == 0 && (!selective || (flags & FiFlags.COMPLETION) != 0);
    if (wantCompletion && cq == null) {
      return refuse(-FiErrno.ENOCQ, NO_CQ);
    }
    if (wantCompletion && !cq.reserve()) {
      return -FiErrno.EAGAIN;
    }
    boolean reads = cell.family() != AtomicFamily.BASE;
    long cqFlags = FiFlags.ATOMIC | (reads ? FiFlags.READ : FiFlags.WRITE);
    int slot =
        pending.open(
            context, cq, wantCompletion, reads ? readCounter : writeCounter, cqFlags, elements);
    if (slot < 0) {
      if (wantCompletion) {
        cq.release();
      }
      return slot;
    }
    if (reads) {
      // the slot holds the result buffers until every element has written its old value
      LocalElements results = dispatcher.results;
      for (int i = 0, n = results.iovs(); i < n; i++) {
        pending.keep(slot, i, results.segment(i));
      }
    }
    counts.opened(slot, cell, elements, counts.start());
    long token = ((long) index << 32) | slot;
    int pendingElements = dispatcher.post(cell, peer, locks, elements, pending, slot, token);
    if (pendingElements < 0) {
      counts.cancelled();
      pending.cancel(slot);
      return pendingElements;
    }
    pending.posted(slot, elements, pendingElements);
    if (pendingElements > 0) {
      domain.wakeProgress();
    }
    return 0;
  }

  /** FI_FENCE: the fenced operation starts once every earlier one has completed. */
  private int awaitEarlierOperations() {
    long start = System.nanoTime();
    long deadline = start + FENCE_TIMEOUT_NANOS;
    while (pending.inFlight() > 0) {
      long now = System.nanoTime();
      if (now - deadline > 0) {
        return -FiErrno.ETIMEDOUT;
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
    return 0;
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
   * After {@link #drainEmulation}: how long the progressing thread may wait for the transport
   * before an emulation step of this endpoint is due (see {@link RemoteLock#quietNanos}).
   */
  long quietNanos(long now) {
    if (released) {
      return Long.MAX_VALUE;
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
   * and a second close does nothing. Waits for a call another thread is inside, then for the
   * operations in flight.
   */
  @Override
  public void close() {
    guard.enterWaiting();
    try {
      if (closed) {
        return;
      }
      closed = true;
      awaitEarlierOperations();
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
}
