package dev.fiucx.perf.bench;

import dev.fiucx.AtomicAttr;
import dev.fiucx.BootstrapSecurity;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.perf.MetricsEndpoint;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One invocation of bench on the initiator side: opens the initiator, checks the cell (or every
 * cell of a matrix), reaches the target (started here or given), runs what was asked (one run, a
 * window sweep, rounds against ucx_perftest, or each cell of a matrix), prints the table and writes
 * the files. Returns the exit status: 0, or 1 when a call failed or the target held a wrong value;
 * bad requests throw {@link BenchUsageException}.
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
  private CellSelection matrix;
  private CpuSet cpus;
  private long elementsAt;
  private ParentWatch parent;

  /**
   * Runs as one initiator of bench -P: its threads' elements from byte {@code offset} of the
   * serve's region on, measuring once {@code parent} says go, its figures in the JSON's {@code
   * process}.
   */
  BenchSession asInitiatorOfProcesses(long offset, ParentWatch parent) {
    this.elementsAt = offset;
    this.parent = parent;
    return this;
  }

  /** Runs every cell of {@code selection} (more than one), each as a cell of its own. */
  BenchSession matrix(CellSelection selection) {
    this.matrix = selection;
    return this;
  }

  /** Each measuring thread pins itself to {@code set} ({@code -c}); null: none is pinned. */
  BenchSession pinTo(CpuSet set) {
    this.cpus = set;
    return this;
  }

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

  /**
   * ucx_perftest's rounds with its server on the target's host ({@code host}, a {@code bench
   * --server --perftest-server} starts it) and its client here; without it both run here.
   */
  BenchSession perftestServerOn(String host) {
    this.perftestHost = host;
    return this;
  }

  private String perftestHost;

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
      serve = new ServeLink(host, port, serveRegion, regionBytes(), targetSecurity);
      if (!transportGiven && serve.transport() != null) {
        cfg = cfg.withTransport(serve.transport());
      }
    }
    try (ServeLink s = serve) {
      return run(host, port, s, stdout);
    }
  }

  /** The target region's bytes: the cell's, or a matrix's widest cell's. */
  private long regionBytes() {
    return elementsAt
        + (matrix == null ? cfg.regionBytes() : MatrixRun.regionBytes(cfg, matrix.cells()));
  }

  private int run(String host, int port, ServeLink serve, PrintStream stdout) throws IOException {
    List<Integer> windows = windows();
    try (BenchInitiator initiator =
            new BenchInitiator(
                cfg, windows.stream().max(Integer::compare).orElseThrow(), regionBytes());
        MetricsEndpoint metrics =
            metricsPort == null
                ? null
                : new MetricsEndpoint(
                    metricsBind, metricsPort, initiator.domains(), metricsLatency, err)) {
      if (fetchedFile != null) {
        initiator.keepFetched();
      }
      initiator.elementsAt(elementsAt);
      if (parent != null) {
        initiator.beforeMeasuring(
            () -> {
              stdout.println(ParentWatch.WARMED_UP);
              stdout.flush();
              parent.awaitGo();
            });
      }
      if (cpus != null) {
        initiator.pinTo(cpus);
      }
      List<MatrixCell> plan =
          matrix == null ? null : MatrixRun.plan(cfg, matrix.cells(), initiator.domain());
      AtomicAttr attr = matrix == null ? checkedCell(initiator) : null;
      if (metrics != null) {
        // a scrape before the run sees its series at 0, so rate() counts the run from its start
        if (plan == null) {
          metrics.show(cfg.family(), cfg.op(), cfg.datatype());
        } else {
          plan.stream()
              .filter(MatrixCell::valid)
              .forEach(c -> metrics.show(c.cfg().family(), c.cfg().op(), c.cfg().datatype()));
        }
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
                      regionBytes(),
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
        if (plan != null) {
          BenchHeader.printMatrix(human, cfg, facts, matrix, plan, cpus);
        } else {
          BenchHeader.print(human, cfg, facts, cpus);
        }
        linger(metrics, "before the run");
        int rc =
            plan != null
                ? measureMatrix(initiator, link, facts, plan, stdout)
                : measure(initiator, link, facts, windows, stdout);
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
    facts = facts.withDomain(initiator.domain().describe());
    BenchResult main = results.getLast();
    printTable(results);
    if (vs != null) {
      vs.print(human);
    }
    if (outputs.csv()) {
      // one row per run: the one run, or each window of a sweep
      CsvLine.header(stdout, outputs.ranks());
      for (BenchResult r : outputs.sweepWindow() ? results : List.of(main)) {
        CsvLine.row(stdout, outputs.ranks(), facts.attr().mechanism().name(), facts.path(), r);
      }
    }
    writeFiles(facts, main, outputs.sweepWindow() ? results : null, vs, initiator.domains());
    if (fetchedFile != null && initiator.fetched() != null) {
      writeFetched(initiator.fetched());
    }
    return verdict(main, "");
  }

  /**
   * Every cell of a matrix in turn, then its table, CSV rows, JSON and page; 1 when any cell's call
   * failed or its target held a wrong value.
   */
  private int measureMatrix(
      BenchInitiator initiator,
      BenchTarget link,
      RunFacts facts,
      List<MatrixCell> plan,
      PrintStream stdout)
      throws IOException {
    List<MatrixCell> cells = MatrixRun.run(plan, initiator, link, err);
    facts = facts.withDomain(initiator.domain().describe());
    Percentiles p = outputs.matrixRanks();
    new MatrixTable(p).print(human, cells);
    Percentiles files = outputs.ranks();
    if (outputs.csv()) {
      CsvLine.header(stdout, files);
      for (MatrixCell c : cells) {
        if (c.result() != null) {
          CsvLine.row(stdout, files, c.mechanismName(), facts.path(), c.result());
        } else {
          CsvLine.untimed(stdout, files, c.cfg(), c.mechanismName(), c.status().word());
        }
      }
    }
    if (outputs.json() != null) {
      JsonReport.writeMatrix(
          outputs.json(), cfg, facts, new JsonReport.Run(files, cpus), matrix, cells);
    }
    if (outputs.html() != null) {
      MatrixPage.write(outputs.html(), pageFacts(facts), cells, p);
    }
    int rc = 0;
    for (MatrixCell c : cells) {
      if (c.status() == MatrixCell.Status.WRONG || c.status() == MatrixCell.Status.FAILED) {
        rc = Math.max(rc, verdict(c.result(), c.cfg().cellLabel() + ": "));
      }
    }
    return rc;
  }

  /** The facts at the top of the page: what ran, against what, on what. */
  private Map<String, String> pageFacts(RunFacts facts) {
    return RunFiles.pageFacts(
        cfg, facts, matrix != null ? matrix.describe() : cfg.cellLabel(), cpus);
  }

  private void printTable(List<BenchResult> results) {
    human.println();
    boolean mixed = results.stream().map(r -> r.config().window() == 1).distinct().count() > 1;
    ResultTable table = new ResultTable(outputs.ranks());
    table.header(
        human,
        mixed ? "round trip at window 1, per op above" : results.getFirst().latency().kind());
    for (int i = 0; i < results.size(); i++) {
      String stage =
          outputs.comparesWithPerftest()
              ? "round " + (i + 1)
              : i == results.size() - 1 ? "Final:" : "";
      table.row(human, stage, results.get(i));
    }
    table.footer(human);
    BenchResult last = results.getLast();
    human.println("target check: " + last.check().detail());
  }

  /**
   * @param what the cell's label and a colon in a matrix, else empty
   */
  private int verdict(BenchResult main, String what) {
    if (main.error() != 0) {
      err.println(
          "fiucx bench: "
              + what
              + "a call failed with -"
              + FiErrno.errorString(-main.error())
              + " ("
              + main.error()
              + ")");
      return 1;
    }
    if (!main.check().ok()) {
      err.println(
          "fiucx bench: " + what + "the target holds a wrong value: " + main.check().detail());
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
        new PerftestRunner(PerftestRunner.find(), facts.ucxTls(), facts.ucxEnvironment(), err)
            .pinClientTo(cpus);
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
      err.printf(
          "round %d of %d: ucx_perftest -t %s%s%n",
          i,
          outputs.rounds(),
          match.test(),
          perftestHost == null ? "" : ", its server on " + perftestHost);
      PerftestResult p = perftestRound(perftest, link, match, iterations);
      rounds.add(new PerftestComparison.Round(i, f, clockFree, p));
    }
    return new PerftestComparison(match, perftest.ucxTls(), cfg.window(), iterations, rounds);
  }

  /** One ucx_perftest run: both processes here, or the client here and the server at the target. */
  private PerftestResult perftestRound(
      PerftestRunner perftest, BenchTarget link, PerftestMatch match, long iterations)
      throws IOException {
    if (perftestHost == null) {
      return perftest.run(match, iterations, cfg.warmup(), cfg.window());
    }
    TargetLink target = (TargetLink) link;
    int port = target.startPerftestServer();
    PerftestResult p;
    try {
      p = perftest.runClient(perftestHost, port, match, iterations, cfg.warmup(), cfg.window());
    } catch (IOException | RuntimeException e) {
      try {
        target.perftestDone();
      } catch (IOException gone) {
        e.addSuppressed(gone);
      }
      throw e;
    }
    target.perftestDone();
    return p;
  }

  private void writeFiles(
      RunFacts facts,
      BenchResult main,
      List<BenchResult> sweep,
      PerftestComparison vs,
      List<dev.fiucx.Domain> domains)
      throws IOException {
    if (outputs.json() != null) {
      JsonReport.write(
          outputs.json(),
          cfg,
          facts,
          new JsonReport.Run(outputs.ranks(), cpus),
          main,
          sweep,
          vs,
          parent == null ? null : InitiatorFigures.section(main, domains));
    }
    RunFiles.write(outputs, cfg, facts, pageFacts(facts), main, sweep, null, "");
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
    return checkedCell(cfg, initiator.domain());
  }

  /**
   * The cell of {@code cfg} as {@code domain} answers it; an invalid cell or count is a usage
   * error.
   */
  static AtomicAttr checkedCell(BenchConfig cfg, dev.fiucx.Domain domain) {
    AtomicAttr attr;
    try {
      attr = domain.queryAtomic(cfg.datatype(), cfg.op(), cfg.family().queryFlag());
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
