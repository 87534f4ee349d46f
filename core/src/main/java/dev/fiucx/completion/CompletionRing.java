package dev.fiucx.completion;

import dev.fiucx.CompletionQueue;
import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.FiErrno;
import dev.fiucx.spi.Progress;
import dev.fiucx.validation.CallGuard;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A completion queue: rings of successful completions and a queue of error entries. Producers are
 * the posting thread (operations that complete at once) and whoever progresses the provider (a
 * progress thread under automatic progress); the consumer is the reader. A producer fills a slot
 * and publishes it through the slot's sequence number, so the reader never sees a half-written
 * entry. Writing a success allocates nothing. Room is reserved when an operation is posted ({@link
 * #reserve}), so a completion never finds the ring full.
 *
 * <p>Who may write is chosen when the queue opens and its endpoints bind, as Aeron's exclusive and
 * concurrent publications are ({@link Producers}). The fewer the writers, the fewer the atomic
 * read-modify-writes: none at all for one thread (manual progress), none on the poster's side for
 * one posting endpoint beside a progress thread (automatic progress), and a claim per entry and a
 * compare-and-swap per reservation when several endpoints post.
 *
 * <p>One thread reads at a time. A queue of a manual-progress or {@code threading=safe} domain
 * reads inside the domain's {@link CallGuard}: a second thread is refused ({@code -FI_EBUSY}) or
 * waits, instead of racing the single-threaded bookkeeping and UCX worker.
 */
public final class CompletionRing implements CompletionQueue {
  /** Who writes the queue. */
  public enum Producers {
    /**
     * One thread at a time posts, progresses and reads (manual progress, whose UCX worker is
     * single-threaded): plain loads and stores, one release store per published entry.
     */
    ONE_THREAD,
    /**
     * One posting endpoint and the progress (automatic progress): the poster writes its own lane
     * and reservations with plain stores; completions made by progress go to a second lane, claimed
     * atomically (several threads may progress: the progress thread, readers, a key resolution).
     */
    ONE_POSTER,
    /** Several posting endpoints (automatic progress): every claim and reservation is atomic. */
    MANY
  }

  private static final VarHandle PUBLISHED = MethodHandles.arrayElementVarHandle(long[].class);
  private static final VarHandle RESERVED;
  private static final VarHandle RELEASED;
  private static final VarHandle GIVEN_BACK;

  static {
    try {
      MethodHandles.Lookup l = MethodHandles.lookup();
      RESERVED = l.findVarHandle(CompletionRing.class, "reserved", long.class);
      RELEASED = l.findVarHandle(CompletionRing.class, "released", long.class);
      GIVEN_BACK = l.findVarHandle(CompletionRing.class, "givenBack", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** One ring of entries: a producer side (tail) and the reader's side (head). */
  private static final class Lane {
    private static final VarHandle TAIL;
    private static final VarHandle HEAD;

    static {
      try {
        MethodHandles.Lookup l = MethodHandles.lookup();
        TAIL = l.findVarHandle(Lane.class, "tail", long.class);
        HEAD = l.findVarHandle(Lane.class, "head", long.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    final Object[] contexts;
    final long[] flags;
    final long[] lengths;

    /**
     * Per slot: the position whose entry it holds, plus one, once that entry is readable; null for
     * a lane one thread at a time writes and reads, whose readable entries are those before the
     * tail (a store less per entry, and the next call's atomic waits for one store less).
     */
    final long[] published;

    final int mask;

    @SuppressWarnings("unused")
    private long p01, p02, p03, p04, p05, p06, p07;

    /** Next slot to fill; producers move it. */
    private long tail;

    @SuppressWarnings("unused")
    private long p11, p12, p13, p14, p15, p16, p17;

    /** Next slot to read; only the reader moves it. */
    private long head;

    @SuppressWarnings("unused")
    private long p21, p22, p23, p24, p25, p26, p27;

    Lane(int capacity, boolean oneThread) {
      contexts = new Object[capacity];
      flags = new long[capacity];
      lengths = new long[capacity];
      published = oneThread ? null : new long[capacity];
      mask = capacity - 1;
    }

    /** Writes and publishes one entry; {@code claim} when several threads may write at once. */
    void write(Object context, long opFlags, long len, boolean claim) {
      long t;
      if (claim) {
        t = (long) TAIL.getAndAdd(this, 1L);
      } else {
        t = tail;
        tail = t + 1;
      }
      int i = (int) (t & mask);
      if (context != null) {
        contexts[i] = context; // a free slot holds null: a read took its context out
      }
      flags[i] = opFlags;
      lengths[i] = len;
      if (published != null) {
        PUBLISHED.setRelease(published, i, t + 1);
      }
    }

    /**
     * Moves the entry at the head into {@code e} when it is readable, for a queue one thread at a
     * time writes and reads ({@link Producers#ONE_THREAD}): plain loads and no loop.
     */
    boolean takeOne(CqEntry e) {
      long h = head;
      if (h == tail) {
        return false;
      }
      moveOut((int) (h & mask), e);
      head = h + 1;
      return true;
    }

    /**
     * Moves slot {@code i}'s entry into {@code e}, taking its context out (a free slot holds null).
     */
    private void moveOut(int i, CqEntry e) {
      Object context = contexts[i];
      e.opContext = context;
      e.flags = flags[i];
      e.len = lengths[i];
      if (context != null) {
        contexts[i] = null;
      }
    }

    /**
     * Moves up to {@code max} readable entries into {@code entries} from index {@code from},
     * stopping at a null element of {@code entries} (the entry stays for the next read).
     */
    int drain(CqEntry[] entries, int from, int max) {
      long h = head;
      int limit = Math.min(max, entries.length - from);
      int n = 0;
      while (n < limit) {
        int i = (int) ((h + n) & mask);
        CqEntry e = entries[from + n];
        if (e == null
            || (published == null
                ? h + n == tail
                : (long) PUBLISHED.getAcquire(published, i) != h + n + 1)) {
          break;
        }
        moveOut(i, e);
        n++;
      }
      if (n > 0) {
        HEAD.setRelease(this, h + n);
      }
      return n;
    }
  }

  private final int capacity;
  private final Lane direct;
  private final Lane progressed;
  private final Progress progress;

  /** Null when the reader is trusted to be one thread at a time (automatic progress). */
  private final CallGuard guard;

  private final ConcurrentLinkedQueue<CqErrEntry> errors = new ConcurrentLinkedQueue<>();
  private Producers producers;
  private int endpoints;

  @SuppressWarnings("unused")
  private long p01, p02, p03, p04, p05, p06, p07;

  /**
   * Reservations made (ONE_POSTER: by the poster, plain); ONE_THREAD and MANY: reservations made
   * minus reservations given back (entries read, operations that wrote none).
   */
  private long reserved;

  @SuppressWarnings("unused")
  private long p11, p12, p13, p14, p15, p16, p17;

  /** ONE_POSTER: reservations whose entries the reader has read (the reader's alone). */
  private long released;

  @SuppressWarnings("unused")
  private long p21, p22, p23, p24, p25, p26, p27;

  /** ONE_POSTER: reservations given back by progress (error entries; rare, atomic). */
  private long givenBack;

  private volatile boolean closed;

  /** Reads so far, counted by the one reader. */
  private int reads;

  /**
   * A queue any thread may write ({@link Producers#MANY}).
   *
   * @param size at least this many completions fit (rounded up to a power of two)
   * @param progress called by reads that find nothing: the domain's progress
   */
  public CompletionRing(int size, Progress progress) {
    this(size, progress, Producers.MANY);
  }

  /**
   * @param concurrent false for {@link Producers#ONE_THREAD}, true for {@link Producers#MANY}
   */
  public CompletionRing(int size, Progress progress, boolean concurrent) {
    this(size, progress, concurrent ? Producers.MANY : Producers.ONE_THREAD);
  }

  public CompletionRing(int size, Progress progress, Producers producers) {
    this(size, progress, producers, null);
  }

  /**
   * @param guard what reads enter (the domain's, under manual progress or {@code threading=safe}),
   *     or null
   */
  public CompletionRing(int size, Progress progress, Producers producers, CallGuard guard) {
    this.guard = guard;
    this.capacity = Integer.highestOneBit(Math.max(2, size) - 1) << 1;
    this.direct = new Lane(capacity, producers == Producers.ONE_THREAD);
    this.progressed = producers == Producers.ONE_POSTER ? new Lane(capacity, false) : null;
    this.progress = progress;
    this.producers = producers;
  }

  /**
   * An endpoint binds this queue ({@code fi_ep_bind}): a second posting endpoint turns {@link
   * Producers#ONE_POSTER} into {@link Producers#MANY}, which only an idle queue can do.
   *
   * @throws IllegalStateException when a second endpoint binds while completions are outstanding
   */
  public synchronized void bindEndpoint() {
    endpoints++;
    if (endpoints > 1 && producers == Producers.ONE_POSTER) {
      if (outstanding() != 0) {
        throw new IllegalStateException(
            "bind every endpoint of an automatic-progress CQ before posting");
      }
      // the progress lane is empty: with nothing reserved, nothing can still be written there
      reserved = 0;
      released = 0;
      givenBack = 0;
      producers = Producers.MANY;
    }
  }

  /** Whether {@code p} is the progress this queue was opened with (its domain's). */
  public boolean progressedBy(Progress p) {
    return progress == p;
  }

  /** Whether {@link #close} was called. */
  public boolean isClosed() {
    return closed;
  }

  /** Who writes this queue now. */
  public Producers producers() {
    return producers;
  }

  /** Completions promised to posted operations or written and not read yet. */
  private long outstanding() {
    return producers == Producers.ONE_POSTER
        ? reserved - (long) RELEASED.getAcquire(this) - (long) GIVEN_BACK.getVolatile(this)
        : (long) RESERVED.getVolatile(this);
  }

  /**
   * Room for one more completion: true when promised, false when the queue would overrun. Called by
   * the poster.
   */
  public boolean reserve() {
    // comparisons, not a switch: an enum switch reads a lookup table on every call
    Producers p = producers;
    if (p == Producers.ONE_THREAD) {
      if (reserved >= capacity) {
        return false;
      }
      reserved++;
      return true;
    }
    if (p == Producers.ONE_POSTER) {
      if (outstanding() >= capacity) {
        return false;
      }
      RESERVED.setRelease(this, reserved + 1);
      return true;
    }
    while (true) {
      long r = (long) RESERVED.getVolatile(this);
      if (r >= capacity) {
        return false;
      }
      if (RESERVED.compareAndSet(this, r, r + 1)) {
        return true;
      }
    }
  }

  /** Gives back a reservation whose operation will write no completion. Called by the poster. */
  public void release() {
    switch (producers) {
      case ONE_THREAD -> reserved--;
      case ONE_POSTER -> RESERVED.setRelease(this, reserved - 1);
      default -> RESERVED.getAndAdd(this, -1L);
    }
  }

  /** Writes a success into a reserved slot. Called by the poster (or under manual progress). */
  public void complete(Object context, long opFlags, long len) {
    direct.write(context, opFlags, len, producers == Producers.MANY);
  }

  /** Writes a success into a reserved slot from progress (a transport or emulation completion). */
  public void completeFromProgress(Object context, long opFlags, long len) {
    switch (producers) {
      case ONE_THREAD -> direct.write(context, opFlags, len, false);
      case ONE_POSTER -> progressed.write(context, opFlags, len, true);
      default -> direct.write(context, opFlags, len, true);
    }
  }

  /** Writes an error entry, giving back its reservation. Called by the poster. */
  public void fail(CqErrEntry entry) {
    failUnreserved(entry);
    release();
  }

  /** Writes an error entry from progress, giving back its reservation. */
  public void failFromProgress(CqErrEntry entry) {
    failUnreserved(entry);
    if (producers == Producers.ONE_POSTER) {
      GIVEN_BACK.getAndAdd(this, 1L);
    } else {
      release();
    }
  }

  /**
   * Writes an error entry for an operation that reserved no room (it asked for no completion):
   * errors are reported whether or not a completion was asked for.
   */
  public void failUnreserved(CqErrEntry entry) {
    errors.add(entry);
  }

  /**
   * {@inheritDoc} {@code -FI_EINVAL} for a null array, a negative {@code max} or a null first
   * entry; {@code -FI_EBUSY} when another thread is inside the domain's guard; {@code
   * -FI_EOPBADSTATE} once closed.
   */
  @Override
  public int read(CqEntry[] entries, int max) {
    if (entries == null || max < 0 || entries.length > 0 && max > 0 && entries[0] == null) {
      return -FiErrno.EINVAL;
    }
    if (closed) {
      return -FiErrno.EOPBADSTATE;
    }
    CallGuard g = guard;
    if (g == null) {
      return readInside(entries, max);
    }
    int rc = g.enter();
    if (rc < 0) {
      return rc;
    }
    try {
      return readInside(entries, max);
    } finally {
      g.exit();
    }
  }

  private int readInside(CqEntry[] entries, int max) {
    // one entry asked of a one-thread queue (a loop with one call in flight): taken without the
    // general drain, which cost bench's one-in-flight loop about 3 ns of its 27 per call here;
    // every 64th entry taken this way progresses, as every 64th read below does
    if (max == 1
        && producers == Producers.ONE_THREAD
        && entries.length > 0
        && direct.takeOne(entries[0])) {
      reserved--;
      if ((direct.head & 63) == 0) {
        progress.progress();
      }
      return 1;
    }
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

  /** Moves readable entries of both lanes into {@code entries} from {@code from}; the reader's. */
  private int drain(CqEntry[] entries, int from, int max) {
    int n = direct.drain(entries, from, max);
    if (progressed != null && n < max) {
      n += progressed.drain(entries, from + n, max - n);
    }
    if (n > 0) {
      Producers p = producers;
      if (p == Producers.ONE_THREAD) {
        reserved -= n;
      } else if (p == Producers.ONE_POSTER) {
        RELEASED.setRelease(this, released + n);
      } else {
        RESERVED.getAndAdd(this, (long) -n);
      }
    }
    return n;
  }

  @Override
  public int readErr(CqErrEntry entry) {
    if (entry == null) {
      return -FiErrno.EINVAL;
    }
    if (closed) {
      return -FiErrno.EOPBADSTATE;
    }
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
    entry.uncertain = e.uncertain;
    return 1;
  }

  /**
   * {@inheritDoc} A timeout of 0 reads once; a negative one, or one too long to count in
   * nanoseconds ({@code Long.MAX_VALUE}), waits until an entry comes or the queue is closed.
   */
  @Override
  public int sread(CqEntry[] entries, int max, long timeoutMillis) {
    // read first: a completion already there costs no clock read
    int n = read(entries, max);
    if (n != -FiErrno.EAGAIN || timeoutMillis == 0) {
      return n;
    }
    long deadline = Deadline.of(timeoutMillis);
    int empty = 0;
    long spinSince = 0;
    while (true) {
      n = read(entries, max);
      if (n != -FiErrno.EAGAIN) {
        return n;
      }
      if (Deadline.passed(deadline)) {
        return -FiErrno.EAGAIN;
      }
      if ((++empty & (SPINS_PER_CLOCK_READ - 1)) != 0) {
        Thread.onSpinWait();
        continue;
      }
      long now = System.nanoTime();
      if (spinSince == 0) {
        spinSince = now;
      } else if (now - spinSince >= SPIN_BEFORE_AWAIT_NANOS) {
        long left = deadline == Deadline.NEVER ? MAX_AWAIT_NANOS : deadline - now;
        await(Math.min(MAX_AWAIT_NANOS, Math.max(0, left)));
      }
    }
  }

  /** Empty reads between two clock reads while spinning. */
  private static final int SPINS_PER_CLOCK_READ = 16;

  /**
   * How long sread spins on empty reads before it sleeps in the transport ({@link Progress#await}):
   * a tcp round trip on loopback takes 12-20 us, so a quiet wait never sleeps; a long one (a remote
   * lock's turn, a target that shares its core with others) gives its core away. On two cores,
   * eight initiators that spun through every wait starved the target and the lock holders they
   * waited for: a tcp round trip took milliseconds.
   */
  public static final long SPIN_BEFORE_AWAIT_NANOS = 30_000;

  /** The longest sleep at a time: a transport that misses a wake-up costs at most this. */
  public static final long MAX_AWAIT_NANOS = 1_000_000;

  /** Sleeps in the transport under the guard that serializes progress; spins where it cannot. */
  private void await(long nanos) {
    CallGuard g = guard;
    if (g != null && g.enter() < 0) {
      Thread.onSpinWait();
      return;
    }
    try {
      if (closed || !progress.await(nanos)) {
        Thread.onSpinWait();
      }
    } finally {
      if (g != null) {
        g.exit();
      }
    }
  }

  @Override
  public void close() {
    closed = true;
  }
}
