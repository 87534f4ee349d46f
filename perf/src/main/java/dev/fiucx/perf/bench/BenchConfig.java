package dev.fiucx.perf.bench;

import dev.fiucx.AtomicFamily;
import dev.fiucx.DomainAttr;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What one measured run does, checked: the cell, elements per call, window, how long, how many
 * threads, and how the initiator's domain opens.
 *
 * @param iterations calls per thread; ignored when {@code duration} is set
 * @param warmup untimed calls per thread before the measurement
 * @param duration run for this long instead of {@code iterations}, or null
 * @param transport {@code shm}, {@code tcp} or a UCX_TLS list, as the domain takes it
 * @param directPath {@code "on"}, {@code "off"}, or null to leave the provider's default
 * @param threading the domain's threading model, or null for the default ({@code endpoint})
 * @param api the calls the loop makes: the fi_atomic mirror's, or the typed layer's
 */
record BenchConfig(
    AtomicFamily family,
    FiOp op,
    FiDatatype datatype,
    int count,
    int window,
    long iterations,
    long warmup,
    int threads,
    String transport,
    DomainAttr.Progress progress,
    Duration duration,
    String directPath,
    DomainAttr.Threading threading,
    Api api) {

  /** Whose calls a run makes ({@code --api}). */
  enum Api {
    /** The fi_atomic(3) mirror: {@code Endpoint}'s calls and a completion queue read. */
    MIRROR,
    /** The typed layer: {@code AtomicRegion}'s blocking calls. */
    TYPED
  }

  /** The domain option that turns the mapped direct path on or off. */
  static final String DIRECT_PATH_OPTION = DomainAttr.DIRECT_PATH_OPTION;

  /** The same run with another window (the window sweep). */
  BenchConfig withWindow(int w) {
    return new BenchConfig(
        family,
        op,
        datatype,
        count,
        w,
        iterations,
        warmup,
        threads,
        transport,
        progress,
        duration,
        directPath,
        threading,
        api);
  }

  /** The same run of another cell (a matrix's). */
  BenchConfig withCell(CellSelection.Cell cell) {
    return new BenchConfig(
        cell.family(),
        cell.op(),
        cell.datatype(),
        count,
        window,
        iterations,
        warmup,
        threads,
        transport,
        progress,
        duration,
        directPath,
        threading,
        api);
  }

  /** The same run with {@code n} threads (all threads of bench -P's initiators, as one result). */
  BenchConfig withThreads(int n) {
    return new BenchConfig(
        family,
        op,
        datatype,
        count,
        window,
        iterations,
        warmup,
        n,
        transport,
        progress,
        duration,
        directPath,
        threading,
        api);
  }

  /** The same run over another transport (a serve's, when none was asked for). */
  BenchConfig withTransport(String t) {
    return new BenchConfig(
        family,
        op,
        datatype,
        count,
        window,
        iterations,
        warmup,
        threads,
        t,
        progress,
        duration,
        directPath,
        threading,
        api);
  }

  /** The initiator's domain attributes: transport, progress, and the options that were set. */
  DomainAttr domainAttr() {
    Map<String, String> options = new LinkedHashMap<>();
    if (directPath != null) {
      options.put(DIRECT_PATH_OPTION, directPath);
    }
    if (threading != null) {
      options.put(DomainAttr.THREADING_OPTION, threading.name().toLowerCase(Locale.ROOT));
    }
    return new DomainAttr(transport, progress, false, options);
  }

  /** Bytes of one call's elements. */
  long callBytes() {
    return (long) count * datatype.size();
  }

  /**
   * Bytes between two threads' elements: a call's bytes rounded up to 64, so no two threads share a
   * cache line (or a 4-byte CAS word) at the target.
   */
  long threadStride() {
    return (callBytes() + 63) & ~63L;
  }

  /** The target region this run needs. */
  long regionBytes() {
    return threadStride() * threads;
  }

  /** A short name of the cell: {@code fetch FI_SUM FI_UINT64}. */
  String cellLabel() {
    return family.label() + " " + op.fiName() + " " + datatype.fiName();
  }
}
