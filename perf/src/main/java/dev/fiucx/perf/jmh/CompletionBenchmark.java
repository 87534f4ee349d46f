package dev.fiucx.perf.jmh;

import dev.fiucx.CqEntry;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.completion.CompletionRing;
import dev.fiucx.completion.PendingOperations;
import dev.fiucx.spi.Progress;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * The completion bookkeeping of one call, single thread, no transport: core's {@link
 * CompletionRing} (the completion queue) and {@link PendingOperations} (the endpoint's calls in
 * flight), as the engine uses them for a call of one element that completes while it is posted.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class CompletionBenchmark {
  private static final long FLAGS = FiFlags.ATOMIC | FiFlags.READ;

  private final Object context = new Object();
  private final CqEntry[] entries = {new CqEntry()};
  private CompletionRing ring;
  private PendingOperations pending;

  /** Automatic progress's thread model (atomic read-modify-writes) or manual's (plain). */
  @Param({"true", "false"})
  public boolean concurrent;

  @Setup(Level.Trial)
  public void open() {
    ring = new CompletionRing(256, Progress.NONE, concurrent);
    pending = new PendingOperations(4096, concurrent);
  }

  /** The ring alone: reserve room, write a success, read it. */
  @Benchmark
  public Object ring() {
    if (!ring.reserve()) {
      throw new IllegalStateException("ring full");
    }
    ring.complete(context, FLAGS, 8);
    return read();
  }

  /**
   * The pending-operations table alone (no completion queue bound): open a slot for one element,
   * which the transport finished during the post, so the post's end finishes the slot.
   */
  @Benchmark
  public int pending() {
    int slot = pending.open(context, null, false, null, FLAGS, 1, true, null);
    if (slot < 0) {
      throw new IllegalStateException("no slot: " + slot);
    }
    pending.posted(slot, 1, 0);
    return slot;
  }

  /**
   * The whole bookkeeping of one call that completes while it is posted: reserve room in the ring,
   * open a slot for its one element, the post ends with the element done (the slot writes its
   * completion into the ring), then the reader reads it.
   */
  @Benchmark
  public Object pendingAndRing() {
    if (!ring.reserve()) {
      throw new IllegalStateException("ring full");
    }
    int slot = pending.open(context, ring, true, null, FLAGS, 1, true, null);
    if (slot < 0) {
      throw new IllegalStateException("no slot: " + slot);
    }
    pending.posted(slot, 1, 0);
    return read();
  }

  /**
   * The same for a call whose element completes after the post has ended, as under a progress
   * thread or a transport that answers later: open, posted, then completed.
   */
  @Benchmark
  public Object pendingAndRingLateCompletion() {
    if (!ring.reserve()) {
      throw new IllegalStateException("ring full");
    }
    int slot = pending.open(context, ring, true, null, FLAGS, 1, true, null);
    if (slot < 0) {
      throw new IllegalStateException("no slot: " + slot);
    }
    pending.posted(slot, 1, 1);
    pending.completed(slot, 0);
    return read();
  }

  private Object read() {
    int n = ring.read(entries, 1);
    if (n != 1 || entries[0].opContext != context) {
      throw new IllegalStateException("read " + n + " (" + FiErrno.errorString(n) + ")");
    }
    return entries[0].opContext;
  }
}
