package dev.fiucx.perf.jmh;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.fiucx.AtomicFamily;
import dev.fiucx.CompletionQueue;
import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.DomainAttr;
import dev.fiucx.Endpoint;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One atomic call of the public API over UCX shared memory ({@link ShmPair}: the target is a second
 * domain in this JVM, its memory allocated by UCX, so native ops are CPU atomics in the initiator).
 * A subclass names the cell and its {@code count} values; {@code progress} is the initiator's.
 *
 * <ul>
 *   <li>{@link #latency}: post one call, then read the completion queue until it completes; the
 *       time per call with one outstanding.
 *   <li>{@link #window}: keep up to {@value #WINDOW} calls outstanding: post until {@value #WINDOW}
 *       are in flight or the call says {@code -FI_EAGAIN}, then read the completion queue in
 *       batches of up to {@value #WINDOW}; one invocation is one posted call, so the time per
 *       invocation is the inverse of the rate.
 * </ul>
 *
 * The secondary result {@code elements} is the time per element; {@link WorkerAllocationProfiler}
 * adds {@code alloc.worker.norm}, what the benchmark thread allocated per call. Each of the {@value
 * #WINDOW} slots of the window has its own operand, result and target area, so no call reuses a
 * buffer or an element that an outstanding call still uses. After the trial every outstanding call
 * is read, every completion must have named a call in flight, and every target element must hold
 * exactly what the calls made of it; {@link #lastTrial} tells what was checked, and a mismatch
 * fails the trial.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public abstract class PostPathBenchmark {
  /** Calls outstanding in {@link #window}. */
  public static final int WINDOW = 64;

  private static final long DRAIN_NANOS = TimeUnit.SECONDS.toNanos(30);

  /** What the last trial checked after it ran, for tests. */
  public record TrialCheck(
      String benchmark,
      DomainAttr.Progress progress,
      int count,
      long posted,
      long completed,
      long elementsChecked,
      String error) {}

  /** The last trial's check in this JVM (a test runs JMH without forks and reads it). */
  public static volatile TrialCheck lastTrial;

  @Param({"AUTO", "MANUAL"})
  public DomainAttr.Progress progress;

  /** Elements per call. */
  protected abstract int count();

  private final AtomicFamily family;
  private final FiOp cellOp;
  private final FiDatatype cellDatatype;

  /**
   * @param family {@link AtomicFamily#BASE} ({@code fi_atomic}) or {@link AtomicFamily#FETCH}
   */
  protected PostPathBenchmark(AtomicFamily family, FiOp op, FiDatatype datatype) {
    this.family = family;
    this.cellOp = op;
    this.cellDatatype = datatype;
  }

  /** Fills an operand buffer once, at set-up. */
  protected abstract void initOperand(MemorySegment operand, int count);

  /**
   * Writes the operand of call number {@code seq} (1, 2, ...) just before it is posted; by default
   * the operand never changes.
   */
  protected void prepareOperand(MemorySegment operand, int count, long seq) {}

  /**
   * Null when the target element at {@code offset} holds what {@code posts} calls, the last one
   * numbered {@code lastSeq}, leave in a zeroed element; else what is wrong.
   */
  protected abstract String check(MemorySegment target, long offset, long posts, long lastSeq);

  /** A call's context: its window slot. */
  private record Slot(int index) {}

  private ShmPair pair;
  private Arena arena;
  private Endpoint ep;
  private CompletionQueue cq;
  private boolean fetch;
  private FiOp op;
  private FiDatatype datatype;
  private int count;
  private long areaBytes;
  private long key;
  private long peer;
  private long expectedFlags;
  private MemorySegment[] operands;
  private MemorySegment[] results;
  private Slot[] slots;
  private final CqEntry[] entries = new CqEntry[WINDOW];
  private final int[] free = new int[WINDOW];
  private int freeTop;
  private final boolean[] inFlight = new boolean[WINDOW];
  private final long[] postsPerSlot = new long[WINDOW];
  private final long[] lastSeqPerSlot = new long[WINDOW];
  private long seq;
  private long completions;

  @Setup(Level.Trial)
  public void open() {
    count = count();
    op = cellOp;
    datatype = cellDatatype;
    fetch = family == AtomicFamily.FETCH;
    expectedFlags = FiFlags.ATOMIC | (fetch ? FiFlags.READ : FiFlags.WRITE);
    int size = datatype.size();
    areaBytes = ((long) count * size + 7) & ~7L;
    pair = new ShmPair(progress, WINDOW * areaBytes, 2 * WINDOW);
    ep = pair.ep;
    cq = pair.cq;
    key = pair.region.key();
    peer = pair.peer;
    arena = Arena.ofShared();
    operands = new MemorySegment[WINDOW];
    results = new MemorySegment[WINDOW];
    slots = new Slot[WINDOW];
    for (int s = 0; s < WINDOW; s++) {
      operands[s] = arena.allocate(areaBytes, 16);
      results[s] = arena.allocate(areaBytes, 16);
      initOperand(operands[s], count);
      slots[s] = new Slot(s);
      free[s] = WINDOW - 1 - s;
    }
    freeTop = WINDOW;
    for (int i = 0; i < WINDOW; i++) {
      entries[i] = new CqEntry();
    }
  }

  /** One call with one outstanding: post, then read the completion queue until it completes. */
  @Benchmark
  public long latency(Elements elements, WorkerAllocation allocation) {
    int s = free[--freeTop];
    long n = seq + 1;
    prepareOperand(operands[s], count, n);
    int rc = post(s);
    if (rc != 0) {
      freeTop++;
      throw failure("post", rc);
    }
    posted(s, n);
    while (true) {
      int got = cq.read(entries, 1);
      if (got == 1) {
        reap(entries[0]);
        break;
      }
      if (got != -FiErrno.EAGAIN) {
        throw failure("cq read", got);
      }
    }
    elements.elements += count;
    allocation.calls++;
    return results[s].get(JAVA_LONG, 0);
  }

  /**
   * One call posted with up to {@value #WINDOW} outstanding: when the window is full or the call
   * says {@code -FI_EAGAIN}, read completions (a batch of up to {@value #WINDOW}) first.
   */
  @Benchmark
  public int window(Elements elements, WorkerAllocation allocation) {
    while (true) {
      if (freeTop > 0) {
        int s = free[freeTop - 1];
        long n = seq + 1;
        prepareOperand(operands[s], count, n);
        int rc = post(s);
        if (rc == 0) {
          freeTop--;
          posted(s, n);
          elements.elements += count;
          allocation.calls++;
          return freeTop;
        }
        if (rc != -FiErrno.EAGAIN) {
          throw failure("post", rc);
        }
      }
      int got = cq.read(entries, WINDOW);
      for (int i = 0; i < got; i++) {
        reap(entries[i]);
      }
      if (got < 0 && got != -FiErrno.EAGAIN) {
        throw failure("cq read", got);
      }
    }
  }

  private int post(int s) {
    long addr = s * areaBytes;
    return fetch
        ? ep.fetchAtomic(
            operands[s], count, null, results[s], null, peer, addr, key, datatype, op, slots[s])
        : ep.atomic(operands[s], count, null, peer, addr, key, datatype, op, slots[s]);
  }

  private void posted(int s, long n) {
    seq = n;
    inFlight[s] = true;
    postsPerSlot[s]++;
    lastSeqPerSlot[s] = n;
  }

  private void reap(CqEntry e) {
    if (!(e.opContext instanceof Slot slot) || !inFlight[slot.index()]) {
      throw new IllegalStateException("a completion for no call in flight: " + e);
    }
    if (e.flags != expectedFlags) {
      throw new IllegalStateException(
          "completion flags 0x" + Long.toHexString(e.flags) + ", expected 0x" + expectedFlags);
    }
    e.opContext = null;
    inFlight[slot.index()] = false;
    free[freeTop++] = slot.index();
    completions++;
  }

  /** The subclass's name: JMH runs a generated subclass of it. */
  private String benchmarkName() {
    Class<?> c = getClass();
    while (c.getSuperclass() != PostPathBenchmark.class) {
      c = c.getSuperclass();
    }
    return c.getSimpleName();
  }

  private IllegalStateException failure(String what, int rc) {
    String detail = FiErrno.errorString(rc);
    if (rc == -FiErrno.EAVAIL) {
      CqErrEntry err = new CqErrEntry();
      if (cq.readErr(err) == 1) {
        detail += ": " + err.err + " " + err.errData;
      }
    }
    return new IllegalStateException(what + " returned " + rc + " (" + detail + ")");
  }

  /** Reads every outstanding completion, checks the target, and closes both domains. */
  @TearDown(Level.Trial)
  public void close() {
    String error = null;
    long checked = 0;
    try {
      long deadline = System.nanoTime() + DRAIN_NANOS;
      while (completions < seq && System.nanoTime() - deadline < 0) {
        int got = cq.read(entries, WINDOW);
        for (int i = 0; i < got; i++) {
          reap(entries[i]);
        }
        if (got < 0 && got != -FiErrno.EAGAIN) {
          throw failure("cq read", got);
        }
      }
      if (completions != seq) {
        error = completions + " completions for " + seq + " calls";
      }
      MemorySegment target = pair.region.segment();
      int size = datatype.size();
      for (int s = 0; s < WINDOW && error == null; s++) {
        for (int i = 0; i < count && error == null; i++) {
          long offset = s * areaBytes + (long) i * size;
          String wrong = check(target, offset, postsPerSlot[s], lastSeqPerSlot[s]);
          if (wrong != null) {
            error =
                "slot " + s + " element " + i + " after " + postsPerSlot[s] + " calls: " + wrong;
          }
          checked++;
        }
      }
    } catch (RuntimeException e) {
      error = String.valueOf(e);
    } finally {
      lastTrial =
          new TrialCheck(benchmarkName(), progress, count, seq, completions, checked, error);
      pair.close();
      arena.close();
    }
    if (error != null) {
      throw new IllegalStateException(benchmarkName() + ": " + error);
    }
  }
}
