package dev.fiucx.perf.bench;

import dev.fiucx.AtomicAttr;
import dev.fiucx.BootstrapSecurity;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One invocation of bench on the initiator side: opens the initiator, checks the cell, reaches the
 * target (started here or given), runs what was asked (one run, a window sweep, or rounds against
 * ucx_perftest), prints the table and writes the files. Returns the exit status: 0, or 1 when a
 * call failed or the target held a wrong value; bad requests throw {@link BenchUsageException}.
 */
final class BenchSession {
  private BenchConfig cfg;
  private final BenchOutputs outputs;
  private final PrintStream human;
  private final PrintStream err;

  /**
   * @param stdout where the CSV goes, and the header and table unless there is CSV
   * @param stderr progress lines, diagnostics (and the table under {@code --csv})
   */
  BenchSession(BenchConfig cfg, BenchOutputs outputs, PrintStream stdout, PrintStream stderr) {
    this.cfg = cfg;
    this.outputs = outputs;
    this.human = outputs.csv() ? stderr : stdout;
    this.err = stderr;
  }

  private String serveRegion;
  private boolean targetSpins = true;
  private boolean transportGiven = true;
  private Path fetchedFile;

  /**
   * How the target bench starts itself progresses: in a loop of its own while a run is on ({@code
   * --server-progress spin}, the default) or by its domain's automatic progress.
   */
  BenchSession targetSpins(boolean spins) {
    this.targetSpins = spins;
    return this;
  }

  /**
   * Runs against the region {@code name} of a {@code fiucx serve} (instead of a bench target);
   * without {@code transportGiven} the initiator takes the serve's transport.
   */
  BenchSession againstServe(String name, boolean transportGiven) {
    this.serveRegion = name;
    this.transportGiven = transportGiven;
    return this;
  }

  /**
   * The shared secret of the target at {@code --connect} (a bench server's or a serve's), and the
   * serve's TLS trust. A target bench starts itself gets a random secret of its own instead.
   */
  BenchSession targetSecurity(BootstrapSecurity security) {
    this.targetSecurity = security;
    return this;
  }

  private BootstrapSecurity targetSecurity = BootstrapSecurity.none();

  /** Keeps every fetched value and writes them to {@code file} ({@code --fetched}), or null. */
  BenchSession writeFetched(Path file) {
    this.fetchedFile = file;
    return this;
  }

  private String metricsBind;
  private Integer metricsPort;
  private boolean metricsLatency;
  private java.time.Duration metricsLinger;

  /**
   * Serves /metrics on {@code port} of {@code bind} while the initiator is open (null: not), idle
   * before and after the run until scraped, at most {@code linger} (null: not at all).
   */
  BenchSession withMetrics(String bind, Integer port, boolean latency, java.time.Duration linger) {
    metricsBind = bind;
    metricsPort = port;
    metricsLatency = latency;
    metricsLinger = linger;
    return this;
  }

  /**
   * Serves /metrics with nothing running until a scraper has fetched it once more, at most {@link
   * #metricsLinger}: a scraper then has the counts before and after a run that is shorter than its
   * scrapes are apart (or that keeps the cores too busy for it to scrape at all). Waiting for the
   * scrape rather than for a fixed time is what Prometheus needs of a short-lived job: its first
   * scrape of a new target comes up to one interval late, later still on a loaded machine.
   */
  private void linger(MetricsEndpoint metrics, String when) {
    if (metrics == null || metricsLinger == null || metricsLinger.isZero()) {
      return;
    }
    long start = System.nanoTime();
    try {
      // two scrapes begun after now, the second served whole: a scraper may drop the first (a cold
      // one on a busy machine can outlast Prometheus's 1 s timeout; the compose test once found no
      // sample of the count before the run though bench had served a scrape), and it sends the
      // next only after the first ended
      boolean scraped = metrics.awaitScrapeAfter(metrics.scrapes() + 1, metricsLinger.toNanos());
      long ms = (System.nanoTime() - start) / 1_000_000;
      if (scraped) {
        err.printf("metrics: scraped %s, after %d ms%n", when, ms);
      } else {
        err.printf("metrics: not scraped %s within %d ms%n", when, metricsLinger.toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * @param host the target's bootstrap host, or null to start a target process here
   */
  int run(String host, int port, PrintStream stdout) throws IOException {
    ServeLink serve = null;
    if (serveRegion != null) {
      serve = new ServeLink(host, port, serveRegion, cfg.regionBytes(), targetSecurity);
      if (!transportGiven && serve.transport() != null) {
        cfg = cfg.withTransport(serve.transport());
      }
    }
    try (ServeLink s = serve) {
      return run(host, port, s, stdout);
    }
  }

  private int run(String host, int port, ServeLink serve, PrintStream stdout) throws IOException {
    List<Integer> windows = windows();
    try (BenchInitiator initiator =
            new BenchInitiator(cfg, windows.stream().max(Integer::compare).orElseThrow());
        MetricsEndpoint metrics =
            metricsPort == null
                ? null
                : new MetricsEndpoint(
                    metricsBind, metricsPort, initiator.domains(), metricsLatency, err)) {
      if (fetchedFile != null) {
        initiator.keepFetched();
      }
      AtomicAttr attr = checkedCell(initiator);
      if (metrics != null) {
        // a scrape before the run sees its series at 0, so rate() counts the run from its start
        metrics.show(cfg.family(), cfg.op(), cfg.datatype());
      }
      // the target started here takes a fresh secret, so no other process of this host runs in it
      ServerProcess started =
          host == null
              ? new ServerProcess(
                  cfg.transport(), targetSpins, List.of(), err, ServerProcess.randomSecret())
              : null;
      try (started;
          BenchTarget link =
              serve != null
                  ? serve
                  : new TargetLink(
                      started != null ? started.host() : host,
                      started != null ? started.port() : port,
                      cfg.regionBytes(),
                      started != null ? started.secret() : targetSecurity.secret())) {
        initiator.connect(link.address());
        String target =
            (started != null ? started.host() : host)
                + ":"
                + (started != null ? started.port() : port);
        // resolving the key needs the target's progress, which a spinning target gives in a run
        link.start();
        String path = initiator.endpoint(0).atomicPath(initiator.peer(0), link.key());
        link.stop();
        RunFacts facts =
            new RunFacts(
                target,
                started != null,
                serve == null ? null : serve.regionName(),
                started == null ? null : targetSpins ? "spin" : "auto",
                attr,
                path,
                initiator.domain().describe(),
                MachineFacts.collect());
        BenchHeader.print(human, cfg, facts);
        linger(metrics, "before the run");
        int rc = measure(initiator, link, facts, windows, stdout);
        linger(metrics, "after the run");
        return rc;
      }
    }
  }

  private int measure(
      BenchInitiator initiator,
      BenchTarget link,
      RunFacts facts,
      List<Integer> windows,
      PrintStream stdout)
      throws IOException {
    List<BenchResult> results = new ArrayList<>();
    PerftestComparison vs = null;
    if (outputs.comparesWithPerftest()) {
      vs = compare(initiator, link, facts);
      vs.rounds().forEach(r -> results.add(r.fiucx()));
    } else {
      for (int w : windows) {
        BenchResult r = initiator.run(cfg.withWindow(w), link, err);
        results.add(r);
        if (r.error() != 0) {
          break;
        }
      }
    }
    // the facts again: lanes a peer chose on first use show up now
    facts =
        new RunFacts(
            facts.target(),
            facts.targetStarted(),
            facts.servedRegion(),
            facts.targetProgress(),
            facts.attr(),
            facts.path(),
            initiator.domain().describe(),
            facts.machine());
    BenchResult main = results.getLast();
    printTable(results);
    if (vs != null) {
      vs.print(human);
    }
    if (outputs.csv()) {
      CsvLine.header(stdout);
      CsvLine.row(stdout, facts, main);
    }
    writeFiles(facts, main, outputs.sweepWindow() ? results : null, vs);
    if (fetchedFile != null && initiator.fetched() != null) {
      writeFetched(initiator.fetched());
    }
    return verdict(main);
  }

  private void printTable(List<BenchResult> results) {
    human.println();
    boolean mixed = results.stream().map(r -> r.config().window() == 1).distinct().count() > 1;
    ResultTable.header(
        human,
        mixed ? "round trip at window 1, per op above" : results.getFirst().latency().kind());
    for (int i = 0; i < results.size(); i++) {
      String stage =
          outputs.comparesWithPerftest()
              ? "round " + (i + 1)
              : i == results.size() - 1 ? "Final:" : "";
      ResultTable.row(human, stage, results.get(i));
    }
    ResultTable.footer(human);
    BenchResult last = results.getLast();
    human.println("target check: " + last.check().detail());
  }

  private int verdict(BenchResult main) {
    if (main.error() != 0) {
      err.println(
          "fiucx bench: a call failed with -"
              + FiErrno.errorString(-main.error())
              + " ("
              + main.error()
              + ")");
      return 1;
    }
    if (!main.check().ok()) {
      err.println("fiucx bench: the target holds a wrong value: " + main.check().detail());
      return 1;
    }
    return 0;
  }

  /**
   * {@code --fetched}: one line {@code ADDRESS VALUE} per call (decimal; the element's byte offset
   * in the region, the fetched value as an unsigned number of the datatype's bytes), each thread's
   * calls in completion order, thread 0 first.
   */
  private void writeFetched(long[][] fetched) throws IOException {
    try (PrintStream out =
        new PrintStream(
            new java.io.BufferedOutputStream(Files.newOutputStream(fetchedFile)), false, "UTF-8")) {
      for (int t = 0; t < fetched.length; t++) {
        long addr = t * cfg.threadStride();
        for (long v : fetched[t]) {
          out.print(addr);
          out.print(' ');
          out.println(Long.toUnsignedString(v));
        }
      }
      if (out.checkError()) {
        throw new IOException("could not write " + fetchedFile);
      }
    }
  }

  private PerftestComparison compare(BenchInitiator initiator, BenchTarget link, RunFacts facts)
      throws IOException {
    PerftestMatch match = outputs.vsPerftest();
    PerftestRunner perftest =
        new PerftestRunner(PerftestRunner.find(), facts.ucxTls(), facts.ucxEnvironment(), err);
    List<PerftestComparison.Round> rounds = new ArrayList<>();
    long iterations = cfg.iterations();
    for (int i = 1; i <= outputs.rounds(); i++) {
      err.printf("round %d of %d: fiucx%n", i, outputs.rounds());
      BenchResult f = initiator.run(cfg, link, err);
      BenchResult clockFree = f.error() == 0 ? initiator.run(cfg, link, err, false) : f;
      for (BenchResult r : List.of(f, clockFree)) {
        if (r.error() != 0 || !r.check().ok()) {
          throw new FiException(
              r.error() != 0 ? r.error() : -FiErrno.EIO,
              "fiucx round " + i + " failed: " + r.check().detail());
        }
      }
      if (cfg.duration() != null && i == 1) {
        iterations = Math.max(1, f.ops()); // ucx_perftest counts iterations, not time
      }
      err.printf("round %d of %d: ucx_perftest -t %s%n", i, outputs.rounds(), match.test());
      PerftestResult p = perftest.run(match, iterations, cfg.warmup(), cfg.window());
      rounds.add(new PerftestComparison.Round(i, f, clockFree, p));
    }
    return new PerftestComparison(match, perftest.ucxTls(), cfg.window(), iterations, rounds);
  }

  private void writeFiles(
      RunFacts facts, BenchResult main, List<BenchResult> sweep, PerftestComparison vs)
      throws IOException {
    if (outputs.json() != null) {
      JsonReport.write(outputs.json(), cfg, facts, main, sweep, vs);
    }
    if (outputs.hgrm() != null) {
      try (PrintStream out =
          new PrintStream(Files.newOutputStream(outputs.hgrm()), true, "UTF-8")) {
        // values are nanoseconds; HdrHistogram's tools expect the unit of the plot: microseconds
        main.histogram().outputPercentileDistribution(out, 1000.0);
      }
    }
    if (outputs.plot() != null) {
      String title = cfg.cellLabel() + " over " + cfg.transport() + ", " + facts.mechanismWord();
      if (sweep != null) {
        PlotWriter.rateAgainstWindow(outputs.plot(), sweep, title);
      } else {
        PlotWriter.percentiles(
            outputs.plot(),
            main.histogram(),
            title + ", window " + cfg.window(),
            main.latency().kind());
      }
    }
  }

  /** The windows to run: the one asked, or 1, 2, 4, ... up to it for a sweep. */
  private List<Integer> windows() {
    List<Integer> w = new ArrayList<>();
    if (outputs.sweepWindow()) {
      for (int x = 1; x < cfg.window(); x *= 2) {
        w.add(x);
      }
    }
    w.add(cfg.window());
    return w;
  }

  /** The cell as the initiator's domain answers it; an invalid cell or count is a usage error. */
  private AtomicAttr checkedCell(BenchInitiator initiator) {
    AtomicAttr attr;
    try {
      attr = initiator.domain().queryAtomic(cfg.datatype(), cfg.op(), cfg.family().queryFlag());
    } catch (FiException e) {
      throw new BenchUsageException(
          cfg.cellLabel() + " is not an atomic this provider carries out (" + e.getMessage() + ")");
    }
    if (cfg.count() > attr.count()) {
      throw new BenchUsageException(
          "--count "
              + cfg.count()
              + " is more than "
              + cfg.cellLabel()
              + " takes: "
              + attr.count());
    }
    return attr;
  }
}
