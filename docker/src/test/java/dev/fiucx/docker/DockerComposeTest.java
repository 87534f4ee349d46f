package dev.fiucx.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fiucx.conformance.remote.ShmFiles;
import java.io.BufferedReader;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docker/ as a user runs it, on this machine: Docker (installed and started when missing), the base
 * image made from Debian's packages when missing ({@code base-image.sh}, whose tarball stays
 * cached), the fiucx image ({@code build-context.sh} and the Dockerfile) and the Prometheus image
 * built from this build's jars, then {@code compose.yaml} without Grafana: both initiators must
 * exit 0, and the tickets they fetched from the serve's one counter must be exactly 0 .. 2N-1, each
 * once; Prometheus in its container must have seen both of them doing atomics and the serve
 * answering; and SIGTERM must stop the serve with exit 0. Containers, network and the images built
 * here are removed whatever happens (the base image stays: it is a cache), and a dockerd started
 * here is stopped.
 *
 * <p>Every name is the run's own (images {@code fiucx:test-ID}, project {@code fiucxtestID}) and
 * every port a free one, because with host networking the containers' ports are the host's.
 */
class DockerComposeTest {
  /** Surefire runs in the module's directory, which is docker/. */
  private static final Path DOCKER_DIR = Path.of("").toAbsolutePath();

  /**
   * Calls per initiator, with no warm-up, so the tickets both fetched are exactly 0 .. 2N-1. On the
   * mapped shared-memory path a run of this size lasts a second or more, so Prometheus scrapes
   * every 250 ms.
   */
  private static final int ITERATIONS = 3_000_000;

  private static final String SCRAPE_INTERVAL = "250ms";

  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void composeRunsServeInitiatorsAndPrometheus() throws Exception {
    assumeTrue(
        "root".equals(System.getProperty("user.name")),
        "installs Debian packages and runs dockerd: needs root");
    String id = Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16);
    String fiucxImage = "fiucx:test-" + id;
    String prometheusImage = "fiucx-prometheus:test-" + id;
    String project = "fiucxtest" + id;
    Map<String, String> env = new HashMap<>();
    env.put("FIUCX_IMAGE", fiucxImage);
    env.put("FIUCX_PROMETHEUS_IMAGE", prometheusImage);
    env.put("FIUCX_BENCH_ITERATIONS", Integer.toString(ITERATIONS));
    env.put("FIUCX_BENCH_WARMUP", "0");
    env.put("FIUCX_SCRAPE_INTERVAL", SCRAPE_INTERVAL);
    List<String> compose =
        List.of(DockerDaemon.COMPOSE, "-p", project, "-f", "compose.yaml", "--ansi", "never");

    // the containers share this host's /dev/shm: a UCX process killed at teardown can leave its
    // file there
    Set<String> shmBefore = ShmFiles.names();
    long t0 = System.nanoTime();
    // the initiators' fetched tickets, written through a bind mount
    Path out = Files.createTempDirectory("fiucx-docker-out-");
    env.put("FIUCX_OUT", out.toString());
    try (DockerDaemon daemon = DockerDaemon.ensure()) {
      Throwable failure = null;
      try {
        step("docker ready (dockerd started here: " + daemon.startedHere() + ")", t0);
        check(Duration.ofMinutes(10), Map.of("DOCKER", DockerDaemon.DOCKER), "./base-image.sh");
        step("base image", t0);
        check(
            Duration.ofMinutes(3),
            Map.of("JAVA_HOME", System.getProperty("java.home")),
            "./build-context.sh",
            "target/image-classpath.txt",
            "target/context");
        step("build context (jars, jlink)", t0);
        check(
            Duration.ofMinutes(5),
            Map.of(),
            DockerDaemon.DOCKER,
            "build",
            "--network",
            "host",
            "-f",
            "Dockerfile",
            "-t",
            fiucxImage,
            "target/context");
        step("fiucx image", t0);
        check(
            Duration.ofMinutes(5),
            Map.of(),
            DockerDaemon.DOCKER,
            "build",
            "--network",
            "host",
            "-t",
            prometheusImage,
            "prometheus");
        step("Prometheus image", t0);

        // the ports are picked only now, after minutes of building, and below the ephemeral range
        List<String> portNames =
            List.of(
                "FIUCX_SERVE_PORT",
                "FIUCX_SERVE_METRICS_PORT",
                "FIUCX_BENCH1_METRICS_PORT",
                "FIUCX_BENCH2_METRICS_PORT",
                "FIUCX_PROMETHEUS_PORT");
        List<Integer> ports = freePorts(portNames.size());
        for (int i = 0; i < ports.size(); i++) {
          env.put(portNames.get(i), Integer.toString(ports.get(i)));
        }
        check(Duration.ofMinutes(3), env, with(compose, "up", "-d"));
        String bench1 = containerOf(compose, env, "bench-1");
        String bench2 = containerOf(compose, env, "bench-2");
        String serve = containerOf(compose, env, "serve");
        for (String bench : List.of(bench1, bench2)) {
          String exit =
              check(Duration.ofMinutes(5), Map.of(), DockerDaemon.DOCKER, "wait", bench).strip();
          String log = logs(bench);
          assertEquals("0", exit, "an initiator's exit code; its output:\n" + log);
          assertTrue(
              log.contains("fetched tickets, distinct per element"),
              "the initiator's own check of its tickets; its output:\n" + log);
        }
        assertTickets(out.resolve("bench-1/fetched.txt"), out.resolve("bench-2/fetched.txt"));
        step("both initiators done", t0);

        String prometheus = "http://127.0.0.1:" + env.get("FIUCX_PROMETHEUS_PORT");
        // what Prometheus saw of each initiator: its cell at 0 before the run and at its full count
        // after it (each initiator serves /metrics idle until scraped before and after its run,
        // --metrics-linger, and shows its cell's series before its first operation), and from
        // those the highest rate: over 30 s, since a quiet machine runs an initiator's calls in
        // under a second and two spinning initiators leave Prometheus no core to scrape meanwhile
        String ops = "fiucx_atomic_operations_total{job=\"fiucx-bench\",outcome=\"ok\"}";
        List<String> initiators =
            sorted(
                "127.0.0.1:" + env.get("FIUCX_BENCH1_METRICS_PORT"),
                "127.0.0.1:" + env.get("FIUCX_BENCH2_METRICS_PORT"));
        // one series per initiator (one cell, one domain): its raw samples, first and last
        JsonNode first = query(prometheus, "min_over_time(" + ops + "[10m])");
        JsonNode last = query(prometheus, "max_over_time(" + ops + "[10m])");
        JsonNode rates =
            query(
                prometheus,
                "max_over_time((sum by (instance) (rate(" + ops + "[30s])))[10m:250ms])");
        for (JsonNode seen : List.of(first, last, rates)) {
          assertEquals(initiators, instances(seen), "the initiators Prometheus saw: " + seen);
        }
        for (int i = 0; i < initiators.size(); i++) {
          assertEquals(0.0, first.get(i).path("value").get(1).asDouble(), "before: " + first);
          assertEquals(
              (double) ITERATIONS, last.get(i).path("value").get(1).asDouble(), "after: " + last);
          double perSecond = rates.get(i).path("value").get(1).asDouble();
          System.err.printf(
              "Prometheus: %s at up to %.0f ops/s%n",
              rates.get(i).path("metric").path("instance").asText(), perSecond);
          assertTrue(perSecond > 0, "rate " + rates.get(i));
        }
        JsonNode serveUp = query(prometheus, "max_over_time(up{job=\"fiucx-serve\"}[10m])");
        assertEquals(1, serveUp.size(), "the serve's scrapes: " + serveUp);
        assertEquals("1", serveUp.get(0).path("value").get(1).asText(), "serve scraped");

        // SIGTERM: the serve revokes its keys, unmaps, and exits 0
        check(Duration.ofMinutes(1), env, with(compose, "stop", "-t", "10", "serve"));
        String serveExit =
            check(
                    Duration.ofMinutes(1),
                    Map.of(),
                    DockerDaemon.DOCKER,
                    "inspect",
                    "-f",
                    "{{.State.ExitCode}}",
                    serve)
                .strip();
        assertEquals("0", serveExit, "the serve's exit on SIGTERM; its output:\n" + logs(serve));
        step("checked", t0);
      } catch (Throwable t) {
        failure = t;
        throw t;
      } finally {
        if (failure != null) {
          printLogs(compose, env);
        }
        List<String> problems = new ArrayList<>();
        teardown(problems, env, with(compose, "down", "--volumes", "--remove-orphans", "-t", "10"));
        teardown(problems, Map.of(), DockerDaemon.DOCKER, "rmi", "-f", fiucxImage, prometheusImage);
        int removed = ShmFiles.removeOrphans(shmBefore).size();
        if (removed > 0) {
          System.err.println("removed " + removed + " UCX shared-memory files left in /dev/shm");
        }
        if (!problems.isEmpty()) {
          AssertionError teardownFailed = new AssertionError("teardown: " + problems);
          if (failure != null) {
            failure.addSuppressed(teardownFailed);
          } else {
            throw teardownFailed;
          }
        }
        step("torn down", t0);
      }
    } finally {
      deleteTree(out);
    }
  }

  /**
   * Every ticket both initiators fetched from the serve's one counter (lines "ADDRESS VALUE"):
   * together exactly 0 .. 2N-1, each once.
   */
  private static void assertTickets(Path... fetched) throws IOException {
    int total = ITERATIONS * fetched.length;
    BitSet seen = new BitSet(total);
    for (Path file : fetched) {
      int lines = 0;
      try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.US_ASCII)) {
        for (String line = in.readLine(); line != null; line = in.readLine()) {
          lines++;
          String[] fields = line.split(" ");
          assertEquals("0", fields[0], file + ": the counter's address in " + line);
          long ticket = Long.parseLong(fields[1]);
          assertTrue(ticket >= 0 && ticket < total, file + ": ticket out of range: " + line);
          assertTrue(!seen.get((int) ticket), file + ": ticket fetched twice: " + line);
          seen.set((int) ticket);
        }
      }
      assertEquals(ITERATIONS, lines, file + ": one line per call");
    }
    assertEquals(total, seen.cardinality(), "tickets 0 .. " + (total - 1) + " each once");
  }

  /** A container's stdout and stderr (bench writes its table to stderr). */
  private static String logs(String container) throws IOException, InterruptedException {
    Command.Result r =
        Command.run(
            Duration.ofMinutes(1), Map.of(), DOCKER_DIR, DockerDaemon.DOCKER, "logs", container);
    return r.output() + r.errors();
  }

  /** Every container's output, for a failed run. */
  private static void printLogs(List<String> compose, Map<String, String> env) {
    try {
      Command.Result logs =
          Command.run(Duration.ofMinutes(1), env, DOCKER_DIR, with(compose, "logs", "--no-color"));
      System.err.println("docker-compose logs:\n" + logs.output() + logs.errors());
    } catch (IOException | InterruptedException | AssertionError e) {
      System.err.println("docker-compose logs: " + e);
    }
  }

  private static String check(Duration bound, Map<String, String> env, String... command)
      throws IOException, InterruptedException {
    return Command.check(bound, env, DOCKER_DIR, command);
  }

  private static void teardown(List<String> problems, Map<String, String> env, String... command) {
    try {
      Command.Result r = Command.run(Duration.ofMinutes(2), env, DOCKER_DIR, command);
      if (r.exit() != 0) {
        problems.add(String.join(" ", command) + " exited " + r.exit() + ": " + r.tail());
      }
    } catch (IOException | InterruptedException | AssertionError e) {
      problems.add(String.join(" ", command) + ": " + e);
    }
  }

  private static String containerOf(List<String> compose, Map<String, String> env, String service)
      throws IOException, InterruptedException {
    String id = check(Duration.ofMinutes(1), env, with(compose, "ps", "-q", service)).strip();
    assertTrue(id.matches("[0-9a-f]{64}"), service + "'s container: " + id);
    return id;
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      System.err.println("could not remove " + dir + ": " + e);
    }
  }

  private static String[] with(List<String> command, String... more) {
    List<String> all = new ArrayList<>(command);
    all.addAll(List.of(more));
    return all.toArray(String[]::new);
  }

  private static List<String> instances(JsonNode result) {
    List<String> names = new ArrayList<>();
    for (JsonNode series : result) {
      names.add(series.path("metric").path("instance").asText());
    }
    names.sort(null);
    return names;
  }

  private static List<String> sorted(String... names) {
    return java.util.Arrays.stream(names).sorted().toList();
  }

  /** The result vector of an instant query now. */
  private JsonNode query(String prometheus, String promql) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(
                    URI.create(
                        prometheus
                            + "/api/v1/query?query="
                            + URLEncoder.encode(promql, StandardCharsets.UTF_8)))
                .timeout(Duration.ofSeconds(30))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    JsonNode body = JSON.readTree(r.body());
    assertEquals("success", body.path("status").asText(), promql + ": " + r.body());
    return body.path("data").path("result");
  }

  private static void step(String what, long t0) {
    System.err.printf("docker test: %s at %.1f s%n", what, (System.nanoTime() - t0) / 1e9);
  }

  /**
   * Distinct ports free on loopback now, below the kernel's ephemeral range: a port from {@code new
   * ServerSocket(0)} is an ephemeral one, which the machine's outgoing connections (other tests run
   * beside this one) may take before the container binds it.
   */
  private static List<Integer> freePorts(int n) throws IOException {
    // (Files.readString returns only the first byte of this /proc/sys file on JDK 25)
    String range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0);
    int ephemeralLow = Integer.parseInt(range.strip().split("\\s+")[0]);
    int low = 10_000;
    assertTrue(ephemeralLow - low >= 1000, "ports below the ephemeral range: " + range);
    List<Integer> ports = new ArrayList<>();
    for (int tries = 0; ports.size() < n && tries < 1000; tries++) {
      int port = ThreadLocalRandom.current().nextInt(low, ephemeralLow);
      if (ports.contains(port)) {
        continue;
      }
      try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        ports.add(port);
      } catch (IOException taken) {
        // someone listens there: another one
      }
    }
    assertEquals(n, ports.size(), "free ports below " + ephemeralLow + ": " + ports);
    return ports;
  }
}
