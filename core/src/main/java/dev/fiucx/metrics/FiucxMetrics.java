package dev.fiucx.metrics;

import dev.fiucx.AtomicFamily;
import dev.fiucx.Domain;
import dev.fiucx.EmulationCounts;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.FiOp;
import dev.fiucx.completion.LatencyRecorder;
import dev.fiucx.completion.OperationCounts;
import dev.fiucx.engine.EngineDomain;
import dev.fiucx.semantics.AtomicCell;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * Binds a domain's atomic operations to the application's {@link MeterRegistry} (never the global
 * one). Every meter reads counts the domain keeps anyway: the endpoints' plain per-cell counts
 * ({@link OperationCounts}), the emulation's counters and the domain's facts. Binding costs the hot
 * path nothing; the opt-in latency timer costs two clock reads and a {@link Timer#record} per
 * operation while it is on (and one registration, under a lock, at a cell's first timed operation).
 *
 * <p>Meters (Prometheus names them in snake case, adds {@code _total} to a counter's name and its
 * base unit to a name that does not end with it; so a meter has a base unit only when its name ends
 * with it, and the Prometheus names are those of docs/metrics.md: {@code
 * fiucx_keys_resolved_total}):
 *
 * <ul>
 *   <li>{@code fiucx.atomic.operations}, {@code fiucx.atomic.elements}: operations (and their
 *       elements) that ended, tagged {@code family}, {@code op}, {@code datatype} (libfabric's
 *       names), {@code mechanism} and {@code outcome} ({@code ok}, or {@code error} for those that
 *       ended in a CQ error entry). A refused call is no operation; it counts as an error.
 *   <li>{@code fiucx.atomic.errors}: tagged {@code errno} ({@code FI_EFAULT}) and {@code where}:
 *       {@code call} for a call refused with {@code -errno}, {@code completion} for an error entry.
 *   <li>{@code fiucx.atomic.outstanding}: operations posted and not yet ended.
 *   <li>{@code fiucx.atomic.uncertain}: operations among those that ended in an error entry whose
 *       entry says {@link dev.fiucx.CqErrEntry#uncertain}: they may have changed the target.
 *   <li>{@code fiucx.cas.attempts}, {@code fiucx.cas.retries}, {@code fiucx.lock.acquisitions},
 *       {@code fiucx.lock.waits}, {@code fiucx.lock.taken.over}, {@code fiucx.lock.reclaimed},
 *       {@code fiucx.lock.lost}, {@code fiucx.lock.restarts}, {@code fiucx.lock.writes.redone}: the
 *       emulation's counts; {@code fiucx.peers.failed}: peers the transport found dead; {@code
 *       fiucx.peers.abandoned}: peers given up on after the operation timeout; {@code
 *       fiucx.peers.reconnected}: addresses inserted again after their peer failed; {@code
 *       fiucx.domain.errors}: exceptions the domain caught and survived; {@code
 *       fiucx.atomic.internal.errors}: those of them caught inside an atomic call, which returned
 *       {@code -FI_EOTHER} (an engine or transport failure, not bad input).
 *   <li>{@code fiucx.domain.info}: 1, tagged with the domain's facts (provider, transport, UCX
 *       version, atomic mode, demoted native ops).
 *   <li>{@code fiucx.keys.resolved}: peers' keys this domain resolved (one control round trip each;
 *       a key is then cached; the remote lock's own words are one more key per peer, at its first
 *       lock-based operation); {@code fiucx.keys.revoked}: resolved keys whose target revoked them
 *       (closed the region) and told this domain so.
 *   <li>{@code fiucx.atomic.latency} (only after {@link #timeLatency}): a timer by family, op,
 *       datatype and mechanism of each operation's time from post to end. Its percentile histogram
 *       (Prometheus: {@code fiucx_atomic_latency_seconds_bucket}) is on after {@link
 *       #percentileHistogram}, or when the application's own {@code MeterFilter} switches it on.
 * </ul>
 *
 * <p>No tag names a peer, key or address: the series are bounded by the atomic table. A cell's
 * series exist once it has been used ({@link #refresh}); in the worst case, every one of the 354
 * valid cells of the reference table used, 354 x 2 outcomes x 2 meters = 1,416 operation and
 * element series and 354 latency timers (with the percentile histogram on, each of those has
 * Micrometer's default buckets for its range: about 70 series each in Prometheus, so 24,780 at
 * worst; an application that uses many cells can narrow them with {@code
 * minimumExpectedValue}/{@code maximumExpectedValue} in a {@code MeterFilter}). An errno's series
 * (one per {@code where}) exist once it has been counted, at most 2 x the errnos of {@link
 * FiErrno}.
 */
// "exports": Micrometer is an optional dependency of core (requires static); whoever binds these
// metrics has Micrometer and requires it
@SuppressWarnings("exports")
public final class FiucxMetrics implements MeterBinder, AutoCloseable {
  private static final Map<Integer, String> ERRNO_NAMES = errnoNames();
  private static final String[] WHERE = {"call", "completion"}; // the errors' tag, by index
  private static final int CALL = 0;
  private final EngineDomain domain;
  private final Tags common;
  private final List<Meter.Id> bound = new ArrayList<>();
  private final List<MeterRegistry> registries = new ArrayList<>();
  private final boolean[] shown = new boolean[OperationCounts.CELLS];
  private final boolean[][] shownErrors = new boolean[WHERE.length][OperationCounts.ERRNOS];
  private boolean latency;
  private boolean histogram;
  private final AtomicReferenceArray<Timer[]> timers =
      new AtomicReferenceArray<>(OperationCounts.CELLS);
  private final LatencyRecorder recorder = this::record;

  /**
   * The metrics of {@code domain}, a domain of this library's engine (every provider's is).
   *
   * @param domain the domain
   */
  public FiucxMetrics(Domain domain) {
    this(domain, Tags.empty());
  }

  /**
   * The same, with {@code tags} on every meter (to tell two domains of one process apart).
   *
   * @param domain the domain
   * @param tags put on every meter
   */
  public FiucxMetrics(Domain domain, Iterable<io.micrometer.core.instrument.Tag> tags) {
    if (!(domain instanceof EngineDomain engine)) {
      throw new FiException(FiErrno.EINVAL, "not a domain of the fiucx engine: " + domain);
    }
    this.domain = engine;
    this.common = Tags.of(tags);
  }

  /**
   * Switches the latency timer on: {@code fiucx.atomic.latency} is registered at {@link #bindTo}
   * and every endpoint reads the clock at post and completion while bound. Call before binding.
   *
   * @return this
   */
  public FiucxMetrics timeLatency() {
    latency = true;
    return this;
  }

  /**
   * Switches the latency timer on with its percentile histogram published (Prometheus gets {@code
   * _bucket} series that {@code histogram_quantile} reads). Call before binding.
   *
   * @return this
   */
  public FiucxMetrics percentileHistogram() {
    histogram = true;
    return timeLatency();
  }

  /** The recorder the endpoints call: the cell's timers, registered at its first operation. */
  private void record(int cell, long nanos) {
    Timer[] t = timers.get(cell);
    if (t == null) {
      t = timersOf(cell);
    }
    for (Timer timer : t) {
      timer.record(nanos, TimeUnit.NANOSECONDS);
    }
  }

  private synchronized Timer[] timersOf(int index) {
    Timer[] t = timers.get(index);
    if (t != null) {
      return t;
    }
    Tags tags = common.and(cellTags(cellAt(index)));
    t = new Timer[registries.size()];
    for (int i = 0; i < t.length; i++) {
      t[i] =
          Timer.builder("fiucx.atomic.latency")
              .description("time from post to end of the atomic operations")
              .tags(tags)
              .publishPercentileHistogram(histogram ? Boolean.TRUE : null)
              .register(registries.get(i));
      bound.add(t[i].getId());
    }
    timers.set(index, t);
    return t;
  }

  private void forgetTimers() {
    for (int i = 0; i < timers.length(); i++) {
      timers.set(i, null);
    }
  }

  @Override
  public synchronized void bindTo(MeterRegistry registry) {
    registries.add(registry);
    gauge(
        registry,
        "fiucx.atomic.outstanding",
        "atomic operations posted and not yet ended",
        null,
        common,
        d -> {
          refresh(); // a scrape reads every gauge: the cells used since the last one show up
          return sum(d, OperationCounts::outstanding);
        });
    EmulationCounts em = domain.emulationCounts();
    emulation(
        registry,
        "fiucx.cas.attempts",
        "compare-and-swaps the CAS loop posted",
        "attempts",
        em::casAttempts);
    emulation(
        registry,
        "fiucx.cas.retries",
        "compare-and-swaps that found another value and were retried",
        "retries",
        em::casRetries);
    emulation(
        registry,
        "fiucx.lock.acquisitions",
        "remote locks taken",
        "acquisitions",
        em::lockAcquisitions);
    emulation(
        registry,
        "fiucx.lock.waits",
        "tries that found a remote lock held",
        "waits",
        em::lockWaits);
    emulation(
        registry,
        "fiucx.lock.taken.over",
        "remote locks taken over after their lease ran out",
        null,
        em::locksTakenOver);
    emulation(
        registry,
        "fiucx.lock.reclaimed",
        "remote locks freed because the initiator holding them died",
        null,
        em::locksReclaimed);
    emulation(
        registry,
        "fiucx.lock.lost",
        "remote locks this domain held and found taken over",
        null,
        em::locksLost);
    emulation(
        registry,
        "fiucx.lock.restarts",
        "remote-lock elements that held their lock for half a lease before the put, put nothing and"
            + " started over",
        null,
        em::lockRestarts);
    emulation(
        registry,
        "fiucx.lock.writes.redone",
        "wide elements a lock holder that died mid-copy left in its redo record, completed here",
        null,
        em::writesRedone);
    counter(
        registry,
        "fiucx.atomic.uncertain",
        "operations that ended in an error entry and may have changed the target all the same",
        null,
        common,
        d -> sum(d, OperationCounts::uncertain));
    counter(
        registry,
        "fiucx.peers.failed",
        "peers the transport found dead",
        null,
        common,
        EngineDomain::failedPeers);
    counter(
        registry,
        "fiucx.peers.abandoned",
        "peers given up on because an operation to them outlived the operation timeout",
        null,
        common,
        EngineDomain::abandonedPeers);
    counter(
        registry,
        "fiucx.peers.reconnected",
        "addresses inserted again after their peer failed or was given up on",
        null,
        common,
        EngineDomain::reconnects);
    counter(
        registry,
        "fiucx.domain.errors",
        "exceptions the domain caught and survived",
        "errors",
        common,
        EngineDomain::errorCount);
    counter(
        registry,
        "fiucx.atomic.internal.errors",
        "atomic calls that caught an exception inside them and returned -FI_EOTHER",
        "errors",
        common,
        EngineDomain::callErrorCount);
    gauge(
        registry,
        "fiucx.domain.info",
        "the domain's facts as tags; the value is always 1",
        null,
        common.and(infoTags()),
        d -> 1);
    // no base unit on the keys' counters: Prometheus would add it to a name that says it already
    // (fiucx_keys_resolved_keys_total)
    counter(
        registry,
        "fiucx.keys.resolved",
        "peers' keys this domain resolved (one control round trip each; then cached)",
        null,
        common,
        EngineDomain::keysResolved);
    counter(
        registry,
        "fiucx.keys.revoked",
        "resolved keys whose target revoked them (closed the region) and said so",
        null,
        common,
        EngineDomain::keysRevoked);
    if (latency) {
      forgetTimers(); // a cell's timers are made again, in every registry bound now
      domain.timeLatency(recorder);
    }
    for (int i = 0; i < shown.length; i++) {
      if (shown[i]) { // a second registry gets the cells and errnos the first one shows
        AtomicCell cell = cellAt(i);
        bindCell(registry, cell, i);
      }
    }
    for (int where = 0; where < WHERE.length; where++) {
      for (int errno : ERRNO_NAMES.keySet()) {
        if (shownErrors[where][errno]) {
          bindErrors(registry, where, errno);
        }
      }
    }
    refresh();
  }

  private AtomicCell cellAt(int index) {
    for (AtomicCell cell : domain.table().validCells()) {
      if (OperationCounts.index(cell.family(), cell.op(), cell.datatype()) == index) {
        return cell;
      }
    }
    throw new IllegalStateException("no valid cell at " + index);
  }

  /**
   * Registers the meters of every cell used and every errno counted since the last call (a cell's
   * first operation ended, a call was refused or an operation ended in an error entry with that
   * errno), in every registry bound. A scrape calls it (through the {@code
   * fiucx.atomic.outstanding} gauge), so their series appear in the scrape after the first count;
   * only used cells and errnos met cost a scrape anything.
   *
   * <p>Registering here, not where the count is made, keeps the hot path as it is: a refusal or an
   * error entry is one plain add to the endpoint's own array whether or not its series exists, with
   * no allocation, lock or Micrometer call; the lock here is taken only by scrapes and binding.
   * That loses no count: the endpoints count from the start, and a series reads the whole count
   * (with the same opaque loads a scrape uses) once registered.
   */
  public synchronized void refresh() {
    if (registries.isEmpty()) {
      return;
    }
    OperationCounts[] counts = domain.operationCounts();
    for (AtomicCell cell : domain.table().validCells()) {
      int index = OperationCounts.index(cell.family(), cell.op(), cell.datatype());
      if (!shown[index] && used(counts, index)) {
        shown[index] = true;
        for (MeterRegistry registry : registries) {
          bindCell(registry, cell, index);
        }
      }
    }
    for (int where = 0; where < WHERE.length; where++) {
      for (int errno : ERRNO_NAMES.keySet()) {
        if (!shownErrors[where][errno] && errors(counts, where, errno) != 0) {
          shownErrors[where][errno] = true;
          for (MeterRegistry registry : registries) {
            bindErrors(registry, where, errno);
          }
        }
      }
    }
  }

  private static long errors(OperationCounts[] counts, int where, int errno) {
    long n = 0;
    for (OperationCounts c : counts) {
      n += where == CALL ? c.callErrors(errno) : c.completionErrors(errno);
    }
    return n;
  }

  private void bindErrors(MeterRegistry registry, int where, int errno) {
    counter(
        registry,
        "fiucx.atomic.errors",
        "atomic calls refused (where=call) and CQ error entries (where=completion), by errno",
        "errors",
        common.and("errno", ERRNO_NAMES.get(errno), "where", WHERE[where]),
        d -> errors(d.operationCounts(), where, errno));
  }

  /**
   * Shows a cell's series now, at 0, before its first operation: an application that knows which
   * cells it will use registers them up front, as Prometheus asks of every known series ("avoid
   * missing metrics"), since a counter whose series first appears after the operations began starts
   * {@code rate()} from that value and loses them (a run shorter than a scrape interval then shows
   * no rate at all). Throws {@link FiException} ({@code FI_EOPNOTSUPP}) for a cell the domain does
   * not support.
   *
   * @param family the call's family
   * @param op the operation
   * @param datatype the elements' datatype
   * @return this
   */
  public synchronized FiucxMetrics show(AtomicFamily family, FiOp op, FiDatatype datatype) {
    AtomicCell cell = domain.table().cell(family, op, datatype);
    if (!cell.valid()) {
      throw new FiException(
          FiErrno.EOPNOTSUPP, family + " " + op + " " + datatype + ": " + cell.reason());
    }
    int index = OperationCounts.index(family, op, datatype);
    if (!shown[index]) {
      shown[index] = true;
      for (MeterRegistry registry : registries) {
        bindCell(registry, cell, index);
      }
    }
    return this;
  }

  private static boolean used(OperationCounts[] counts, int index) {
    for (OperationCounts c : counts) {
      if (c.operations(index, true) != 0 || c.operations(index, false) != 0) {
        return true;
      }
    }
    return false;
  }

  private void bindCell(MeterRegistry registry, AtomicCell cell, int index) {
    Tags tags = common.and(cellTags(cell));
    for (boolean ok : new boolean[] {true, false}) {
      Tags t = tags.and("outcome", ok ? "ok" : "error");
      counter(
          registry,
          "fiucx.atomic.operations",
          "atomic operations that ended (a refused call is no operation)",
          "operations",
          t,
          d -> sum(d, c -> c.operations(index, ok)));
      counter(
          registry,
          "fiucx.atomic.elements",
          "elements of the atomic operations that ended",
          "elements",
          t,
          d -> sum(d, c -> c.elements(index, ok)));
    }
  }

  /** Removes the meters from every registry they were bound to; the latency timer stops. */
  @Override
  public synchronized void close() {
    if (latency) {
      domain.timeLatency(null);
    }
    forgetTimers();
    for (MeterRegistry r : registries) {
      for (Meter.Id id : bound) {
        r.remove(id);
      }
    }
    registries.clear();
    bound.clear();
    java.util.Arrays.fill(shown, false);
    for (boolean[] errnos : shownErrors) {
      java.util.Arrays.fill(errnos, false);
    }
  }

  private static Tags cellTags(AtomicCell cell) {
    return Tags.of(
        "family", cell.family().label(),
        "op", cell.op().fiName(),
        "datatype", cell.datatype().fiName(),
        "mechanism", cell.mechanism().name().toLowerCase(Locale.ROOT));
  }

  /** provider, transport, ucx version, atomic mode, demoted native ops: from describe(). */
  private Tags infoTags() {
    Map<String, String> facts = domain.describe();
    String selfTest = facts.getOrDefault("self-test", "");
    int space = selfTest.indexOf(' ');
    String demoted = selfTest.startsWith("every") || space < 0 ? "0" : selfTest.substring(0, space);
    return Tags.of(
        "provider", domain.providerName(),
        "transport", facts.getOrDefault("ucx.tls", "unknown"),
        "ucx_version", facts.getOrDefault("ucx.version", "unknown"),
        "atomic_mode", facts.getOrDefault("ucx.atomic_mode", "unknown"),
        "progress", facts.getOrDefault("progress", "unknown"),
        "demoted_ops", demoted);
  }

  private static long sum(EngineDomain d, ToLongFunction<OperationCounts> f) {
    long n = 0;
    for (OperationCounts c : d.operationCounts()) {
      n += f.applyAsLong(c);
    }
    return n;
  }

  /** libfabric's name of every errno the library knows, by value. */
  private static Map<Integer, String> errnoNames() {
    Map<Integer, String> names = new TreeMap<>();
    for (Field f : FiErrno.class.getFields()) {
      if (f.getType() == int.class && Modifier.isStatic(f.getModifiers())) {
        try {
          int v = f.getInt(null);
          if (v > 0 && v < OperationCounts.ERRNOS) { // the errnos counted one by one
            names.putIfAbsent(v, "FI_" + f.getName());
          }
        } catch (IllegalAccessException e) {
          throw new IllegalStateException(e);
        }
      }
    }
    return names;
  }

  private void emulation(
      MeterRegistry registry,
      String name,
      String description,
      String unit,
      java.util.function.LongSupplier count) {
    counter(registry, name, description, unit, common, d -> count.getAsLong());
  }

  private void counter(
      MeterRegistry registry,
      String name,
      String description,
      String unit,
      Tags tags,
      ToDoubleFunction<EngineDomain> count) {
    add(
        FunctionCounter.builder(name, domain, count)
            .description(description)
            .baseUnit(unit)
            .tags(tags)
            .register(registry));
  }

  private void gauge(
      MeterRegistry registry,
      String name,
      String description,
      String unit,
      Tags tags,
      ToDoubleFunction<EngineDomain> value) {
    add(
        Gauge.builder(name, domain, value)
            .description(description)
            .baseUnit(unit)
            .tags(tags)
            .strongReference(true)
            .register(registry));
  }

  private void add(Meter meter) {
    bound.add(meter.getId());
  }
}
