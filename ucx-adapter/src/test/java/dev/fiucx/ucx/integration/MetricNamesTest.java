package dev.fiucx.ucx.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiOp;
import dev.fiucx.conformance.remote.Initiator;
import dev.fiucx.conformance.remote.RemoteTarget;
import dev.fiucx.conformance.suite.RequiresProvider;
import dev.fiucx.metrics.FiucxMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The metrics table of docs/metrics.md names exactly the metric families a Prometheus scrape of a
 * used domain holds: every name it documents is exported, and every {@code fiucx_} family exported
 * is documented. The domain is used so that every meter exists: one operation (a cell's series),
 * one refused call (an errno's series) and the latency timer with its histogram.
 */
@RequiresProvider("ucx")
class MetricNamesTest {
  private static final Path METRICS_DOC = Path.of("../docs/metrics.md");
  private static final String TABLE_HEADER = "| meter (Prometheus name) |";
  private static final Pattern NAME = Pattern.compile("`(fiucx_[a-z_]+)`");
  private static final Pattern TYPE = Pattern.compile("# TYPE (fiucx_[a-z_]+) ([a-z]+)");

  @Test
  void theDocumentedTableNamesExactlyTheExportedFamilies() throws IOException {
    Set<String> documented = documentedTable();
    String scrape;
    try (RemoteTarget target = new RemoteTarget("ucx", "tcp", 4096, false, false, List.of());
        Initiator ini = new Initiator("ucx", Initiator.manual("tcp"));
        FiucxMetrics metrics = new FiucxMetrics(ini.domain).percentileHistogram();
        Arena arena = Arena.ofConfined()) {
      PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      metrics.bindTo(registry);
      long peer = ini.av.insert(target.address());
      MemorySegment one = arena.allocate(8, 8);
      one.set(ValueLayout.JAVA_LONG, 0, 1);
      MemorySegment result = arena.allocate(8, 8);
      assertEquals(0, fetchSum(ini, one, result, peer, 0, target.key()));
      ini.awaitCompletion();
      assertEquals(-FiErrno.EFAULT, fetchSum(ini, one, result, peer, 4096, target.key()));
      metrics.refresh();
      scrape = registry.scrape();
    }
    Set<String> exported = families(scrape);
    Set<String> undocumented = new TreeSet<>(exported);
    undocumented.removeAll(documented);
    Set<String> missing = new TreeSet<>(documented);
    missing.removeAll(exported);
    assertEquals(Set.of(), undocumented, "exported, not in docs/metrics.md's table:\n" + scrape);
    assertEquals(Set.of(), missing, "in docs/metrics.md's table, not exported:\n" + scrape);
    assertEquals(
        List.of("fiucx_atomic_errors_total{errno=\"FI_EFAULT\",where=\"call\"} 1.0"),
        scrape.lines().filter(l -> l.startsWith("fiucx_atomic_errors_total{")).toList(),
        "the one errno counted has a series, no other has");
  }

  /** Every {@code fiucx_} name in the first column of docs/metrics.md's metrics table. */
  private static Set<String> documentedTable() throws IOException {
    List<String> lines = Files.readAllLines(METRICS_DOC);
    int header = 0;
    while (!lines.get(header).startsWith(TABLE_HEADER)) {
      header++;
    }
    Set<String> names = new TreeSet<>();
    for (int i = header + 2; i < lines.size() && lines.get(i).startsWith("|"); i++) {
      String firstColumn = lines.get(i).split("\\|")[1];
      Matcher m = NAME.matcher(firstColumn);
      while (m.find()) {
        names.add(m.group(1));
      }
    }
    return names;
  }

  /**
   * The {@code fiucx_} families of a scrape, by the names a PromQL query uses: a counter's with its
   * {@code _total}, a histogram's without its {@code _bucket}, {@code _count} and {@code _sum}.
   */
  private static Set<String> families(String scrape) {
    Set<String> names = new TreeSet<>();
    Matcher m = TYPE.matcher(scrape);
    while (m.find()) {
      String name = m.group(1);
      names.add(m.group(2).equals("counter") && !name.endsWith("_total") ? name + "_total" : name);
    }
    return names;
  }

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
}
