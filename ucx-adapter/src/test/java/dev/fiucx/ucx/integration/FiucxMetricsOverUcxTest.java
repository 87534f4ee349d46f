package dev.fiucx.ucx.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.AtomicFamily;
import dev.fiucx.CqErrEntry;
import dev.fiucx.DomainAttr;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.conformance.remote.Initiator;
import dev.fiucx.conformance.remote.RemoteTarget;
import dev.fiucx.conformance.suite.RequiresProvider;
import dev.fiucx.metrics.FiucxMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The metrics count exactly what happened: operations by cell, mechanism and outcome, their
 * elements, refused calls and CQ error entries by errno, and operations in flight. The target runs
 * in a child JVM over tcp (so its death is detected); it is frozen with SIGSTOP while an operation
 * to it is pending, then killed, which turns that operation into an error entry.
 */
@RequiresProvider("ucx")
class FiucxMetricsOverUcxTest {
  private static final long LENGTH = 4096;

  @Test
  void countsOperationsRefusalsAndTheErrorsOfAKilledPeer() throws Exception {
    RemoteTarget target = new RemoteTarget("ucx", "tcp", LENGTH, false, false, List.of());
    try (target;
        Initiator ini = new Initiator("ucx", Initiator.manual("tcp"));
        FiucxMetrics metrics = new FiucxMetrics(ini.domain);
        Arena arena = Arena.ofConfined()) {
      MeterRegistry registry = new SimpleMeterRegistry();
      metrics.bindTo(registry);
      assertTrue(registry.find("fiucx.atomic.errors").meters().isEmpty(), "no errno counted yet");
      long peer = ini.av.insert(target.address());
      long key = target.key();
      MemorySegment one = arena.allocate(32, 16);
      one.set(ValueLayout.JAVA_LONG, 0, 1);
      one.set(ValueLayout.JAVA_LONG, 8, 1);
      MemorySegment three = arena.allocate(24, 8);
      MemorySegment result = arena.allocate(32, 16);

      for (int i = 0; i < 5; i++) { // native
        assertEquals(0, fetchSum(ini, one, result, peer, 0, key));
        ini.awaitCompletion();
      }
      assertEquals(
          0,
          ini.ep.fetchAtomic(
              three, 3, null, result, null, peer, 256, key, FiDatatype.UINT64, FiOp.SUM, null));
      ini.awaitCompletion();
      for (int i = 0; i < 3; i++) { // CAS loop
        assertEquals(
            0,
            ini.post(
                AtomicFamily.BASE,
                FiOp.SUM,
                FiDatatype.INT8,
                1,
                one,
                null,
                null,
                peer,
                64,
                key,
                null));
        ini.awaitCompletion();
      }
      for (int i = 0; i < 2; i++) { // remote lock
        assertEquals(
            0,
            ini.post(
                AtomicFamily.BASE,
                FiOp.SUM,
                FiDatatype.DOUBLE_COMPLEX,
                1,
                one,
                null,
                null,
                peer,
                128,
                key,
                null));
        ini.awaitCompletion();
      }
      assertEquals(-FiErrno.EFAULT, fetchSum(ini, one, result, peer, LENGTH, key));
      assertEquals(
          -FiErrno.EFAULT,
          ini.ep.fetchAtomic(
              three,
              3,
              null,
              result,
              null,
              peer,
              LENGTH - 16,
              key,
              FiDatatype.UINT64,
              FiOp.SUM,
              null));
      assertEquals(
          -FiErrno.EOPNOTSUPP,
          ini.post(
              AtomicFamily.BASE,
              FiOp.CSWAP,
              FiDatatype.UINT64,
              1,
              one,
              null,
              null,
              peer,
              0,
              key,
              null));

      Set<Path> targetShm = posixShmMappedBy(target.pid());
      signal("STOP", target.pid());
      awaitStopped(target.pid());
      assertEquals(0, fetchSum(ini, one, result, peer, 0, key));
      assertEquals(
          1.0, gauge(registry, "fiucx.atomic.outstanding"), "a frozen target answers nothing");
      target.kill();
      CqErrEntry error = ini.awaitError();
      assertEquals(FiErrno.ECONNRESET, error.err);
      assertEquals(-FiErrno.ECONNRESET, fetchSum(ini, one, result, peer, 0, key));

      // read as a scrape reads it, the gauge also registers the meters of the cells used since
      assertEquals(0.0, gauge(registry, "fiucx.atomic.outstanding"));
      String fetchSum = mechanism(ini, FiDatatype.UINT64, FiFlags.FETCH_ATOMIC, FiOp.SUM);
      assertEquals("native", fetchSum);
      assertEquals(
          6,
          cell(
              registry,
              "fiucx.atomic.operations",
              "fetch",
              FiOp.SUM,
              FiDatatype.UINT64,
              fetchSum,
              "ok"));
      assertEquals(
          8,
          cell(
              registry,
              "fiucx.atomic.elements",
              "fetch",
              FiOp.SUM,
              FiDatatype.UINT64,
              fetchSum,
              "ok"));
      assertEquals(
          1,
          cell(
              registry,
              "fiucx.atomic.operations",
              "fetch",
              FiOp.SUM,
              FiDatatype.UINT64,
              fetchSum,
              "error"));
      assertEquals(
          1,
          cell(
              registry,
              "fiucx.atomic.elements",
              "fetch",
              FiOp.SUM,
              FiDatatype.UINT64,
              fetchSum,
              "error"));
      assertEquals(
          3,
          cell(
              registry,
              "fiucx.atomic.operations",
              "base",
              FiOp.SUM,
              FiDatatype.INT8,
              "cas_loop",
              "ok"));
      assertEquals(
          2,
          cell(
              registry,
              "fiucx.atomic.operations",
              "base",
              FiOp.SUM,
              FiDatatype.DOUBLE_COMPLEX,
              "remote_lock",
              "ok"));
      assertEquals(12, total(registry, "fiucx.atomic.operations"), "nothing else was counted");
      assertEquals(14, total(registry, "fiucx.atomic.elements"));

      assertEquals(2, errors(registry, "FI_EFAULT", "call"));
      assertEquals(1, errors(registry, "FI_EOPNOTSUPP", "call"));
      assertEquals(1, errors(registry, "FI_ECONNRESET", "call"));
      assertEquals(1, errors(registry, "FI_ECONNRESET", "completion"));
      assertEquals(5, total(registry, "fiucx.atomic.errors"), "nothing else was counted");
      assertEquals(
          4, registry.find("fiucx.atomic.errors").meters().size(), "the errnos counted only");
      MeterRegistry second = new SimpleMeterRegistry();
      metrics.bindTo(second); // gets the series the first one shows
      assertEquals(1, errors(second, "FI_ECONNRESET", "completion"));
      assertEquals(4, second.find("fiucx.atomic.errors").meters().size());
      assertEquals(5, total(second, "fiucx.atomic.errors"));
      assertEquals(12, total(second, "fiucx.atomic.operations"));

      assertEquals(3, count(registry, "fiucx.cas.attempts"));
      assertEquals(0, count(registry, "fiucx.cas.retries"));
      assertEquals(2, count(registry, "fiucx.lock.acquisitions"));
      assertEquals(0, count(registry, "fiucx.lock.waits"));
      assertEquals(1, count(registry, "fiucx.peers.failed"));
      var info = registry.get("fiucx.domain.info").gauge();
      assertEquals(1.0, info.value());
      assertEquals("ucx", info.getId().getTag("provider"));
      assertEquals("tcp", info.getId().getTag("transport"));

      metrics.close();
      assertTrue(registry.find("fiucx.atomic.operations").meters().isEmpty(), "close unbinds");
      assertTrue(second.find("fiucx.atomic.errors").meters().isEmpty());
      for (Path p : targetShm) {
        Files.deleteIfExists(p); // a killed UCX process may leave its posix segments
      }
    } finally {
      target.kill();
    }
  }

  @Test
  void theLatencyTimerTimesOnlyWhileSwitchedOnWithItsHistogram() {
    try (RemoteTarget target = new RemoteTarget("ucx", "tcp", LENGTH, false, false, List.of());
        Initiator ini = new Initiator("ucx", Initiator.manual("tcp"));
        Arena arena = Arena.ofConfined()) {
      long peer = ini.av.insert(target.address());
      MemorySegment one = arena.allocate(8, 8);
      MemorySegment result = arena.allocate(8, 8);
      Runnable fetchAdd =
          () -> {
            assertEquals(0, fetchSum(ini, one, result, peer, 0, target.key()));
            ini.awaitCompletion();
          };
      fetchAdd.run();
      // a SimpleMeterRegistry publishes no percentile buckets; the Prometheus one does
      PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      Timer timer;
      try (FiucxMetrics metrics = new FiucxMetrics(ini.domain).percentileHistogram()) {
        metrics.bindTo(registry);
        for (int i = 0; i < 4; i++) {
          fetchAdd.run();
        }
        timer =
            registry
                .get("fiucx.atomic.latency")
                .tags(
                    "family",
                    "fetch",
                    "op",
                    "FI_SUM",
                    "datatype",
                    "FI_UINT64",
                    "mechanism",
                    "native")
                .timer();
        assertEquals(4, timer.count(), "the operation before binding was not timed");
        assertTrue(timer.totalTime(TimeUnit.NANOSECONDS) > 0);
        var buckets = timer.takeSnapshot().histogramCounts();
        assertTrue(buckets.length > 10, "a percentile histogram: " + buckets.length + " buckets");
        // cumulative: the largest bucket (Micrometer's default top for a timer is 30 s) holds all
        assertEquals(4.0, buckets[buckets.length - 1].count());
        assertTrue(
            registry.scrape().contains("fiucx_atomic_latency_seconds_bucket{"),
            "Prometheus gets the buckets histogram_quantile reads");
      }
      fetchAdd.run(); // closed: the timer stops and its meters are gone
      assertEquals(4, timer.count());
      assertTrue(registry.find("fiucx.atomic.latency").timers().isEmpty());
    }
  }

  @Test
  void aCellShownBeforeItsFirstOperationCountsFromZero() {
    try (RemoteTarget target = new RemoteTarget("ucx", "tcp", LENGTH, false, false, List.of());
        Initiator ini = new Initiator("ucx", Initiator.manual("tcp"));
        Arena arena = Arena.ofConfined();
        FiucxMetrics metrics = new FiucxMetrics(ini.domain)) {
      MeterRegistry registry = new SimpleMeterRegistry();
      metrics.bindTo(registry);
      metrics.refresh();
      assertTrue(
          registry.find("fiucx.atomic.operations").functionCounters().isEmpty(), "no cell used");
      metrics.show(AtomicFamily.FETCH, FiOp.SUM, FiDatatype.UINT64);
      String[] cell = {"family", "fetch", "op", "FI_SUM", "datatype", "FI_UINT64"};
      assertEquals(0.0, ops(registry, cell, "ok"));
      assertEquals(0.0, ops(registry, cell, "error"));
      assertEquals(
          2, registry.find("fiucx.atomic.operations").functionCounters().size(), "one cell only");
      FiException invalid =
          assertThrows(
              FiException.class,
              () -> metrics.show(AtomicFamily.COMPARE, FiOp.SUM, FiDatatype.UINT64));
      assertEquals(FiErrno.EOPNOTSUPP, invalid.errno());

      long peer = ini.av.insert(target.address());
      MemorySegment one = arena.allocate(8, 8);
      one.set(ValueLayout.JAVA_LONG, 0, 1);
      MemorySegment result = arena.allocate(8, 8);
      assertEquals(0, fetchSum(ini, one, result, peer, 0, target.key()));
      ini.awaitCompletion();
      metrics.refresh();
      assertEquals(1.0, ops(registry, cell, "ok"));
      assertEquals(2, registry.find("fiucx.atomic.operations").functionCounters().size());
    }
  }

  /** Posts one fetch SUM UINT64 of {@code one} at {@code offset}; the call's return value. */
  private static int fetchSum(
      Initiator ini, MemorySegment one, MemorySegment result, long peer, long offset, long key) {
    return ini.post(
        AtomicFamily.FETCH,
        FiOp.SUM,
        FiDatatype.UINT64,
        1,
        one,
        null,
        result,
        peer,
        offset,
        key,
        null);
  }

  private static double ops(MeterRegistry registry, String[] cell, String outcome) {
    return registry
        .get("fiucx.atomic.operations")
        .tags(cell)
        .tag("outcome", outcome)
        .functionCounter()
        .count();
  }

  @Test
  void countsKeysResolvedAndRevoked() {
    try (RemoteTarget target = new RemoteTarget("ucx", "tcp", LENGTH, false, false, List.of());
        // automatic progress: the initiator acknowledges the revocation while the test waits
        Initiator ini = new Initiator("ucx", "tcp", DomainAttr.Progress.AUTO);
        FiucxMetrics metrics = new FiucxMetrics(ini.domain);
        Arena arena = Arena.ofConfined()) {
      MeterRegistry registry = new SimpleMeterRegistry();
      metrics.bindTo(registry);
      long peer = ini.av.insert(target.address());
      MemorySegment one = arena.allocate(16, 8);
      one.set(ValueLayout.JAVA_LONG, 0, 1);
      MemorySegment result = arena.allocate(16, 8);
      assertEquals(0, count(registry, "fiucx.keys.resolved"));
      for (int i = 0; i < 3; i++) { // resolved once, then cached
        assertEquals(0, fetchSum(ini, one, result, peer, 0, target.key()));
        ini.awaitCompletion();
      }
      assertEquals(1, count(registry, "fiucx.keys.resolved"));
      assertEquals(
          0,
          ini.post(
              AtomicFamily.FETCH,
              FiOp.SUM,
              FiDatatype.DOUBLE_COMPLEX,
              1,
              one,
              null,
              result,
              peer,
              64,
              target.key(),
              null));
      ini.awaitCompletion();
      assertEquals(2, count(registry, "fiucx.keys.resolved"), "and the remote lock's words");
      assertEquals(0, count(registry, "fiucx.keys.revoked"));

      long oldKey = target.key();
      long newKey = target.renewRegion(); // revokes the old key: the initiator is told
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (count(registry, "fiucx.keys.revoked") == 0 && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      assertEquals(1, count(registry, "fiucx.keys.revoked"));
      assertEquals(-FiErrno.EKEYREJECTED, fetchSum(ini, one, result, peer, 0, oldKey));
      assertEquals(0, fetchSum(ini, one, result, peer, 0, newKey));
      ini.awaitCompletion();
      assertEquals(3, count(registry, "fiucx.keys.resolved"));
      assertEquals(1, count(registry, "fiucx.keys.revoked"));
    }
  }

  private static String mechanism(Initiator ini, FiDatatype t, long flags, FiOp op) {
    return ini.domain.queryAtomic(t, op, flags).mechanism().name().toLowerCase(Locale.ROOT);
  }

  private static long cell(
      MeterRegistry r,
      String name,
      String family,
      FiOp op,
      FiDatatype t,
      String mechanism,
      String outcome) {
    return (long)
        r.get(name)
            .tags(
                "family",
                family,
                "op",
                op.fiName(),
                "datatype",
                t.fiName(),
                "mechanism",
                mechanism,
                "outcome",
                outcome)
            .functionCounter()
            .count();
  }

  private static long errors(MeterRegistry r, String errno, String where) {
    return (long)
        r.get("fiucx.atomic.errors").tags("errno", errno, "where", where).functionCounter().count();
  }

  private static long total(MeterRegistry r, String name) {
    return (long) r.get(name).functionCounters().stream().mapToDouble(FunctionCounter::count).sum();
  }

  private static long count(MeterRegistry r, String name) {
    return (long) r.get(name).functionCounter().count();
  }

  private static double gauge(MeterRegistry r, String name) {
    return r.get(name).gauge().value();
  }

  private static void signal(String signal, long pid) throws Exception {
    assertEquals(0, new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start().waitFor());
  }

  /**
   * kill returns once the signal is queued; the target's threads stop a little later. Waits until
   * every one of them shows state T (stopped) in /proc.
   */
  private static void awaitStopped(long pid) throws Exception {
    long deadline = System.nanoTime() + 10_000_000_000L;
    Path tasks = Path.of("/proc", Long.toString(pid), "task");
    while (true) {
      boolean all;
      try (Stream<Path> threads = Files.list(tasks)) {
        all =
            threads.allMatch(
                t -> {
                  try {
                    String stat = Files.readString(t.resolve("stat"));
                    char state = stat.charAt(stat.lastIndexOf(')') + 2); // after "(comm) "
                    return state == 'T' || state == 't';
                  } catch (java.io.IOException e) {
                    return true; // the thread is gone
                  }
                });
      }
      if (all) {
        return;
      }
      assertTrue(System.nanoTime() - deadline < 0, "the target did not stop");
      Thread.sleep(1);
    }
  }

  /** The /dev/shm/ucx_shm_posix_* files process {@code pid} maps. */
  private static Set<Path> posixShmMappedBy(long pid) throws Exception {
    try (Stream<String> maps = Files.lines(Path.of("/proc", Long.toString(pid), "maps"))) {
      return maps.filter(l -> l.contains("/dev/shm/ucx_shm_posix_"))
          .map(l -> Path.of(l.substring(l.indexOf("/dev/shm/")).replace(" (deleted)", "")))
          .collect(Collectors.toSet());
    }
  }
}
