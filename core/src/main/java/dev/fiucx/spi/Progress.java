package dev.fiucx.spi;

/**
 * Drives a provider forward: under manual progress, reading a CQ or counter calls it; under
 * automatic progress a provider thread does and readers get {@link #NONE}.
 */
@FunctionalInterface
public interface Progress {
  /** Progress that does nothing, for automatic progress. */
  Progress NONE = () -> 0;

  /** Makes what progress can be made now; returns how many events were processed. */
  int progress();
}
