package dev.fiucx.cli;

import dev.fiucx.AtomicFamily;
import dev.fiucx.ConnectedEndpoint;
import dev.fiucx.Connection;
import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import dev.fiucx.PeerRegion;
import dev.fiucx.conformance.report.ConformanceReport;
import dev.fiucx.conformance.suite.CheckResult;
import dev.fiucx.conformance.suite.Conformance;
import dev.fiucx.conformance.suite.SuiteConfig;
import dev.fiucx.perf.Bench;
import dev.fiucx.perf.MetricsEndpoint;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code fiucx demo}: the whole tour on one machine, in under a minute over shared memory. It
 * starts a {@code fiucx serve} as a second process, connects to it as users do ({@code
 * Fabric.connect}), shows the provider's facts and capability table, does a few atomics of every
 * mechanism on the serve's memory (checked against the reference semantics), runs a short
 * conformance pass, a short bench against the serve with ucx_perftest beside it, scrapes this
 * process's {@code /metrics} once, and stops the serve. Exit status 0 only when every part worked.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "The tour on one machine: a serve, the provider's facts and capability table, atomics of"
          + " every mechanism, a short conformance pass, a short bench against ucx_perftest,"
          + " /metrics, and the serve's shutdown.",
      "Exit status 0 when every part worked, 1 otherwise."
    })
final class DemoCommand implements Callable<Integer>, ProviderGate.OpensProvider {
  /** The serve's region the demo's atomics use. */
  static final String DEMO_REGION = "demo";

  /** The serve's region the bench uses (64 bytes per thread; one thread). */
  static final String BENCH_REGION = "bench";

  /** The serve's regions, {@code NAME:SIZE}. */
  private static final List<String> SERVE_REGIONS =
      List.of(DEMO_REGION + ":4k", BENCH_REGION + ":64k");

  /** The parts in order; each prints a heading with its number. */
  static final List<String> PARTS =
      List.of("serve", "provider", "atomics", "conformance", "bench", "metrics", "shutdown");

  /** The provider facts the demo shows (every one: {@code fiucx info --provider ucx}). */
  private static final List<String> FACTS =
      List.of(
          "ucx.version",
          "ucx.tls",
          "ucx.atomic_mode",
          "ucx.direct_path",
          "remote locks",
          "timeouts",
          "self-test");

  /** A JVM and UCX start in a few seconds; a busy machine takes longer. */
  private static final Duration SERVE_START = Duration.ofSeconds(60);

  /** SIGTERM to exit: a serve stops within a few seconds. */
  private static final Duration SERVE_STOP = Duration.ofSeconds(10);

  @Option(
      names = "--transport",
      defaultValue = "shm",
      description =
          "the serve's transport, which every part uses: shm or tcp (default shm; tcp"
              + " takes longer)")
  String transport;

  private PrintStream out;
  private final List<String> failed = new ArrayList<>();
  private final Map<String, Double> seconds = new LinkedHashMap<>();
  private ServeProcess serve;
  private Connection connection;

  /** One part of the tour: true when it worked; an exception also fails it. */
  @FunctionalInterface
  private interface Part {
    boolean run() throws Exception;
  }

  @Override
  public String providerToOpen() {
    return "ucx";
  }

  @Override
  public Integer call() {
    out = System.out; // as it is now: a test may have set it
    long start = System.nanoTime();
    out.printf(
        "fiucx demo: fiucx on this machine over %s, in %d parts: %s%n",
        transport, PARTS.size(), String.join(", ", PARTS));
    try {
      part("serve", "a second process exposes memory for atomics", this::startServe);
      part(
          "provider",
          "this process connects to it: the provider's facts and table",
          this::provider);
      part(
          "atomics",
          "one call of each kind on the serve's region '" + DEMO_REGION + "'",
          this::atomics);
      part("conformance", "a short conformance pass over " + transport, this::conformance);
      part("bench", "fetch FI_SUM FI_UINT64 against the serve, beside ucx_perftest", this::bench);
      part("metrics", "this process's /metrics, scraped once", this::metrics);
    } finally {
      part("shutdown", "disconnect, SIGTERM to the serve", this::shutdown);
    }
    double total = (System.nanoTime() - start) / 1e9;
    String times =
        seconds.entrySet().stream()
            .map(e -> String.format(Locale.ROOT, "%s %.1f", e.getKey(), e.getValue()))
            .collect(Collectors.joining(", "));
    out.println();
    if (failed.isEmpty()) {
      out.printf(Locale.ROOT, "fiucx demo: every part worked, in %.1f s (%s)%n", total, times);
      return 0;
    }
    out.printf(
        Locale.ROOT,
        "fiucx demo: FAILED: %s; in %.1f s (%s)%n",
        String.join(", ", failed),
        total,
        times);
    return 1;
  }

  private void part(String name, String title, Part body) {
    out.printf("%n[%d/%d] %s: %s%n", PARTS.indexOf(name) + 1, PARTS.size(), name, title);
    long start = System.nanoTime();
    boolean ok;
    try {
      ok = body.run();
    } catch (Exception e) {
      out.println("  FAILED: " + (e.getMessage() != null ? e.getMessage() : e.toString()));
      ok = false;
    }
    out.flush();
    seconds.put(name, (System.nanoTime() - start) / 1e9);
    if (!ok) {
      failed.add(name);
    }
  }

  /** Whether the parts that talk to the serve can run; says why not when they cannot. */
  private boolean connected() {
    if (connection == null) {
      out.println("  not run: no connection to a serve (see above)");
      return false;
    }
    return true;
  }

  private boolean startServe() throws Exception {
    List<String> args = new ArrayList<>();
    SERVE_REGIONS.forEach(r -> args.addAll(List.of("--region", r)));
    args.addAll(List.of("--transport", transport));
    out.println("  $ fiucx serve --port 0 --bind 127.0.0.1 " + String.join(" ", args));
    serve = new ServeProcess(args, SERVE_START);
    out.println("  fiucx serve: listening on " + serve.hostPort());
    // then its provider line and one line per region
    for (int regions = 0; regions < SERVE_REGIONS.size(); ) {
      String line = serve.nextLine(Duration.ofSeconds(30));
      if (line == null) {
        out.println("  the serve stopped talking before it named its regions");
        return false;
      }
      out.println("  " + line);
      regions += line.startsWith("fiucx serve: region ") ? 1 : 0;
    }
    out.printf("  (pid %d; it progresses by itself and stops on SIGTERM)%n", serve.pid());
    return true;
  }

  private boolean provider() {
    if (serve == null) {
      out.println("  not run: no serve to connect to (see above)");
      return false;
    }
    // the serve's transport (a null transport takes it); manual progress: this thread's reads
    connection =
        Fabric.connect(
            serve.hostPort(), new DomainAttr(null, DomainAttr.Progress.MANUAL, false, Map.of()));
    out.printf(
        "  Fabric.connect(\"%s\", ...): a domain of its own with the serve as its peer; regions %s%n",
        connection.target(),
        connection.regions().stream()
            .map(r -> r.name() + " (" + r.length() + " bytes)")
            .collect(Collectors.joining(", ")));
    Map<String, String> facts = connection.domain().describe();
    for (String k : FACTS) {
      if (facts.containsKey(k)) {
        out.printf("  %-16s %s%n", k, facts.get(k));
      }
    }
    out.println("  (every fact: ./fiucx info --provider ucx)");
    out.println();
    CapabilityTableView.print(InfoCommand.asked(connection.domain()), out);
    return true;
  }

  private boolean atomics() {
    if (!connected()) {
      return false;
    }
    PeerRegion region = connection.region(DEMO_REGION);
    try (ConnectedEndpoint ep = connection.openEndpoint(16)) {
      return new DemoAtomics(connection.domain(), ep, region, out).run();
    }
  }

  /** The fetch family's cells: every mechanism, every call form, in a few seconds over shm. */
  private boolean conformance() {
    out.println(
        "  every fetch atomic (op x datatype) in every call form, edge and random values, checked"
            + " byte for byte");
    out.println(
        "  against the reference semantics; the target is a second domain in this process"
            + " (all of it: ./fiucx conformance)");
    long start = System.nanoTime();
    List<CheckResult> results =
        Conformance.run(
            new SuiteConfig("ucx", transport, false), Set.of(AtomicFamily.FETCH), false, r -> {});
    double took = (System.nanoTime() - start) / 1e9;
    ConformanceReport report = new ConformanceReport("ucx", transport, results);
    Map<String, Integer> cells = new TreeMap<>();
    for (FiOp op : FiOp.values()) {
      for (FiDatatype dt : FiDatatype.values()) {
        cells.merge(report.cellLabel(AtomicFamily.FETCH, op, dt), 1, Integer::sum);
      }
    }
    int refused = cells.getOrDefault("-", 0);
    out.printf(
        "  fetch atomics: %d cells carried out (native %d, cas %d, lock %d), %d failed, %d"
            + " refused as the man page says%n",
        FiOp.values().length * FiDatatype.values().length - refused,
        cells.getOrDefault("native", 0),
        cells.getOrDefault("cas", 0),
        cells.getOrDefault("lock", 0),
        cells.getOrDefault("FAIL", 0),
        refused);
    out.printf(
        Locale.ROOT, "  %d checks: %s, in %.1f s%n", results.size(), report.summaryLine(), took);
    List<CheckResult> failures = report.failures();
    for (CheckResult r : failures.subList(0, Math.min(5, failures.size()))) {
      out.printf(
          "  FAIL %s %s %s %s: %s%n",
          r.family().label(), r.op().fiName(), r.datatype().fiName(), r.call(), r.detail());
    }
    return report.exitStatus() == 0 && !results.isEmpty();
  }

  /** bench --connect against the serve's bench region, in rounds alternating with ucx_perftest. */
  private boolean bench() {
    if (!connected()) {
      return false;
    }
    List<String> args =
        new ArrayList<>(
            List.of(
                "bench",
                "--connect",
                serve.hostPort(),
                "--region",
                BENCH_REGION,
                // long enough for a progress line (one a second) in each run
                "--duration",
                "1200ms",
                // past the JIT's compilations on shm; a tcp call takes 100-10,000 times longer
                "-w",
                transport.equals("shm") ? "200000" : "1000"));
    boolean perftest = Bench.ucxPerftestFound();
    if (perftest) {
      args.add("--vs-ucx-perftest");
    }
    out.println("  $ fiucx " + String.join(" ", args));
    if (!perftest) {
      out.println("  ucx_perftest is not installed (Debian: ucx-utils): no ratio to it");
    }
    out.flush();
    int status = FiucxCli.commandLine().execute(args.toArray(String[]::new));
    System.err.flush();
    if (status != 0) {
      out.println("  bench exited with status " + status);
    }
    return status == 0;
  }

  /** /metrics of this process's initiator, as Prometheus scrapes it: the atomics above, counted. */
  private boolean metrics() throws Exception {
    if (!connected()) {
      return false;
    }
    PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
    try (MetricsEndpoint metrics =
        new MetricsEndpoint("127.0.0.1", 0, List.of(connection.domain()), false, quiet)) {
      String url = "http://127.0.0.1:" + metrics.port() + "/metrics";
      out.println("  " + url + " (Prometheus text format; bench and serve have --metrics-port)");
      // the JDK's plain client: HttpClient's start alone took 2-3 s on two busy cores
      HttpURLConnection http = (HttpURLConnection) URI.create(url).toURL().openConnection();
      http.setConnectTimeout(10_000);
      http.setReadTimeout(10_000);
      String body;
      try {
        if (http.getResponseCode() != 200) {
          out.println("  the scrape answered HTTP " + http.getResponseCode());
          return false;
        }
        try (InputStream in = http.getInputStream()) {
          body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
      } finally {
        http.disconnect();
      }
      List<String> lines = body.lines().toList();
      List<String> operations =
          lines.stream()
              .filter(l -> l.startsWith("fiucx_atomic_operations_total{"))
              .filter(l -> l.contains("outcome=\"ok\"") && !l.endsWith(" 0.0"))
              .toList();
      out.printf(
          "  one scrape: %d lines, %d of them fiucx_atomic_operations_total of part 3's calls (and"
              + " of the writes%n  and reads around them); one cell of each mechanism:%n",
          lines.size(), operations.size());
      Map<String, String> byMechanism = new LinkedHashMap<>();
      boolean everyRow = true;
      for (DemoAtomics.Row row : DemoAtomics.ROWS) {
        List<String> mine = operations.stream().filter(l -> ofCell(l, row)).toList();
        everyRow &= mine.size() == 1;
        mine.forEach(l -> byMechanism.putIfAbsent(tag(l, "mechanism"), l));
      }
      byMechanism.values().forEach(l -> out.println("  " + l));
      // part 3 made exactly one fetch FI_SUM FI_UINT64 call on this domain
      String first =
          operations.stream()
              .filter(l -> ofCell(l, DemoAtomics.ROWS.getFirst()))
              .findFirst()
              .orElse("");
      if (!everyRow || !first.endsWith(" 1.0")) {
        out.println("  not every call of part 3 is counted (one fetch FI_SUM FI_UINT64 expected)");
        return false;
      }
      return true;
    }
  }

  /** Whether a metric line is of the row's (family, op, datatype). */
  private static boolean ofCell(String line, DemoAtomics.Row row) {
    return tag(line, "family").equals(row.family().label())
        && tag(line, "op").equals(row.op().fiName())
        && tag(line, "datatype").equals(row.datatype().fiName());
  }

  /** The value of {@code name="..."} in a Prometheus line, or empty. */
  private static String tag(String line, String name) {
    String key = name + "=\"";
    int at = line.indexOf("{" + key);
    at = at >= 0 ? at : line.indexOf("," + key);
    if (at < 0) {
      return "";
    }
    int from = at + 1 + key.length();
    int to = line.indexOf('"', from);
    return to < 0 ? "" : line.substring(from, to);
  }

  private boolean shutdown() {
    if (serve == null) {
      out.println("  no serve to stop");
      return false;
    }
    if (connection != null) {
      connection.close();
      out.println("  this process closed its connection (BYE to the serve)");
    }
    long start = System.nanoTime();
    int status = serve.stop(SERVE_STOP);
    double took = (System.nanoTime() - start) / 1e9;
    out.printf("  SIGTERM to the serve (pid %d); what it printed since it started:%n", serve.pid());
    for (String l = serve.nextLine(Duration.ofSeconds(2));
        l != null;
        l = serve.nextLine(Duration.ofSeconds(2))) {
      out.println("  " + l);
    }
    if (status < 0) {
      out.printf("  the serve did not stop within %d s: killed%n", SERVE_STOP.toSeconds());
      return false;
    }
    out.printf(Locale.ROOT, "  the serve exited with status %d after %.1f s%n", status, took);
    return status == 0;
  }
}
