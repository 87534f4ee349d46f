package dev.fiucx.completion;

import dev.fiucx.CompletionQueue;
import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.FiErrno;
import dev.fiucx.spi.Progress;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A completion queue: a multi-producer single-consumer ring of successful completions and a queue
 * of error entries. Producers are the posting thread (operations that complete at once) and whoever
 * progresses the provider (a progress thread under automatic progress); the consumer is the reader.
 * A producer claims a slot, fills it and publishes it through the slot's sequence number, so the
 * reader never sees a half-written entry. Writing a success allocates nothing. Room is reserved
 * when an operation is posted ({@link #reserve}), so a completion never finds the ring full.
 */
public final class CompletionRing implements CompletionQueue {
  private final Object[] contexts;
  private final long[] flags;
  private final long[] lengths;
  private final int mask;

  /** Per slot: the position whose entry it holds, plus one, once that entry is readable. */
  private final AtomicLongArray published;

  private final Progress progress;
  private final ConcurrentLinkedQueue<CqErrEntry> errors = new ConcurrentLinkedQueue<>();

  /** Next slot to claim; producers move it. */
  private final AtomicLong tail = new AtomicLong();

  /** Next slot to read; only the consumer moves it. */
  private final AtomicLong head = new AtomicLong();

  /** Slots promised to posted operations plus slots holding unread completions. */
  private final AtomicLong reserved = new AtomicLong();

  private volatile boolean closed;

  /**
   * @param size at least this many completions fit (rounded up to a power of two)
   * @param progress called by reads when the domain progresses manually; {@link Progress#NONE}
   *     under automatic progress
   */
  public CompletionRing(int size, Progress progress) {
    int capacity = Integer.highestOneBit(Math.max(2, size) - 1) << 1;
    this.contexts = new Object[capacity];
    this.flags = new long[capacity];
    this.lengths = new long[capacity];
    this.mask = capacity - 1;
    this.published = new AtomicLongArray(capacity);
    this.progress = progress;
  }

  /** Room for one more completion: true when promised, false when the queue would overrun. */
  public boolean reserve() {
    while (true) {
      long r = reserved.get();
      if (r >= contexts.length) {
        return false;
      }
      if (reserved.compareAndSet(r, r + 1)) {
        return true;
      }
    }
  }

  /** Gives back a reservation whose operation will write no completion. */
  public void release() {
    reserved.decrementAndGet();
  }

  /** Writes a success into a reserved slot. Producer side, any thread. */
  public void complete(Object context, long opFlags, long len) {
    long t = tail.getAndIncrement();
    int i = (int) (t & mask);
    contexts[i] = context;
    flags[i] = opFlags;
    lengths[i] = len;
    published.lazySet(i, t + 1);
  }

  /** Writes an error entry, giving back its reservation. */
  public void fail(CqErrEntry entry) {
    failUnreserved(entry);
    reserved.decrementAndGet();
  }

  /**
   * Writes an error entry for an operation that reserved no room (it asked for no completion):
   * errors are reported whether or not a completion was asked for.
   */
  public void failUnreserved(CqErrEntry entry) {
    errors.add(entry);
  }

  @Override
  public int read(CqEntry[] entries, int max) {
    int n = drain(entries, max);
    if (n == 0 && errors.isEmpty()) {
      progress.progress();
      n = drain(entries, max);
    }
    if (n > 0) {
      return n;
    }
    return errors.isEmpty() ? -FiErrno.EAGAIN : -FiErrno.EAVAIL;
  }

  private int drain(CqEntry[] entries, int max) {
    long h = head.get();
    int limit = Math.min(max, entries.length);
    int n = 0;
    while (n < limit) {
      int i = (int) ((h + n) & mask);
      if (published.get(i) != h + n + 1) {
        break;
      }
      CqEntry e = entries[n];
      e.opContext = contexts[i];
      e.flags = flags[i];
      e.len = lengths[i];
      contexts[i] = null;
      n++;
    }
    if (n > 0) {
      head.lazySet(h + n);
      reserved.addAndGet(-n);
    }
    return n;
  }

  @Override
  public int readErr(CqErrEntry entry) {
    CqErrEntry e = errors.poll();
    if (e == null) {
      return -FiErrno.EAGAIN;
    }
    entry.opContext = e.opContext;
    entry.flags = e.flags;
    entry.len = e.len;
    entry.err = e.err;
    entry.provErrno = e.provErrno;
    entry.errData = e.errData;
    return 1;
  }

  @Override
  public int sread(CqEntry[] entries, int max, long timeoutMillis) {
    long deadline =
        timeoutMillis < 0 ? Long.MAX_VALUE : System.nanoTime() + timeoutMillis * 1_000_000;
    while (true) {
      int n = read(entries, max);
      if (n != -FiErrno.EAGAIN || closed) {
        return n;
      }
      if (System.nanoTime() - deadline >= 0) {
        return -FiErrno.EAGAIN;
      }
      Thread.onSpinWait();
    }
  }

  @Override
  public void close() {
    closed = true;
  }
}
