package dev.fiucx.completion;

import dev.fiucx.CqErrEntry;
import dev.fiucx.FiErrno;
import dev.fiucx.spi.TransportPeer;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An endpoint's operations in flight, one slot each, until every element has completed; then the
 * slot writes the operation's completion (or error entry) and moves its counter. A slot of several
 * elements counts its pending elements plus one guard that the posting thread holds until it has
 * posted them all, so an operation cannot finish while it is still being posted. A slot of one
 * element needs no guard: its one post either finishes at once ({@link #posted} with 0 pending,
 * which finishes it there), or leaves it to exactly one {@link #completed}.
 *
 * <p>One thread posts. In a concurrent instance (automatic progress) completions may arrive on
 * another thread, so the per-slot counters move by atomic read-modify-writes; a single-threaded one
 * (manual progress: completions arrive inside the poster's own progress) uses plain loads and
 * stores. Nothing here allocates on success.
 *
 * <p>A slot holds its operation's result buffers until it finishes ({@link #keep}): the transport
 * writes them by address, and a segment of an automatic arena that nobody references could be freed
 * by the garbage collector while an operation still writes into it.
 */
public final class PendingOperations {
  private static final int FREE = 0;
  private static final int BUSY = 1;

  /** A one-element slot whose element completed before its poster opened it ({@link #openAt}). */
  private static final int EARLY = 2;

  private static final int GUARD = 1 << 30;

  private static final VarHandle INTS = MethodHandles.arrayElementVarHandle(int[].class);

  private final Object[] contexts;
  private final CompletionRing[] queues;
  private final boolean[] reserved;
  private final CompletionCounter[] counters;
  private final long[] cqFlags;
  private final int[] remaining;
  private final int[] status;
  private final int[] state;

  /** Per slot: whether its op may change the target (every op but {@code FI_ATOMIC_READ}). */
  private final boolean[] writes;

  /**
   * Per slot: whether an element failed after it was handed to the transport in a way that may have
   * applied it, or an element was posted before another failed: with {@link #writes}, what makes an
   * error entry {@link CqErrEntry#uncertain}.
   */
  private final boolean[] mayHaveApplied;

  /** Per slot: the first result buffer of its operation, held until it finishes. */
  private final MemorySegment[] results;

  /** Per slot: the further result buffers of a vector call, made on a slot's first vector. */
  private final MemorySegment[][] moreResults;

  /** Per slot: {@link OperationClock#ticks} when its operation was opened. */
  private final int[] openedAt;

  /** Per slot: the peer its operation went to, whom {@link #overdue} names when it is late. */
  private final TransportPeer[] peers;

  /** Per slot: whether {@link #overdue} has named its peer already. */
  private final boolean[] timedOut;

  private final int mask;
  private final boolean concurrent;
  private final OperationCounts counts;
  private int cursor;

  /** Room for {@code capacity} operations in flight (rounded up to a power of two), concurrent. */
  public PendingOperations(int capacity) {
    this(capacity, true);
  }

  /**
   * @param concurrent false when completions only ever arrive on the posting thread
   */
  public PendingOperations(int capacity, boolean concurrent) {
    int n = Integer.highestOneBit(Math.max(2, capacity) - 1) << 1;
    contexts = new Object[n];
    queues = new CompletionRing[n];
    reserved = new boolean[n];
    counters = new CompletionCounter[n];
    cqFlags = new long[n];
    remaining = new int[n];
    status = new int[n];
    state = new int[n];
    writes = new boolean[n];
    mayHaveApplied = new boolean[n];
    openedAt = new int[n];
    peers = new TransportPeer[n];
    timedOut = new boolean[n];
    results = new MemorySegment[n];
    moreResults = new MemorySegment[n][];
    mask = n - 1;
    this.concurrent = concurrent;
    this.counts = new OperationCounts(n);
  }

  /** What metrics read: every finished operation is counted there. */
  public OperationCounts counts() {
    return counts;
  }

  /**
   * Opens a slot for one operation of {@code elements} elements, holding its guard when there are
   * several.
   *
   * @param queue where the completion or error goes, or null when no CQ is bound
   * @param reservedCompletion whether room was reserved in {@code queue} for a success entry
   * @param counter the counter to move, or null
   * @param writes whether the op may change the target (every op but {@code FI_ATOMIC_READ})
   * @param peer where the op goes
   * @return the slot, or {@code -FI_EAGAIN} when every slot is in flight
   */
  public int open(
      Object context,
      CompletionRing queue,
      boolean reservedCompletion,
      CompletionCounter counter,
      long flags,
      long elements,
      boolean writes,
      TransportPeer peer) {
    for (int probe = 0; probe <= mask; probe++) {
      int s = (cursor + probe) & mask;
      if ((int) INTS.getAcquire(state, s) == FREE) {
        cursor = s + 1;
        contexts[s] = context;
        queues[s] = queue;
        reserved[s] = reservedCompletion;
        counters[s] = counter;
        cqFlags[s] = flags;
        this.writes[s] = writes;
        peers[s] = peer;
        openedAt[s] = OperationClock.ticks();
        // release stores: other threads touch the slot only after a completion that the transport
        // hands them, which follows the post that follows these stores
        INTS.setRelease(status, s, 0);
        INTS.setRelease(remaining, s, elements == 1 ? 1 : GUARD);
        INTS.setRelease(state, s, BUSY);
        return s;
      }
    }
    return -FiErrno.EAGAIN;
  }

  /**
   * The slot {@link #open} would take now, without taking it, or {@code -FI_EAGAIN}. The poster of
   * a one-element operation names it in the post and opens it with {@link #openAt} only when the
   * element went pending: an element done at once never touches the table.
   */
  public int peek() {
    for (int probe = 0; probe <= mask; probe++) {
      int s = (cursor + probe) & mask;
      if ((int) INTS.getAcquire(state, s) == FREE) {
        return s;
      }
    }
    return -FiErrno.EAGAIN;
  }

  /**
   * Opens {@code slot} (from {@link #peek}) for one element that went pending. In a concurrent
   * instance the element may already have completed on another thread ({@link #completed} found the
   * slot free and marked it EARLY): then the poster finishes it here.
   *
   * @param result the buffer the element's old value goes to (held until it finishes), or null
   * @param writes whether the op may change the target (every op but {@code FI_ATOMIC_READ})
   * @param peer where the op goes
   */
  public void openAt(
      int slot,
      Object context,
      CompletionRing queue,
      boolean reservedCompletion,
      CompletionCounter counter,
      long flags,
      MemorySegment result,
      boolean writes,
      TransportPeer peer) {
    cursor = slot + 1;
    results[slot] = result;
    contexts[slot] = context;
    queues[slot] = queue;
    reserved[slot] = reservedCompletion;
    counters[slot] = counter;
    cqFlags[slot] = flags;
    this.writes[slot] = writes;
    peers[slot] = peer;
    openedAt[slot] = OperationClock.ticks();
    if (!concurrent) {
      remaining[slot] = 1;
      state[slot] = BUSY;
      return;
    }
    INTS.setRelease(remaining, slot, 1);
    if (!INTS.compareAndSet(state, slot, FREE, BUSY)) {
      finish(slot, true); // EARLY: its completion came first and left its status
    }
  }

  /**
   * Holds {@code buffer}, the {@code index}th result buffer of the operation in {@code slot}
   * (opened by {@link #open}, not finished), until the operation finishes. Called by the poster
   * before it posts the elements that write there.
   */
  public void keep(int slot, int index, MemorySegment buffer) {
    if (index == 0) {
      results[slot] = buffer;
      return;
    }
    MemorySegment[] more = moreResults[slot];
    if (more == null) {
      more = new MemorySegment[dev.fiucx.dispatch.LocalElements.MAX_IOV - 1];
      moreResults[slot] = more;
    }
    more[index - 1] = buffer;
  }

  /**
   * Records that an element of {@code slot} failed when others had already been posted, which may
   * have applied (the poster's view of a vector call cut short): its error entry is {@link
   * CqErrEntry#uncertain} when the op writes.
   */
  public void failAfterPosting(int slot, int errno) {
    mayHaveApplied[slot] = true; // the posting thread's write, seen by whoever finishes the slot
    fail(slot, errno);
  }

  /** Records a failure of {@code slot}; the first one is what the error entry reports. */
  public void fail(int slot, int errno) {
    int e = errno < 0 ? errno : -errno;
    if (concurrent) {
      INTS.compareAndSet(status, slot, 0, e);
    } else if (status[slot] == 0) {
      status[slot] = e;
    }
  }

  /**
   * A pending native element completed with {@code status} (0 or a negative {@code fi_errno}). A
   * failure may have applied it: the request had left for the target, and its answer is what was
   * lost.
   */
  public void completed(int slot, int elementStatus) {
    completed(slot, elementStatus, true);
  }

  /**
   * A pending element completed with {@code status} (0 or a negative {@code fi_errno}); on a
   * failure, {@code mayHaveApplied} says whether a step that changes the target may have taken
   * effect (an emulation knows which of its steps failed).
   */
  public void completed(int slot, int elementStatus, boolean mayHaveApplied) {
    if (elementStatus != 0) {
      if (mayHaveApplied) {
        this.mayHaveApplied[slot] = true; // before the release below
      }
      fail(slot, elementStatus);
    }
    if (concurrent
        && (int) INTS.getAcquire(state, slot) == FREE
        && INTS.compareAndSet(state, slot, FREE, EARLY)) {
      return; // its poster has not opened it yet and finishes it in openAt
    }
    if (add(slot, -1) == 0) {
      finish(slot, false);
    }
  }

  /**
   * The posting thread is done posting {@code slot} of {@code elements} elements, of which {@code
   * pendingElements} will be reported by {@link #completed}: releases the guard, or for one element
   * that finished at once, finishes it here.
   */
  public void posted(int slot, long elements, int pendingElements) {
    if (elements == 1) {
      if (pendingElements == 0) {
        finish(slot, true); // nobody else will ever name this slot
      }
      return;
    }
    if (add(slot, pendingElements - GUARD) == 0) {
      finish(slot, true);
    }
  }

  private int add(int slot, int delta) {
    if (concurrent) {
      return (int) INTS.getAndAdd(remaining, slot, delta) + delta;
    }
    return remaining[slot] += delta;
  }

  /**
   * Frees a slot whose operation posted nothing. Its completion reservation stays the poster's,
   * which gives it back or (a deferred call that starts later) keeps it.
   */
  public void cancel(int slot) {
    free(slot);
  }

  /** Operations posted and not yet finished (a scan: for fences and close, not the hot path). */
  public int inFlight() {
    int n = 0;
    for (int s = 0; s <= mask; s++) {
      n += (int) INTS.getVolatile(state, s) == FREE ? 0 : 1;
    }
    return n;
  }

  /**
   * The peer of an operation open for more than {@code limit} ticks, or null: every operation in
   * flight to that peer is marked to end with {@code -FI_ETIMEDOUT} (uncertain where it writes: its
   * requests are out), and the caller then abandons the peer ({@link TransportPeer#abandon}), which
   * ends them. Each slot is named once. Called by progress; a scan, once per clock tick.
   *
   * @param now {@link OperationClock#ticks} now
   * @param limit the timeout in ticks
   * @return the late peer, or null when no operation is late
   */
  public TransportPeer overdue(int now, int limit) {
    for (int s = 0; s <= mask; s++) {
      if ((int) INTS.getAcquire(state, s) == BUSY
          && !timedOut[s]
          && peers[s] != null
          && now - openedAt[s] > limit) {
        TransportPeer late = peers[s];
        for (int t = 0; t <= mask; t++) {
          if ((int) INTS.getAcquire(state, t) == BUSY && peers[t] == late) {
            timedOut[t] = true;
            // its answer may come just now: an op marked here that then succeeds did apply
            mayHaveApplied[t] = true;
            fail(t, -FiErrno.ETIMEDOUT);
          }
        }
        return late;
      }
    }
    return null;
  }

  /**
   * Writes the slot's completion or error entry and frees it; {@code byPoster} when the posting
   * thread finishes it, else progress (a transport or emulation completion) does.
   */
  private void finish(int slot, boolean byPoster) {
    int st = concurrent ? (int) INTS.getVolatile(status, slot) : status[slot];
    boolean uncertain = st != 0 && writes[slot] && mayHaveApplied[slot];
    counts.finished(slot, st, uncertain, byPoster);
    CompletionRing q = queues[slot];
    CompletionCounter counter = counters[slot];
    if (st == 0) {
      if (reserved[slot]) {
        if (byPoster) {
          q.complete(contexts[slot], cqFlags[slot], 0);
        } else {
          q.completeFromProgress(contexts[slot], cqFlags[slot], 0);
        }
      }
      if (counter != null) {
        counter.increment();
      }
    } else {
      if (q != null) {
        CqErrEntry e = new CqErrEntry();
        e.opContext = contexts[slot];
        e.flags = cqFlags[slot];
        e.err = -st;
        e.errData = FiErrno.errorString(st);
        e.uncertain = uncertain;
        if (reserved[slot]) {
          if (byPoster) {
            q.fail(e);
          } else {
            q.failFromProgress(e);
          }
        } else {
          q.failUnreserved(e);
        }
      }
      if (counter != null) {
        counter.incrementErrors();
      }
    }
    free(slot);
  }

  private void free(int slot) {
    contexts[slot] = null;
    results[slot] = null;
    MemorySegment[] more = moreResults[slot];
    if (more != null && more[0] != null) {
      java.util.Arrays.fill(more, null);
    }
    queues[slot] = null;
    counters[slot] = null;
    mayHaveApplied[slot] = false;
    timedOut[slot] = false;
    peers[slot] = null;
    status[slot] = 0; // before the release: an early completion of the slot's next use sets it
    INTS.setRelease(state, slot, FREE);
  }
}
