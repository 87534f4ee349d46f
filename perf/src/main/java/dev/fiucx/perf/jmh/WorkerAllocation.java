package dev.fiucx.perf.jmh;

import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What the benchmark thread itself allocates during an iteration's calls, for {@link
 * WorkerAllocationProfiler}: measured from the iteration's set-up to its tear-down, so neither the
 * trial's set-up nor its tear-down (opening and closing domains) is counted. {@code -prof gc}'s
 * {@code gc.alloc.rate.norm} counts every thread of the JVM (JMH's own per-iteration work in its
 * main thread, tens of kilobytes) and divides by the calls, which are few when a call is slow: it
 * shows several bytes per call there where the calls allocate nothing.
 */
@State(Scope.Thread)
public class WorkerAllocation {
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  private static final AtomicLong BYTES = new AtomicLong();
  private static final AtomicLong CALLS = new AtomicLong();

  /** Calls made so far; the benchmark counts them. */
  long calls;

  private long startCalls;
  private long startBytes;

  @Setup(Level.Iteration)
  public void start() {
    startCalls = calls;
    startBytes = THREADS.getCurrentThreadAllocatedBytes();
  }

  @TearDown(Level.Iteration)
  public void stop() {
    BYTES.addAndGet(THREADS.getCurrentThreadAllocatedBytes() - startBytes);
    CALLS.addAndGet(calls - startCalls);
  }

  /** Bytes and calls of the benchmark threads since the last take. */
  record Totals(long bytes, long calls) {}

  static Totals take() {
    return new Totals(BYTES.getAndSet(0), CALLS.getAndSet(0));
  }
}
