package dev.fiucx.perf;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.fiucx.AtomicFamily;
import dev.fiucx.Domain;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.FiOp;
import dev.fiucx.metrics.FiucxMetrics;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code /metrics} in Prometheus text format while bench (or serve) runs: the domains' {@link
 * FiucxMetrics} (tagged {@code domain}, the domain's index, since manual progress opens one per
 * thread) and the JVM's own (memory, GC, threads, class loading, CPU, uptime), served by the JDK's
 * HTTP server on one thread. A scrape never touches the measuring threads: it reads their plain
 * counters.
 */
public final class MetricsEndpoint implements AutoCloseable {
  private static final java.util.Set<String> LINT_REFUSED =
      java.util.Set.of("process.cpu.time", "system.cpu.count");
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final List<FiucxMetrics> bound = new ArrayList<>();
  private final JvmGcMetrics gc = new JvmGcMetrics();
  private final HttpServer server;
  private long begun; // scrapes begun so far; guarded by this
  private long
      served; // the number (in begun order) of the latest scrape served whole; guarded by this

  /**
   * Binds the domains' metrics and starts serving.
   *
   * @param bind the address to listen on
   * @param port 0 picks a free one
   * @param domains the domains whose metrics are served, tagged by their index in this list
   * @param latency whether the opt-in latency timer is on
   * @param err where the endpoint's URL is printed once it listens
   * @throws dev.fiucx.FiException {@code FI_EADDRINUSE} when the port cannot be bound
   */
  public MetricsEndpoint(
      String bind, int port, List<Domain> domains, boolean latency, PrintStream err) {
    // promtool's lint refuses these two names of ProcessorMetrics (an abbreviated unit, a gauge
    // ending in _count); the rest of it (CPU usage, load) stays
    registry.config().meterFilter(MeterFilter.deny(id -> LINT_REFUSED.contains(id.getName())));
    for (int i = 0; i < domains.size(); i++) {
      FiucxMetrics m = new FiucxMetrics(domains.get(i), Tags.of("domain", Integer.toString(i)));
      if (latency) {
        m.percentileHistogram();
      }
      m.bindTo(registry);
      bound.add(m);
    }
    new ClassLoaderMetrics().bindTo(registry);
    new JvmMemoryMetrics().bindTo(registry);
    gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    try {
      server = HttpServer.create(new InetSocketAddress(bind, port), 16);
    } catch (IOException e) {
      close();
      throw new FiException(FiErrno.EADDRINUSE, "--metrics-port " + port + " on " + bind, e);
    }
    server.createContext("/metrics", this::scrape);
    server.start();
    err.printf(
        "metrics: http://%s:%d/metrics%n",
        server.getAddress().getHostString(), server.getAddress().getPort());
  }

  /**
   * The port it serves on.
   *
   * @return the port, the one picked when asked for 0
   */
  public int port() {
    return server.getAddress().getPort();
  }

  /**
   * Shows a cell's series at 0 before its first operation (see {@link FiucxMetrics#show}).
   *
   * @param family the cell's family
   * @param op the cell's op
   * @param type the cell's datatype
   */
  public void show(AtomicFamily family, FiOp op, FiDatatype type) {
    bound.forEach(m -> m.show(family, op, type));
  }

  /**
   * How many scrapes have begun so far.
   *
   * @return the scrapes begun, served or not
   */
  public synchronized long scrapes() {
    return begun;
  }

  /**
   * Waits until a scrape that began after the {@code seen}-th has been served, at most {@code
   * maxNanos}; whether one was. A scrape that began earlier and ends meanwhile does not count: it
   * may have read the counters before what the caller wants seen.
   *
   * @param seen the number of scrapes begun that the caller has seen ({@link #scrapes})
   * @param maxNanos how long to wait at most
   * @return whether such a scrape was served
   * @throws InterruptedException when the waiting thread is interrupted
   */
  public synchronized boolean awaitScrapeAfter(long seen, long maxNanos)
      throws InterruptedException {
    long deadline = System.nanoTime() + maxNanos;
    long left;
    while (served <= seen && (left = deadline - System.nanoTime()) > 0) {
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return served > seen;
  }

  private void scrape(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!exchange.getRequestMethod().equals("GET")) {
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      long number;
      synchronized (this) {
        number = ++begun;
      }
      byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
      synchronized (this) {
        served = Math.max(served, number);
        notifyAll();
      }
    }
  }

  /** Stops serving and unbinds the domains' metrics. */
  @Override
  public void close() {
    if (server != null) {
      server.stop(0);
    }
    bound.forEach(FiucxMetrics::close);
    gc.close();
    registry.close();
  }
}
