package dev.fiucx.completion;

/**
 * Where an endpoint's operation latencies go while they are timed (metrics set one): called once
 * per operation that ended, by the thread that ended it (the poster or the one progressing), so an
 * implementation takes concurrent calls and should neither block nor allocate after a cell's first.
 */
@FunctionalInterface
public interface LatencyRecorder {
  /**
   * @param cell the operation's cell index ({@link OperationCounts#index})
   * @param nanos its time from post to end
   */
  void record(int cell, long nanos);
}
