package dev.fiucx.completion;

import dev.fiucx.CqErrEntry;
import dev.fiucx.FiErrno;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * An endpoint's operations in flight, one slot each, until every element has completed; then the
 * slot writes the operation's completion (or error entry) and moves its counter. A slot counts its
 * pending elements plus one guard that the posting thread holds until it has posted them all, so an
 * operation cannot finish while it is still being posted. One thread posts; completions may arrive
 * on another (a progress thread). Nothing here allocates on success.
 */
public final class PendingOperations {
  private static final int FREE = 0;
  private static final int BUSY = 1;
  private static final int GUARD = 1 << 30;

  private final Object[] contexts;
  private final CompletionRing[] queues;
  private final boolean[] reserved;
  private final CompletionCounter[] counters;
  private final long[] cqFlags;
  private final AtomicIntegerArray remaining;
  private final AtomicIntegerArray status;
  private final AtomicIntegerArray state;
  private final int mask;
  private int cursor;

  /** Room for {@code capacity} operations in flight (rounded up to a power of two). */
  public PendingOperations(int capacity) {
    int n = Integer.highestOneBit(Math.max(2, capacity) - 1) << 1;
    contexts = new Object[n];
    queues = new CompletionRing[n];
    reserved = new boolean[n];
    counters = new CompletionCounter[n];
    cqFlags = new long[n];
    remaining = new AtomicIntegerArray(n);
    status = new AtomicIntegerArray(n);
    state = new AtomicIntegerArray(n);
    mask = n - 1;
  }

  /**
   * Opens a slot for one operation, holding its guard.
   *
   * @param queue where the completion or error goes, or null when no CQ is bound
   * @param reservedCompletion whether room was reserved in {@code queue} for a success entry
   * @param counter the counter to move, or null
   * @return the slot, or {@code -FI_EAGAIN} when every slot is in flight
   */
  public int open(
      Object context,
      CompletionRing queue,
      boolean reservedCompletion,
      CompletionCounter counter,
      long flags) {
    for (int probe = 0; probe <= mask; probe++) {
      int s = (cursor + probe) & mask;
      if (state.get(s) == FREE) {
        cursor = s + 1;
        contexts[s] = context;
        queues[s] = queue;
        reserved[s] = reservedCompletion;
        counters[s] = counter;
        cqFlags[s] = flags;
        // release stores: other threads touch the slot only after a completion that UCX hands
        // them, which follows the post that follows these stores
        status.setRelease(s, 0);
        remaining.setRelease(s, GUARD);
        state.setRelease(s, BUSY);
        return s;
      }
    }
    return -FiErrno.EAGAIN;
  }

  /** Records a failure of {@code slot}; the first one is what the error entry reports. */
  public void fail(int slot, int errno) {
    status.compareAndSet(slot, 0, errno < 0 ? errno : -errno);
  }

  /** A pending element completed with {@code status} (0 or a negative {@code fi_errno}). */
  public void completed(int slot, int elementStatus) {
    if (elementStatus != 0) {
      fail(slot, elementStatus);
    }
    if (remaining.decrementAndGet(slot) == 0) {
      finish(slot);
    }
  }

  /**
   * The posting thread is done posting {@code slot}, of whose elements {@code pendingElements} will
   * be reported by {@link #completed}: releases the guard.
   */
  public void posted(int slot, int pendingElements) {
    if (remaining.addAndGet(slot, pendingElements - GUARD) == 0) {
      finish(slot);
    }
  }

  /** Frees a slot whose operation posted nothing; gives back its completion reservation. */
  public void cancel(int slot) {
    if (reserved[slot]) {
      queues[slot].release();
    }
    free(slot);
  }

  /** Operations posted and not yet finished (a scan: for fences and close, not the hot path). */
  public int inFlight() {
    int n = 0;
    for (int s = 0; s <= mask; s++) {
      n += state.get(s);
    }
    return n;
  }

  private void finish(int slot) {
    int st = status.get(slot);
    CompletionRing q = queues[slot];
    CompletionCounter counter = counters[slot];
    if (st == 0) {
      if (reserved[slot]) {
        q.complete(contexts[slot], cqFlags[slot], 0);
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
        if (reserved[slot]) {
          q.fail(e);
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
    queues[slot] = null;
    counters[slot] = null;
    state.setRelease(slot, FREE);
  }
}
