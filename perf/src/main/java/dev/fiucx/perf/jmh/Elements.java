package dev.fiucx.perf.jmh;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Elements carried out, counted as JMH operations: in average-time mode JMH reports them as the
 * secondary result {@code elements}, the time per element (the primary result divided by count).
 */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.OPERATIONS)
public class Elements {
  /** Elements of the calls completed or posted in this iteration. */
  public long elements;

  @Setup(Level.Iteration)
  public void reset() {
    elements = 0;
  }
}
