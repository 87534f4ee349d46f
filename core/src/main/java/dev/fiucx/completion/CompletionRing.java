package dev.fiucx.completion;

import dev.fiucx.CompletionQueue;
import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.FiErrno;
import dev.fiucx.spi.Progress;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A completion queue: a multi-producer single-consumer ring of successful completions and a queue
 * of error entries. Producers are the posting thread (operations that complete at once) and whoever
 * progresses the provider (a progress thread under automatic progress); the consumer is the reader.
 * A producer claims a slot, fills it and publishes it through the slot's sequence number, so the
 * reader never sees a half-written entry. Writing a success allocates nothing. Room is reserved
 * when an operation is posted ({@link #reserve}), so a completion never finds the ring full.
 *
 * <p>The thread model is chosen at open, as Aeron's exclusive and concurrent publications are. A
 * concurrent ring (automatic progress: posting threads and the progress thread write) claims slots
 * and counts reservations with atomic read-modify-writes. A single-threaded ring (manual progress,
 * where one thread at a time uses the domain's endpoints, queues and counters, as its
 * single-threaded UCX worker demands) does the same bookkeeping with plain loads and stores and one
 * release store per published entry.
 */
public final class CompletionRing implements CompletionQueue {
  private static final VarHandle TAIL;
  private static final VarHandle HEAD;
  private static final VarHandle RESERVED;
  private static final VarHandle PUBLISHED = MethodHandles.arrayElementVarHandle(long[].class);

  static {
    try {
      MethodHandles.Lookup l = MethodHandles.lookup();
      TAIL = l.findVarHandle(CompletionRing.class, "tail", long.class);
      HEAD = l.findVarHandle(CompletionRing.class, "head", long.class);
      RESERVED = l.findVarHandle(CompletionRing.class, "reserved", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final Object[] contexts;
  private final long[] flags;
  private final long[] lengths;
  private final int mask;
  private final boolean concurrent;

  /** Per slot: the position whose entry it holds, plus one, once that entry is readable. */
  private final long[] published;

  private final Progress progress;
  private final ConcurrentLinkedQueue<CqErrEntry> errors = new ConcurrentLinkedQueue<>();

  // producer and consumer counters, each on a cache line of its own
  @SuppressWarnings("unused")
  private long p01, p02, p03, p04, p05, p06, p07;

  /** Next slot to claim; producers move it. */
  private long tail;

  @SuppressWarnings("unused")
  private long p11, p12, p13, p14, p15, p16, p17;

  /** Slots promised to posted operations plus slots holding unread completions. */
  private long reserved;

  @SuppressWarnings("unused")
  private long p21, p22, p23, p24, p25, p26, p27;

  /** Next slot to read; only the consumer moves it. */
  private long head;

  @SuppressWarnings("unused")
  private long p31, p32, p33, p34, p35, p36, p37;

  private volatile boolean closed;

  /** Reads so far, counted by the one reader. */
  private int reads;

  /**
   * A concurrent ring: any thread may write completions.
   *
   * @param size at least this many completions fit (rounded up to a power of two)
   * @param progress called by reads that find nothing: the domain's progress
   */
  public CompletionRing(int size, Progress progress) {
    this(size, progress, true);
  }

  /**
   * @param concurrent false when one thread at a time posts, progresses and reads (manual progress)
   */
  public CompletionRing(int size, Progress progress, boolean concurrent) {
    int capacity = Integer.highestOneBit(Math.max(2, size) - 1) << 1;
    this.contexts = new Object[capacity];
    this.flags = new long[capacity];
    this.lengths = new long[capacity];
    this.mask = capacity - 1;
    this.published = new long[capacity];
    this.progress = progress;
    this.concurrent = concurrent;
  }

  /** Room for one more completion: true when promised, false when the queue would overrun. */
  public boolean reserve() {
    if (!concurrent) {
      if (reserved >= contexts.length) {
        return false;
      }
      reserved++;
      return true;
    }
    while (true) {
      long r = (long) RESERVED.getVolatile(this);
      if (r >= contexts.length) {
        return false;
      }
      if (RESERVED.compareAndSet(this, r, r + 1)) {
        return true;
      }
    }
  }

  /** Gives back a reservation whose operation will write no completion. */
  public void release() {
    unreserve(1);
  }

  private void unreserve(long n) {
    if (concurrent) {
      RESERVED.getAndAdd(this, -n);
    } else {
      reserved -= n;
    }
  }

  /** Writes a success into a reserved slot. Producer side. */
  public void complete(Object context, long opFlags, long len) {
    long t;
    if (concurrent) {
      t = (long) TAIL.getAndAdd(this, 1L);
    } else {
      t = tail;
      tail = t + 1;
    }
    int i = (int) (t & mask);
    contexts[i] = context;
    flags[i] = opFlags;
    lengths[i] = len;
    PUBLISHED.setRelease(published, i, t + 1);
  }

  /** Writes an error entry, giving back its reservation. */
  public void fail(CqErrEntry entry) {
    failUnreserved(entry);
    unreserve(1);
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
    int n = drain(entries, 0, max);
    // a read that finds nothing progresses, and so does every 64th read: when every operation
    // completes at once (CPU atomics on a mapped region) the queue is never empty, yet the peer's
    // control messages (a key's revocation) must still be handled
    if (n == 0 && errors.isEmpty() || (++reads & 63) == 0) {
      progress.progress();
      n += drain(entries, n, max - n);
    }
    if (n > 0) {
      return n;
    }
    return errors.isEmpty() ? -FiErrno.EAGAIN : -FiErrno.EAVAIL;
  }

  /** Moves up to {@code max} readable entries into {@code entries} from index {@code from}. */
  private int drain(CqEntry[] entries, int from, int max) {
    long h = head;
    int limit = Math.min(max, entries.length - from);
    int n = 0;
    while (n < limit) {
      int i = (int) ((h + n) & mask);
      if ((long) PUBLISHED.getAcquire(published, i) != h + n + 1) {
        break;
      }
      CqEntry e = entries[from + n];
      e.opContext = contexts[i];
      e.flags = flags[i];
      e.len = lengths[i];
      contexts[i] = null;
      n++;
    }
    if (n > 0) {
      HEAD.setRelease(this, h + n);
      unreserve(n);
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
    // read first: a completion already there costs no clock read
    int n = read(entries, max);
    if (n != -FiErrno.EAGAIN || closed) {
      return n;
    }
    long deadline =
        timeoutMillis < 0 ? Long.MAX_VALUE : System.nanoTime() + timeoutMillis * 1_000_000;
    while (true) {
      n = read(entries, max);
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
