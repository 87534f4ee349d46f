package dev.fiucx.engine;

import dev.fiucx.AtomicFamily;
import dev.fiucx.CqErrEntry;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.completion.CompletionCounter;
import dev.fiucx.completion.CompletionRing;
import dev.fiucx.completion.OperationCounts;
import dev.fiucx.completion.PendingOperations;
import dev.fiucx.dispatch.Dispatcher;
import dev.fiucx.dispatch.LocalElements;
import dev.fiucx.semantics.AtomicCell;
import dev.fiucx.spi.RemoteRegion;
import dev.fiucx.spi.TransportPeer;
import dev.fiucx.validation.CallChecks;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;

/**
 * Posts a call whose checks passed ({@link CallChecks}, or its route's): reserves its completion
 * entry, takes a pending slot and hands its elements to the dispatcher. A one-element call ({@link
 * #startOne}) opens its slot only when its element goes pending and writes its completion at once
 * otherwise; any other call ({@link #post}) opens its slot first and posts every element. Made when
 * the endpoint is enabled, from its bindings; the posting thread's alone.
 */
final class CallPoster {
  /**
   * Not a libfabric flag: the {@code flags} of an in-call element ({@link InCallAtomics}), which
   * wants a completion entry only when it is not done in the call.
   */
  static final long IN_CALL = 1L << 62;

  private final int index;
  private final PendingOperations pending;
  private final OperationCounts counts;
  private final Dispatcher dispatcher;
  private final CallChecks checks;
  private final EngineDomain domain;
  private final CompletionRing cq;
  private final boolean selective;
  private final CompletionCounter readCounter;
  private final CompletionCounter writeCounter;

  /**
   * @param index the endpoint's index: the high word of its operations' tokens
   * @param cq the bound completion queue, or null
   * @param selective whether the queue was bound with {@code FI_SELECTIVE_COMPLETION}
   */
  CallPoster(
      int index,
      PendingOperations pending,
      Dispatcher dispatcher,
      CallChecks checks,
      EngineDomain domain,
      CompletionRing cq,
      boolean selective,
      CompletionCounter readCounter,
      CompletionCounter writeCounter) {
    this.index = index;
    this.pending = pending;
    this.counts = pending.counts();
    this.dispatcher = dispatcher;
    this.checks = checks;
    this.domain = domain;
    this.cq = cq;
    this.selective = selective;
    this.readCounter = readCounter;
    this.writeCounter = writeCounter;
  }

  /**
   * Whether a call with {@code flags} writes a completion entry: unless {@code FI_INJECT}; on a
   * queue bound with {@code FI_SELECTIVE_COMPLETION}, only with {@code FI_COMPLETION}.
   */
  static boolean wantsCompletion(long flags, boolean selective) {
    return (flags & FiFlags.INJECT) == 0 && (!selective || (flags & FiFlags.COMPLETION) != 0);
  }

  /** {@link #wantsCompletion} on this endpoint's queue. */
  boolean wantsCompletion(long flags) {
    return wantsCompletion(flags, selective);
  }

  /** Whether a completion queue is bound. */
  boolean hasQueue() {
    return cq != null;
  }

  /**
   * An element done in its call: counted, its completion written (when {@code cq} is not null) and
   * {@code counter} (when not null) bumped.
   */
  static void doneAtOnce(
      OperationCounts counts,
      int countIndex,
      long start,
      CompletionRing cq,
      Object context,
      long cqFlags,
      CompletionCounter counter) {
    counts.doneAt(countIndex, start);
    if (cq != null) {
      cq.complete(context, cqFlags, 0);
    }
    if (counter != null) {
      counter.increment();
    }
  }

  /**
   * One checked element: its completion entry reserved ({@code -FI_EAGAIN} when the queue is full),
   * then started by its cell's mechanism and reported at once when it is done, else through the
   * slot it then opens. Returns 0, {@link InCallAtomics#DONE_IN_CALL} for an in-call element done
   * in the call, or a negative {@code fi_errno}.
   *
   * @param locks the peer's lock region (REMOTE_LOCK cells), else ignored
   * @param flags the call's flags, or {@link #IN_CALL}
   */
  int startOne(
      AtomicCell cell,
      TransportPeer peer,
      RemoteRegion region,
      long offset,
      RemoteRegion locks,
      MemorySegment buf,
      MemorySegment compare,
      MemorySegment result,
      Object context,
      long flags) {
    boolean inCall = flags == IN_CALL;
    // an in-call element reserves an entry in case it goes pending
    boolean wantCompletion = inCall || wantsCompletion(flags, selective);
    if (wantCompletion && !cq.reserve()) {
      return -FiErrno.EAGAIN;
    }
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
    CompletionCounter counter = reads ? readCounter : writeCounter;
    long cqFlags = FiFlags.ATOMIC | (reads ? FiFlags.READ : FiFlags.WRITE);
    if (rc == TransportPeer.PENDING) {
      openPending(slot, cell, peer, start, context, wantCompletion, result);
      return 0;
    }
    if (inCall) {
      cq.release();
    }
    doneAtOnce(
        counts,
        OperationCounts.index(cell.family(), cell.op(), cell.datatype()),
        start,
        wantCompletion && !inCall ? cq : null,
        context,
        cqFlags,
        counter);
    // the element wrote its result during the post: the buffer stays reachable until here, so an
    // automatic arena's memory cannot be freed under the transport's write
    Reference.reachabilityFence(result);
    return inCall ? InCallAtomics.DONE_IN_CALL : 0;
  }

  /**
   * The token of the slot a one-element post takes ({@link PendingOperations#peek}: the slot is
   * opened only if the element goes pending), or {@code -FI_EAGAIN} when every slot is in use.
   */
  long peekToken() {
    int slot = pending.peek();
    return slot < 0 ? slot : ((long) index << 32) | slot;
  }

  /**
   * The one element posted with the slot {@code slot} went pending: the slot is opened, holding the
   * result buffer until the element has written it, and progress is woken.
   */
  void openPending(
      int slot,
      AtomicCell cell,
      TransportPeer peer,
      long start,
      Object context,
      boolean wantCompletion,
      MemorySegment result) {
    boolean reads = cell.family() != AtomicFamily.BASE;
    counts.opened(slot, cell, 1, start);
    pending.openAt(
        slot,
        context,
        cq,
        wantCompletion,
        reads ? readCounter : writeCounter,
        FiFlags.ATOMIC | (reads ? FiFlags.READ : FiFlags.WRITE),
        result,
        cell.op() != FiOp.ATOMIC_READ,
        peer);
    domain.wakeProgress();
  }

  /**
   * The checked call of any count on its element walks: its completion reserved, its slot opened
   * (holding its result buffers until they are written), then every element posted. Returns 0 or a
   * negative {@code fi_errno}, nothing posted.
   */
  int post(Object context, long flags) {
    boolean wantCompletion = wantsCompletion(flags, selective);
    if (wantCompletion && !cq.reserve()) {
      dispatcher.forget();
      return -FiErrno.EAGAIN;
    }
    int rc =
        postReserved(
            checks.cell(),
            checks.elements(),
            checks.peer(),
            checks.locks(),
            context,
            wantCompletion);
    if (rc < 0 && wantCompletion) {
      cq.release();
    }
    return rc;
  }

  /**
   * {@link #post} of a call whose completion entry, when it wants one, is already reserved: its
   * slot opened, then its {@code elements} elements on the dispatcher's walks posted. Returns 0, or
   * a negative {@code fi_errno} with nothing posted and the reservation still the caller's ({@code
   * -FI_EAGAIN}: no slot or no room in an emulation engine now).
   *
   * @param locks the peer's lock region (REMOTE_LOCK cells), else ignored
   */
  int postReserved(
      AtomicCell cell,
      long elements,
      TransportPeer peer,
      RemoteRegion locks,
      Object context,
      boolean wantCompletion) {
    boolean reads = cell.family() != AtomicFamily.BASE;
    long cqFlags = FiFlags.ATOMIC | (reads ? FiFlags.READ : FiFlags.WRITE);
    int slot =
        pending.open(
            context,
            cq,
            wantCompletion,
            reads ? readCounter : writeCounter,
            cqFlags,
            elements,
            cell.op() != FiOp.ATOMIC_READ,
            peer);
    if (slot < 0) {
      dispatcher.forget();
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

  /** Room for one completion entry in the bound queue ({@link CompletionRing#reserve}). */
  boolean reserve() {
    return cq.reserve();
  }

  /**
   * Ends an operation that was never posted (a deferred call cancelled by close, or refused by what
   * changed before it could start) with {@code status}: its error entry with its context in the
   * bound queue (giving back its reservation when {@code reserved}), its counter's error count
   * bumped, and counted as a failed operation.
   *
   * @param status a negative {@code fi_errno}
   */
  void failUnposted(AtomicCell cell, long elements, Object context, boolean reserved, int status) {
    boolean reads = cell.family() != AtomicFamily.BASE;
    counts.endedUnposted(cell, elements, status);
    if (cq != null) {
      CqErrEntry e = new CqErrEntry();
      e.opContext = context;
      e.flags = FiFlags.ATOMIC | (reads ? FiFlags.READ : FiFlags.WRITE);
      e.err = -status;
      e.errData = FiErrno.errorString(status);
      if (reserved) {
        cq.fail(e);
      } else {
        cq.failUnreserved(e);
      }
    }
    CompletionCounter counter = reads ? readCounter : writeCounter;
    if (counter != null) {
      counter.incrementErrors();
    }
  }
}
