package dev.fiucx.perf.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * bench's {@code /metrics} as a real Prometheus sees it: Debian's {@code prometheus} (installed by
 * the launcher) scrapes bench every second on loopback, with its own temporary storage: a 3 s run
 * over tcp that meets back pressure (-FI_EAGAIN), then a 10 s run over shared memory. Prometheus's
 * rate of operations must agree with bench's own rate, the refused calls must show, {@code promtool
 * check metrics} must pass on a scrape, and every PromQL expression of the Grafana dashboard
 * ({@code docker/grafana/dashboards}), with its variables picked as a user would for this run, must
 * return series. Prometheus is stopped and its storage removed whatever happens.
 */
@RequiresProvider("ucx")
class RealPrometheusTest {
  private static final Path PROMETHEUS = Path.of("/usr/bin/prometheus");
  private static final Path PROMTOOL = Path.of("/usr/bin/promtool");
  private static final Path DASHBOARD = Path.of("../docker/grafana/dashboards/fiucx.json");
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void prometheusSeesWhatBenchDoes() throws Exception {
    assertTrue(
        Files.isExecutable(PROMETHEUS) && Files.isExecutable(PROMTOOL),
        "Debian's prometheus package is missing (./fiucx installs it)");
    int metricsPort = freePort();
    int prometheusPort = freePort();
    Path dir = Files.createTempDirectory("fiucx-prometheus-");
    Process prometheus = null;
    try {
      Files.writeString(
          dir.resolve("prometheus.yml"),
          """
          global:
            scrape_interval: 1s
            evaluation_interval: 1s
          scrape_configs:
            - job_name: fiucx-bench
              static_configs:
                - targets: ['127.0.0.1:%d']
          """
              .formatted(metricsPort));
      prometheus =
          new ProcessBuilder(
                  PROMETHEUS.toString(),
                  "--config.file=" + dir.resolve("prometheus.yml"),
                  "--storage.tsdb.path=" + dir.resolve("data"),
                  "--web.listen-address=127.0.0.1:" + prometheusPort)
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("prometheus.log").toFile())
              .start();
      String api = "http://127.0.0.1:" + prometheusPort;
      awaitReady(api, prometheus);

      // first a short run over tcp, where every operation waits for the target: under manual
      // progress nothing completes while bench fills its window, so a window beyond the endpoint's
      // 4096 slots always makes calls answer -FI_EAGAIN (automatic progress completes them as they
      // go, and on a quiet machine the window never fills), the back pressure that bench meets and
      // the metrics count
      BenchCli.Run refused =
          BenchCli.run(
              "bench",
              "--transport",
              "tcp",
              "--progress",
              "manual",
              "-O",
              "6000",
              "-w",
              "0",
              "--duration",
              "3s",
              "--metrics-port",
              Integer.toString(metricsPort),
              "--metrics-linger",
              "30s");
      assertEquals(0, refused.exit(), refused.err());
      // an errno's series exists once counted, so only this run has any: the dashboard's errors
      // are queried at its end, which the linger puts two scrapes after its last count
      String refusedAt = String.format(Locale.ROOT, "%.3f", System.currentTimeMillis() / 1000.0);
      // then the rate: shared memory is steady once compiled (the warm-up calls), tcp here is not
      CompletableFuture<BenchCli.Run> bench =
          CompletableFuture.supplyAsync(
              () ->
                  BenchCli.run(
                      "bench",
                      "-O",
                      "16",
                      "-w",
                      "10000000",
                      "--duration",
                      "10s",
                      "--csv",
                      "--metrics-port",
                      Integer.toString(metricsPort),
                      "--metrics-latency"));
      String scrape = awaitScrape(metricsPort, bench);
      Process lint = new ProcessBuilder(PROMTOOL.toString(), "check", "metrics").start();
      lint.getOutputStream().write(scrape.getBytes(StandardCharsets.UTF_8));
      lint.getOutputStream().close();
      String lintSaid = new String(lint.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      lintSaid += new String(lint.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
      assertEquals(0, lint.waitFor(), "promtool check metrics: " + lintSaid);

      BenchCli.Run run = bench.get(120, TimeUnit.SECONDS);
      assertEquals(0, run.exit(), run.err());
      double benchRate = csvRate(run.out());
      // the machine's other load moves the rate within a run, so Prometheus's 10 s must be bench's
      // 10 s: they end where the count of operations stops moving, the last second before it
      String at = String.format(Locale.ROOT, "%.3f", lastMovingSample(api) - 1.0);

      JsonNode byMechanism =
          query(api, "sum by (mechanism) (rate(fiucx_atomic_operations_total[10s])) > 0", at);
      assertEquals(1, byMechanism.size(), "one mechanism ran: " + byMechanism);
      assertEquals("native", byMechanism.get(0).path("metric").path("mechanism").asText());
      double promRate = byMechanism.get(0).path("value").get(1).asDouble();
      System.err.printf("rate: Prometheus %.0f/s, bench %.0f/s%n", promRate, benchRate);
      assertTrue(
          Math.abs(promRate - benchRate) <= 0.2 * benchRate,
          "Prometheus rate " + promRate + "/s against bench's " + benchRate + "/s");

      JsonNode eagain =
          query(
              api,
              "max_over_time(fiucx_atomic_errors_total{errno=\"FI_EAGAIN\",where=\"call\"}[2m]) > 0",
              at);
      assertEquals(1, eagain.size(), "the refused calls bench met: " + eagain);

      // the dashboard's variables as a user picks this run: each must offer its value
      Map<String, String> picked =
          Map.of(
              "job", "fiucx-bench",
              "instance", "127.0.0.1:" + metricsPort,
              "op", "FI_SUM",
              "mechanism", "native");
      JsonNode dashboard = JSON.readTree(DASHBOARD.toFile());
      assertEquals(picked.keySet(), variablesOffer(api, dashboard, picked, at));
      List<String> empty = new ArrayList<>();
      for (String expr : dashboardExpressions(dashboard)) {
        String when = expr.contains("fiucx_atomic_errors_total") ? refusedAt : at;
        if (query(api, substitute(expr, picked), when).isEmpty()) {
          empty.add(expr);
        }
      }
      assertEquals(List.of(), empty, "dashboard expressions that return no series");
    } finally {
      if (prometheus != null) {
        prometheus.destroy();
        if (!prometheus.waitFor(10, TimeUnit.SECONDS)) {
          prometheus.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      }
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  /**
   * The time of the first sample at which the operation count reached its final value (bench's
   * measured run ended in the second before).
   */
  private double lastMovingSample(String api) throws Exception {
    double now = System.currentTimeMillis() / 1000.0;
    String url =
        api
            + "/api/v1/query_range?query="
            + URLEncoder.encode(
                "sum(fiucx_atomic_operations_total{outcome=\"ok\"})", StandardCharsets.UTF_8)
            + "&start="
            + (long) (now - 60)
            + "&end="
            + (long) now
            + "&step=1";
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    JsonNode values = JSON.readTree(r.body()).path("data").path("result").path(0).path("values");
    assertTrue(values.size() > 10, "the operation count over the last minute: " + r.body());
    String last = values.get(values.size() - 1).get(1).asText();
    for (JsonNode v : values) {
      if (v.get(1).asText().equals(last)) {
        return v.get(0).asDouble();
      }
    }
    throw new AssertionError("unreachable");
  }

  /**
   * Every {@code expr} of the dashboard's panels, each of whose selectors filters by the variables
   * that apply to its metric: job and instance on all, op and mechanism on a cell's metrics.
   */
  private static List<String> dashboardExpressions(JsonNode dashboard) {
    List<String> exprs = new ArrayList<>();
    for (JsonNode panel : dashboard.path("panels")) {
      for (JsonNode target : panel.path("targets")) {
        String expr = target.path("expr").asText();
        Matcher m = Pattern.compile("(fiucx_[a-z_]+)(\\{[^}]*})?").matcher(expr);
        while (m.find()) {
          String selector = m.group(2) == null ? "" : m.group(2);
          assertTrue(
              selector.startsWith("{job=~\"$job\", instance=~\"$instance\""),
              "a selector without $job and $instance: " + expr);
          boolean cell = m.group(1).matches("fiucx_atomic_(operations|elements|latency)_.*");
          assertEquals(
              cell,
              selector.contains(", op=~\"$op\", mechanism=~\"$mechanism\""),
              "$op and $mechanism on a cell's metrics only: " + expr);
        }
        exprs.add(expr);
      }
    }
    assertEquals(12, exprs.size(), "the dashboard's expressions: " + exprs);
    return exprs;
  }

  /**
   * {@code expr} with the variables {@code picked} and a 10 s rate interval, as Grafana sends it.
   */
  private static String substitute(String expr, Map<String, String> picked) {
    String s = expr.replace("$__rate_interval", "10s");
    for (Map.Entry<String, String> v : picked.entrySet()) {
      s = s.replace("$" + v.getKey(), v.getValue());
    }
    assertEquals(-1, s.indexOf('$'), "a variable the dashboard does not define: " + expr);
    return s;
  }

  /**
   * The dashboard's variables whose {@code label_values(selector, label)}, with the variables
   * before it picked, offers the value {@code picked} names (as Grafana asks Prometheus for them).
   */
  private Set<String> variablesOffer(
      String api, JsonNode dashboard, Map<String, String> picked, String time) throws Exception {
    Pattern labelValues = Pattern.compile("label_values\\((.+), ([a-z_]+)\\)");
    Set<String> offering = new TreeSet<>();
    for (JsonNode variable : dashboard.path("templating").path("list")) {
      String name = variable.path("name").asText();
      Matcher m = labelValues.matcher(variable.path("query").asText());
      assertTrue(m.matches(), "variable " + name + ": " + variable.path("query"));
      long end = (long) Double.parseDouble(time);
      String url =
          api
              + "/api/v1/label/"
              + m.group(2)
              + "/values?match[]="
              + URLEncoder.encode(substitute(m.group(1), picked), StandardCharsets.UTF_8)
              + "&start="
              + (end - 60)
              + "&end="
              + end;
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(url)).build(),
              HttpResponse.BodyHandlers.ofString());
      JsonNode values = JSON.readTree(r.body()).path("data");
      for (JsonNode v : values) {
        if (v.asText().equals(picked.get(name))) {
          offering.add(name);
        }
      }
      assertTrue(offering.contains(name), "variable " + name + " offers " + r.body());
    }
    return offering;
  }

  /** The result vector of an instant query at {@code time}. */
  private JsonNode query(String api, String promql, String time) throws Exception {
    String url =
        api
            + "/api/v1/query?query="
            + URLEncoder.encode(promql, StandardCharsets.UTF_8)
            + "&time="
            + time;
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    JsonNode body = JSON.readTree(r.body());
    assertEquals("success", body.path("status").asText(), promql + ": " + r.body());
    return body.path("data").path("result");
  }

  private void awaitReady(String api, Process prometheus) throws Exception {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (true) {
      assertTrue(prometheus.isAlive(), () -> "prometheus exited: " + prometheus.exitValue());
      try {
        HttpResponse<Void> r =
            http.send(
                HttpRequest.newBuilder(URI.create(api + "/-/ready")).build(),
                HttpResponse.BodyHandlers.discarding());
        if (r.statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      assertTrue(System.nanoTime() - deadline < 0, "prometheus not ready within 30 s");
      Thread.sleep(100);
    }
  }

  /** A scrape of bench's endpoint once it serves operations (within 30 s). */
  private String awaitScrape(int port, CompletableFuture<?> bench) throws Exception {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (true) {
      assertTrue(!bench.isDone(), "bench ended before its endpoint served");
      String page = MetricsPage.fetch(http, port);
      if (page != null && page.contains("outcome=\"ok\"} ")) {
        return page;
      }
      assertTrue(System.nanoTime() - deadline < 0, "bench's /metrics did not answer in 30 s");
      Thread.sleep(200);
    }
  }

  private static double csvRate(String csv) {
    String[] lines = csv.strip().split("\n");
    List<String> header = List.of(lines[0].split(","));
    String[] row = lines[lines.length - 1].split(",");
    return Double.parseDouble(row[header.indexOf("ops_per_s")]);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
