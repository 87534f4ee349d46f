package dev.fiucx.spi;

/**
 * Drives a provider forward: under manual progress, reading a CQ or counter calls it; under
 * automatic progress a provider thread does and readers get {@link #NONE}.
 */
@FunctionalInterface
public interface Progress {
  /** Progress that does nothing, for automatic progress. */
  Progress NONE = () -> 0;

  /** {@return how many events were processed: makes what progress can be made now} */
  int progress();

  /**
   * After a {@link #progress} that found nothing, by the thread that progresses: blocks until
   * progress may find something, or {@code timeoutNanos} pass. Returns false when this progress
   * cannot wait, and the caller pauses by itself.
   *
   * @param timeoutNanos the longest wait
   * @return whether it waited
   */
  default boolean await(long timeoutNanos) {
    return false;
  }

  /** Ends another thread's {@link #await} early. */
  default void interruptAwait() {}
}
