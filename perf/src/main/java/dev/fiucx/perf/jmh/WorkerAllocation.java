package dev.fiucx.perf.jmh;

import java.lang.management.ManagementFactory;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The bytes the benchmark thread itself allocated per call in an iteration, as the secondary result
 * {@code workerBytesPerCall}. {@code -prof gc}'s {@code gc.alloc.rate.norm} counts every thread of
 * the JVM (JMH's own per-iteration work, the progress threads) and divides by the calls, which are
 * few when a call is slow (large counts, emulation): tens of kilobytes per iteration show as
 * several bytes per call there. This counter tells the calls' own allocation apart.
 */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.EVENTS)
public class WorkerAllocation {
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  /** Calls made so far; the benchmark counts them. */
  long calls;

  private long startCalls;
  private long startBytes;
  private double perCall = Double.NaN;

  @Setup(Level.Iteration)
  public void start() {
    startCalls = calls;
    startBytes = THREADS.getCurrentThreadAllocatedBytes();
  }

  @TearDown(Level.Iteration)
  public void stop() {
    long bytes = THREADS.getCurrentThreadAllocatedBytes() - startBytes;
    long n = calls - startCalls;
    perCall = n == 0 ? Double.NaN : (double) bytes / n;
  }

  /** Bytes per call allocated by the benchmark thread in the last iteration. */
  public double workerBytesPerCall() {
    return perCall;
  }
}
