package dev.fiucx.perf.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code --metrics-linger}: bench waits for a scrape before and after its run, so a scraper sees
 * the run's cell at 0 first and at its full count last, however short the run and however late the
 * scraper (here the test itself, scraping every 100 ms).
 */
class MetricsLingerTest {
  private static final int CALLS = 200_000;
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void aScraperSeesTheCellAtZeroBeforeTheRunAndAtItsCountAfter() throws Exception {
    int port = freePort();
    CompletableFuture<BenchCli.Run> bench =
        CompletableFuture.supplyAsync(
            () ->
                BenchCli.run(
                    "bench",
                    "-n",
                    Integer.toString(CALLS),
                    "-w",
                    "0",
                    "--metrics-port",
                    Integer.toString(port),
                    "--metrics-linger",
                    "60s"));
    List<Long> seen = new ArrayList<>(); // the cell's count in each scrape that showed it
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (!bench.isDone()) {
      assertTrue(System.nanoTime() - deadline < 0, "bench did not end in 120 s");
      Long count = okOperations(port);
      if (count != null) {
        seen.add(count);
      }
      Thread.sleep(100);
    }
    BenchCli.Run run = bench.get();
    assertEquals(0, run.exit(), run.err());
    assertTrue(run.err().contains("metrics: scraped before the run"), run.err());
    assertTrue(run.err().contains("metrics: scraped after the run"), run.err());
    assertTrue(seen.size() >= 2, "scrapes that showed the cell: " + seen);
    assertEquals(0L, seen.getFirst(), "the first scrape, before the run: " + seen);
    assertEquals((long) CALLS, seen.getLast(), "the last scrape, after the run: " + seen);
  }

  @Test
  void withNobodyScrapingItWaitsOnlyTheLingerTime() {
    BenchCli.Run run =
        BenchCli.run(
            "bench", "-n", "1000", "-w", "0", "--metrics-port", "0", "--metrics-linger", "300ms");
    assertEquals(0, run.exit(), run.err());
    assertTrue(run.err().contains("metrics: not scraped before the run within 300 ms"), run.err());
    assertTrue(run.err().contains("metrics: not scraped after the run within 300 ms"), run.err());
  }

  /**
   * The count of fetch SUM UINT64 operations that ended well, in one scrape; null when the endpoint
   * does not answer yet (or any more) or the cell's series is not shown yet.
   */
  private Long okOperations(int port) throws InterruptedException {
    String body = MetricsPage.fetch(http, port);
    if (body == null) {
      return null;
    }
    Long count = null;
    for (String line : body.lines().toList()) {
      if (line.startsWith("fiucx_atomic_operations_total{")
          && line.contains("family=\"fetch\"")
          && line.contains("op=\"FI_SUM\"")
          && line.contains("datatype=\"FI_UINT64\"")
          && line.contains("outcome=\"ok\"")) {
        long value = (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        count = count == null ? value : count + value;
      }
    }
    return count;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
