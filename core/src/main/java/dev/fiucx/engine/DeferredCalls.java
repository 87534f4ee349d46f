package dev.fiucx.engine;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiErrno;
import dev.fiucx.FiOp;
import dev.fiucx.completion.OperationCounts;
import dev.fiucx.completion.PendingOperations;
import dev.fiucx.dispatch.Dispatcher;
import dev.fiucx.dispatch.LocalElements;
import dev.fiucx.dispatch.RemoteElements;
import dev.fiucx.semantics.AtomicCell;
import dev.fiucx.spi.RemoteRegion;
import dev.fiucx.spi.TransportPeer;
import dev.fiucx.validation.CallChecks;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;

/**
 * An endpoint's calls deferred by {@code FI_FENCE}. libfabric defers a fenced operation, and every
 * operation posted after it, until every operation posted before it has completed; the call itself
 * returns at once. So a fenced call that passed its checks while an operation of the endpoint is in
 * flight is kept here instead of being posted, and so is every call that passes its checks while a
 * deferred one waits, fenced or not, which keeps the endpoint's issue order. A deferred call holds
 * its completion entry's reservation (a full queue is {@code -FI_EAGAIN} at the call, as for any
 * call), a copy of its operands and compare values (the caller may reuse its buffers, iov arrays
 * and message once the call returns, and an {@code FI_INJECT} operand at once), its result buffers
 * (the caller's until the completion, as libfabric says) and the regions and offsets its checks
 * resolved.
 *
 * <p>Progress starts them ({@link #drain}, after the transport's and the emulation's, on whichever
 * thread progresses), in order: a fenced one once nothing of the endpoint is in flight, the others
 * as they come; one that finds no room now ({@code -FI_EAGAIN}: no slot, no room in an emulation
 * engine) is tried again at the next progress. Each ends exactly once: posted, then completed as
 * any call; or, with an error entry carrying its context, ended by what changed while it waited
 * (its peer failed: {@code -FI_ECONNRESET}; a region revoked: {@code -FI_EKEYREJECTED}; a result
 * buffer freed: {@code -FI_EINVAL}) or cancelled when the endpoint closes ({@code -FI_ECANCELED}).
 *
 * <p>Threads. Starting a call uses what the endpoint's calls use (the dispatcher's walks, the
 * poster, the pending slots, the emulation engines' posting side), which one thread at a time may
 * touch. A call made while nothing is deferred looks at {@link #backlog} only (one volatile load);
 * while something is, the endpoint's calls run under this object's lock ({@link #lock}), which
 * progress only tries ({@link #tryLock}: taken, it skips and the next progress starts them). The
 * count of deferred calls is written under the lock, its fall to 0 as the last write of a drain: a
 * call that reads 0 sees all the drain did, and nothing is deferred again until a call defers one
 * (one thread at a time calls). A deferred call allocates its record and copies; nothing here
 * allocates for a call that is not deferred.
 */
final class DeferredCalls {
  /** The most calls deferred at once; one more is {@code -FI_EAGAIN}, as a full queue is. */
  static final int MAX_DEFERRED = 4096;

  private static final VarHandle LOCKED;

  static {
    try {
      LOCKED = MethodHandles.lookup().findVarHandle(DeferredCalls.class, "locked", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final PendingOperations pending;
  private final OperationCounts counts;
  private final Dispatcher dispatcher;
  private final DomainErrors errors;

  /** Under the lock. */
  private final ArrayDeque<Deferred> calls = new ArrayDeque<>();

  /** Set by {@link #enable}, before any call. */
  private CallPoster poster;

  /** How many calls are deferred: written under the lock, read by every call. */
  private volatile int waiting;

  /** 1 while a thread holds the lock. */
  @SuppressWarnings("unused")
  private volatile int locked;

  /**
   * @param dispatcher the endpoint's: its walks carry a started call to the poster
   * @param errors where an exception while a deferred call starts goes
   */
  DeferredCalls(
      PendingOperations pending,
      OperationCounts counts,
      Dispatcher dispatcher,
      DomainErrors errors) {
    this.pending = pending;
    this.counts = counts;
    this.dispatcher = dispatcher;
    this.errors = errors;
  }

  /** The endpoint is enabled: deferred calls are posted by {@code poster}. */
  void enable(CallPoster poster) {
    this.poster = poster;
  }

  /** Whether a call is deferred: then every call of the endpoint is deferred behind it. */
  boolean backlog() {
    return waiting != 0;
  }

  /**
   * Whether an operation of the endpoint is in flight: a fenced call made now must wait. The
   * operation counts answer first (a load per side); their none is confirmed by the slots.
   */
  boolean inFlight() {
    return counts.outstanding() != 0 || pending.inFlight() != 0;
  }

  /** Takes the lock, waiting while progress starts deferred calls (a call's or close's). */
  void lock() {
    while (!tryLock()) {
      Thread.onSpinWait();
    }
  }

  /** Takes the lock when nobody holds it; true when the caller must {@link #unlock}. */
  boolean tryLock() {
    return locked == 0 && LOCKED.compareAndSet(this, 0, 1);
  }

  void unlock() {
    LOCKED.setRelease(this, 0);
  }

  /**
   * Defers the call whose checks just passed on the dispatcher's walks ({@link CallChecks#check}),
   * which are dropped. Under the lock. Returns 0, or {@code -FI_EAGAIN} with nothing deferred (as
   * many calls deferred as may be, or no room in the completion queue).
   *
   * @param wantCompletion whether it writes a completion entry
   * @param fenced whether it waits for every operation before it
   */
  int deferWalks(CallChecks checks, Object context, boolean wantCompletion, boolean fenced) {
    try {
      if (calls.size() >= MAX_DEFERRED) {
        return -FiErrno.EAGAIN;
      }
      return add(Deferred.ofWalks(checks, dispatcher, context, wantCompletion, fenced));
    } finally {
      dispatcher.forget();
    }
  }

  /**
   * Defers the one-element plain call whose checks just passed on its buffers ({@link
   * CallChecks#checkOne}): it waits behind a deferred call. Under the lock; returns as {@link
   * #deferWalks}.
   */
  int deferOne(
      CallChecks checks,
      MemorySegment operand,
      MemorySegment compare,
      MemorySegment result,
      Object context,
      boolean wantCompletion) {
    if (calls.size() >= MAX_DEFERRED) {
      return -FiErrno.EAGAIN;
    }
    return add(Deferred.ofOne(checks, operand, compare, result, context, wantCompletion));
  }

  private int add(Deferred d) {
    if (d.wantCompletion && !poster.reserve()) {
      return -FiErrno.EAGAIN;
    }
    calls.addLast(d);
    waiting = calls.size();
    return 0;
  }

  /**
   * Starts the deferred calls that may start now, in order, from progress; returns how many ended
   * here (posted or failed). Does nothing when none waits, or another thread holds the lock.
   */
  int drain() {
    if (waiting == 0 || !tryLock()) {
      return 0;
    }
    int started = 0;
    try {
      for (Deferred d; (d = calls.peekFirst()) != null; ) {
        if (d.fenced && inFlight()) {
          break;
        }
        if (start(d) == -FiErrno.EAGAIN) {
          break;
        }
        calls.pollFirst();
        started++;
        // the fall to 0 is the last write: a call that reads it takes over the endpoint
        waiting = calls.size();
      }
    } finally {
      unlock();
    }
    return started;
  }

  /**
   * Posts {@code d}, or ends it with its error entry: 0 when it ended here either way, {@code
   * -FI_EAGAIN} when it must wait for room (its reservation kept).
   */
  private int start(Deferred d) {
    int rc;
    try {
      rc = d.changed();
      if (rc == 0) {
        d.fill(dispatcher);
        rc = poster.postReserved(d.cell, d.elements, d.peer, d.locks, d.context, d.wantCompletion);
        if (rc == -FiErrno.EAGAIN) {
          return rc;
        }
      }
    } catch (RuntimeException e) {
      dispatcher.forget();
      rc = CallFailures.thrown(errors, e);
    }
    if (rc < 0) {
      poster.failUnposted(d.cell, d.elements, d.context, d.wantCompletion, rc);
    }
    return 0;
  }

  /**
   * The endpoint closes: every deferred call ends with {@code -FI_ECANCELED}, in order, as
   * libfabric cancels what an endpoint has not started. Returns how many.
   */
  int cancel() {
    lock();
    try {
      int n = calls.size();
      for (Deferred d; (d = calls.pollFirst()) != null; ) {
        poster.failUnposted(d.cell, d.elements, d.context, d.wantCompletion, -FiErrno.ECANCELED);
      }
      waiting = 0;
      return n;
    } finally {
      unlock();
    }
  }

  /** One deferred call: what its start needs, none of it the caller's arrays. */
  private static final class Deferred {
    final AtomicCell cell;
    final long elements;
    final TransportPeer peer;

    /** The peer's lock region (REMOTE_LOCK cells), else null. */
    final RemoteRegion locks;

    final RemoteRegion[] regions;
    final long[] offsets;
    final long[] counts;

    /** A copy of the operands, or null for ATOMIC_READ. */
    final MemorySegment operands;

    /** A copy of the compare values (compare family), else null. */
    final MemorySegment compares;

    /** The caller's result buffers and their element counts (fetch and compare families). */
    final MemorySegment[] results;

    final long[] resultCounts;

    final Object context;
    final boolean wantCompletion;
    final boolean fenced;

    private Deferred(
        CallChecks checks,
        RemoteRegion[] regions,
        long[] offsets,
        long[] counts,
        MemorySegment operands,
        MemorySegment compares,
        MemorySegment[] results,
        long[] resultCounts,
        Object context,
        boolean wantCompletion,
        boolean fenced) {
      this.cell = checks.cell();
      this.elements = checks.elements();
      this.peer = checks.peer();
      this.locks = checks.locks();
      this.regions = regions;
      this.offsets = offsets;
      this.counts = counts;
      this.operands = operands;
      this.compares = compares;
      this.results = results;
      this.resultCounts = resultCounts;
      this.context = context;
      this.wantCompletion = wantCompletion;
      this.fenced = fenced;
    }

    /** The call checked on the walks, which hold its buffers and its resolved ranges. */
    static Deferred ofWalks(
        CallChecks checks, Dispatcher d, Object context, boolean wantCompletion, boolean fenced) {
      AtomicCell cell = checks.cell();
      RemoteElements t = d.targets;
      int n = t.iovs();
      RemoteRegion[] regions = new RemoteRegion[n];
      long[] offsets = new long[n];
      long[] counts = new long[n];
      for (int i = 0; i < n; i++) {
        regions[i] = t.resolvedRegion(i);
        offsets[i] = t.resolvedOffset(i);
        counts[i] = t.count(i);
      }
      MemorySegment[] results = null;
      long[] resultCounts = null;
      if (cell.family() != AtomicFamily.BASE) {
        LocalElements r = d.results;
        results = new MemorySegment[r.iovs()];
        resultCounts = new long[r.iovs()];
        for (int i = 0; i < results.length; i++) {
          results[i] = r.segment(i);
          resultCounts[i] = r.count(i);
        }
      }
      return new Deferred(
          checks,
          regions,
          offsets,
          counts,
          cell.op() == FiOp.ATOMIC_READ ? null : copy(d.operands, cell.size()),
          cell.family() == AtomicFamily.COMPARE ? copy(d.compares, cell.size()) : null,
          results,
          resultCounts,
          context,
          wantCompletion,
          fenced);
    }

    /** The one-element call checked on its buffers, its range in {@link CallChecks#region}. */
    static Deferred ofOne(
        CallChecks checks,
        MemorySegment operand,
        MemorySegment compare,
        MemorySegment result,
        Object context,
        boolean wantCompletion) {
      AtomicCell cell = checks.cell();
      int size = cell.size();
      boolean fetches = cell.family() != AtomicFamily.BASE;
      return new Deferred(
          checks,
          new RemoteRegion[] {checks.region()},
          new long[] {checks.offset()},
          new long[] {1},
          cell.op() == FiOp.ATOMIC_READ ? null : copy(operand, size),
          cell.family() == AtomicFamily.COMPARE ? copy(compare, size) : null,
          fetches ? new MemorySegment[] {result} : null,
          fetches ? new long[] {1} : null,
          context,
          wantCompletion,
          false);
    }

    /** The elements of a side's buffers, one after another, in memory any thread may read. */
    private static MemorySegment copy(LocalElements side, int size) {
      long bytes = 0;
      for (int i = 0; i < side.iovs(); i++) {
        bytes += side.count(i) * size;
      }
      MemorySegment copy = heap(bytes);
      long at = 0;
      for (int i = 0; i < side.iovs(); i++) {
        long n = side.count(i) * size;
        MemorySegment.copy(side.segment(i), 0, copy, at, n);
        at += n;
      }
      return copy;
    }

    private static MemorySegment copy(MemorySegment element, int size) {
      MemorySegment copy = heap(size);
      MemorySegment.copy(element, 0, copy, 0, size);
      return copy;
    }

    /** Heap memory: a progress thread may read it, whichever thread's the caller's buffers are. */
    private static MemorySegment heap(long bytes) {
      return MemorySegment.ofArray(new long[(int) ((bytes + 7) >>> 3)]);
    }

    /**
     * What changed while the call waited and now refuses it: its peer failed ({@code
     * -FI_ECONNRESET}), a region or its lock region revoked ({@code -FI_EKEYREJECTED}), a result
     * buffer freed ({@code -FI_EINVAL}: the transport would write freed memory); else 0.
     */
    int changed() {
      if (peer.failed()) {
        return -FiErrno.ECONNRESET;
      }
      for (RemoteRegion r : regions) {
        if (r.revoked()) {
          return -FiErrno.EKEYREJECTED;
        }
      }
      if (locks != null && locks.revoked()) {
        return -FiErrno.EKEYREJECTED;
      }
      if (results != null) {
        for (MemorySegment s : results) {
          if (!s.scope().isAlive()) {
            return -FiErrno.EINVAL;
          }
        }
      }
      return 0;
    }

    /** Puts the call on the dispatcher's walks, as its checks left them. */
    void fill(Dispatcher d) {
      d.operands.set(operands, elements);
      if (compares != null) {
        d.compares.set(compares, elements);
      }
      if (results != null) {
        d.results.set(results, resultCounts, results.length);
      }
      d.targets.setResolved(regions, offsets, counts, regions.length);
    }
  }
}
