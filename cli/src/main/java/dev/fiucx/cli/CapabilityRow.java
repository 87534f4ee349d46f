package dev.fiucx.cli;

import dev.fiucx.semantics.AtomicCell;

/** One cell of {@code info --json}: libfabric's names, the count and size, the mechanism. */
record CapabilityRow(
    String family,
    String op,
    String datatype,
    boolean valid,
    long count,
    int size,
    String mechanism,
    String reason) {

  static CapabilityRow of(AtomicCell c) {
    return new CapabilityRow(
        c.family().label(),
        c.op().fiName(),
        c.datatype().fiName(),
        c.valid(),
        c.count(),
        c.size(),
        c.mechanism() == null ? null : c.mechanism().name(),
        c.reason());
  }
}
