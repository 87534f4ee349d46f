package dev.fiucx.perf.bench;

import dev.fiucx.Endpoint;

/**
 * Which path a cell's calls take to one target region: e.g. {@code native (mapped)} for CPU atomics
 * on a region UCX mapped into this process, {@code native (ucp)} for UCX atomics. The engine is
 * growing this answer (issue 10's direct path) and fiucx's public API does not have it yet.
 */
final class AtomicPathProbe {
  /** What bench prints and records while the API has no answer. */
  static final String UNKNOWN = "unknown";

  private AtomicPathProbe() {}

  /**
   * The one place that asks. WIRE HERE: when {@code Endpoint.atomicPath(long destAddr, long key)}
   * lands in core, return {@code ep.atomicPath(destAddr, key)} (its text) instead.
   */
  static String path(Endpoint ep, long destAddr, long key) {
    return UNKNOWN;
  }
}
