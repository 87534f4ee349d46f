package dev.fiucx.perf.bench;

import dev.fiucx.AtomicFamily;
import dev.fiucx.BootstrapSecurity;
import dev.fiucx.FiException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code fiucx bench}: latency and rate of one atomic cell, or of every cell of a selection (a
 * matrix, one cell after the other in one process against one target), against a target process
 * over UCX, named and shaped like ucx_perftest and fabtests' fi_rdm_atomic. The options live in
 * {@link RunOptions}, {@link TargetOptions} and {@link ReportOptions}. Exit status 0, 1 when a call
 * failed or the target held a wrong value, 2 on a bad request.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Measure one atomic (family, op, datatype) against a target process over UCX: latency"
          + " percentiles of every call, rate in calls and elements per second. Lists or all"
          + " (-o all -z all --family all) run every cell of the selection in turn: a matrix.",
      "By default bench starts the target itself; --server and --connect run the two sides"
          + " apart."
    },
    footer = {
      "",
      "ucx_perftest's spellings where it has the option: -n, -w, -O, -T (threads), -c (CPU"
          + " list), -R (percentiles; here a list). Its -t (test) and -s (message size) are not"
          + " bench's: a call's elements are --count (long only: -c is the CPU list, and fabtests'"
          + " completion method; -e fabtests' endpoint type), each of its datatype's size (-z),"
          + " so an element size of its own would mean nothing ucx_perftest's -s means."
    })
public final class BenchCommand implements Callable<Integer> {
  /** The port {@code --server} listens on unless told otherwise. */
  static final int DEFAULT_PORT = TargetOptions.DEFAULT_PORT;

  @Mixin RunOptions run;

  @Mixin TargetOptions target;

  @Option(
      names = "--fetched",
      paramLabel = "FILE",
      description =
          "write every fetched value, one line 'ADDRESS VALUE' per call, and check that fetch SUM's"
              + " tickets are distinct (fetch, --count 1, types of 8 bytes or less, -n)")
  Path fetched;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--metrics-port",
      paramLabel = "PORT",
      description =
          "serve /metrics in Prometheus text format on --bind's address while bench runs (0"
              + " picks a port and prints it)")
  Integer metricsPort;

  @Option(
      names = "--metrics-latency",
      description =
          "with --metrics-port: time every operation (fiucx_atomic_latency_seconds, with its"
              + " percentile histogram)")
  boolean metricsLatency;

  @Option(
      names = "--metrics-linger",
      paramLabel = "TIME",
      converter = DurationConverter.class,
      description =
          "with --metrics-port: before and after the run, serve /metrics with nothing running"
              + " until a scraper has fetched it twice, at most this long (30s, 500ms), so that a"
              + " scraper sees the counts before and after a short or CPU-bound run")
  Duration metricsLinger;

  @Option(names = "--parent-watch", hidden = true, description = "exit when stdin ends")
  boolean parentWatch;

  @Mixin ReportOptions report;

  @Mixin ProcessOptions procs;

  /**
   * Runs bench alone: the target process bench starts runs this.
   *
   * @param args bench's arguments
   */
  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /**
   * A new bench command that reports a bad option in one line ({@link #oneLineError}).
   *
   * @return the command
   */
  public static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new BenchCommand());
    cli.setParameterExceptionHandler(BenchCommand::oneLineError);
    return cli;
  }

  /**
   * A bad option or value: one line, exit status 2 (picocli's own errors included).
   *
   * @param e what picocli refused
   * @param args the arguments it was given
   * @return 2
   */
  public static int oneLineError(CommandLine.ParameterException e, String[] args) {
    e.getCommandLine().getErr().println("fiucx bench: " + e.getMessage());
    e.getCommandLine().getErr().flush();
    return 2;
  }

  @Override
  public Integer call() {
    try {
      String hint = run.oldSpelling();
      if (hint != null) {
        throw new BenchUsageException(hint);
      }
      CellSelection selection = run.selection();
      int cells = selection.cells().size();
      boolean many = procs.check(cells, target, report, fetched != null, this::matched);
      if (target.server) {
        return serve();
      }
      BenchConfig cfg = config();
      if (cells > 1) {
        report.checkMatrix(cells, fetched);
        if (cfg.api() == BenchConfig.Api.TYPED && cfg.window() != 1) {
          throw new BenchUsageException("--api typed is blocking: one call in flight (-O 1)");
        }
      }
      BenchOutputs outputs = outputs(cfg);
      String host = null;
      int targetPort = 0;
      String connect = target.connect;
      if (connect != null) {
        int colon = connect.lastIndexOf(':');
        host = colon > 0 ? connect.substring(0, colon).replaceAll("^\\[|\\]$", "") : "";
        targetPort = colon > 0 ? parsePort(connect.substring(colon + 1)) : -1;
        if (host.isEmpty() || targetPort <= 0) {
          throw new BenchUsageException("--connect wants HOST:PORT, not '" + connect + "'");
        }
      }
      if (metricsLinger != null && metricsPort == null) {
        throw new BenchUsageException("--metrics-linger needs --metrics-port");
      }
      if (metricsPort != null && (metricsPort < 0 || metricsPort > 65535)) {
        throw new BenchUsageException("--metrics-port is 0 .. 65535: " + metricsPort);
      }
      if (target.region != null && connect == null) {
        throw new BenchUsageException("--region names a serve's region: it needs --connect");
      }
      if (target.tlsTrust != null && target.region == null) {
        throw new BenchUsageException(
            "--tls-trust is a fiucx serve's: it needs --connect and --region");
      }
      if (target.secretFile != null && connect == null) {
        throw new BenchUsageException(
            "--secret-file is the target's: it needs --server or --connect (the target bench"
                + " starts itself gets a random one)");
      }
      if (target.insecure || target.perftestServer) {
        throw new BenchUsageException(
            (target.insecure ? "--insecure" : "--perftest-server") + " is --server's");
      }
      checkFetched(cfg, outputs);
      if (many) {
        return new ProcessesRun(
                cfg, procs.processes, procs.sameElement, outputs, System.out, System.err)
            .pinTo(run.cpuSet())
            .warmupLimit(procs.warmupLimit())
            .run(
                host,
                targetPort,
                target.region,
                connect == null ? BootstrapSecurity.none() : target.targetSecurity(),
                matched("--transport"),
                ProcessOptions.passedOn(spec.commandLine().getParseResult()));
      }
      ParentWatch watch =
          parentWatch ? ParentWatch.start(System.in, () -> Runtime.getRuntime().halt(1)) : null;
      boolean targetSpins = target.spins();
      if (connect != null && matched("--server-progress")) {
        throw new BenchUsageException(
            "--server-progress is the target's: give it to the --server side, not with --connect");
      }
      CpuSet cpus = run.cpuSet();
      BenchSession session =
          new BenchSession(cfg, outputs, System.out, System.err)
              .targetSpins(targetSpins)
              .withMetrics(target.bind, metricsPort, metricsLatency, metricsLinger)
              .writeFetched(fetched)
              .pinTo(cpus);
      if (cells > 1) {
        session.matrix(selection);
      }
      if (connect != null) {
        session.targetSecurity(target.targetSecurity());
        if (outputs.comparesWithPerftest() && !target.connectsToLoopback()) {
          session.perftestServerOn(host);
        }
      }
      if (target.region != null) {
        session.againstServe(target.region, matched("--transport"));
      }
      if (procs.child) {
        if (watch == null || target.region == null || procs.elementsAt == null) {
          throw new BenchUsageException(
              "--initiator-of-processes is bench -P's: with --parent-watch, --region and"
                  + " --elements-at");
        }
        session.asInitiatorOfProcesses(procs.elementsAt, watch);
      }
      return session.run(host, targetPort, System.out);
    } catch (BenchUsageException e) {
      System.err.println("fiucx bench: " + e.getMessage());
      return 2;
    } catch (FiException | IOException e) {
      System.err.println("fiucx bench: " + e.getMessage());
      return 1;
    }
  }

  /** Whether the command line named {@code option}. */
  private boolean matched(String option) {
    return spec != null && spec.commandLine().getParseResult().hasMatchedOption(option);
  }

  /**
   * The options as a checked run configuration: of the one cell selected, or of a matrix's first
   * cell (each of its cells runs the same with its own cell); a bad combination is a usage error.
   */
  BenchConfig config() {
    CellSelection selection = run.selection();
    java.util.List<CellSelection.Cell> cells = selection.cells();
    boolean one = cells.size() == 1;
    BenchConfig cfg = run.config(cells.getFirst(), one && selection.familyNamed());
    if (target.port != null) {
      throw new BenchUsageException("--port is for --server (--connect takes HOST:PORT)");
    }
    String unsupported =
        one && cfg.api() == BenchConfig.Api.TYPED ? TypedCall.unsupported(cfg) : null;
    if (unsupported != null) {
      throw new BenchUsageException(unsupported);
    }
    return cfg;
  }

  private BenchOutputs outputs(BenchConfig cfg) {
    PerftestMatch match = null;
    if (report.perftestTest != null && !report.vsPerftest) {
      throw new BenchUsageException("--perftest-test goes with --vs-ucx-perftest");
    }
    if (report.vsPerftest) {
      if (report.rounds < 3) {
        throw new BenchUsageException("--rounds is at least 3: " + report.rounds);
      }
      if (target.connect != null && !target.connectsToLoopback() && target.region != null) {
        // a fiucx serve runs no ucx_perftest: its two processes run here, so the serve must too
        throw new BenchUsageException(
            "--vs-ucx-perftest against a fiucx serve (--region) runs ucx_perftest on this host:"
                + " --connect only to a loopback address (a bench --server --perftest-server runs"
                + " its server side on another host)");
      }
      if (report.sweepWindow) {
        throw new BenchUsageException("--vs-ucx-perftest and --sweep-window: one at a time");
      }
      if (cfg.threads() != 1 || cfg.count() != 1) {
        throw new BenchUsageException(
            "--vs-ucx-perftest compares one thread and one element per call (-T 1 --count 1)");
      }
      String test = report.perftestTest;
      match =
          test != null
              ? PerftestMatch.named(test.trim(), cfg.datatype())
              : PerftestMatch.of(cfg.family(), cfg.op(), cfg.datatype());
      if (match == null && test != null) {
        throw new BenchUsageException(
            "--perftest-test is one of " + PerftestMatch.TESTS + ", not '" + test + "'");
      }
      if (match == null) {
        throw new BenchUsageException(
            cfg.cellLabel()
                + " has no ucx_perftest counterpart (fetch SUM: ucp_fadd, base SUM: ucp_add,"
                + " fetch ATOMIC_WRITE: ucp_swap, compare CSWAP: ucp_cswap; 4- and 8-byte"
                + " integers); --perftest-test names one to put beside it");
      }
      if (PerftestRunner.find() == null) {
        throw new BenchUsageException(
            "ucx_perftest is not on the PATH (Debian: apt-get install ucx-utils)");
      }
    }
    return new BenchOutputs(
        report.csv,
        report.json,
        report.hgrm,
        report.plot,
        report.sweepWindow,
        match,
        report.rounds,
        report.html,
        report.ranks());
  }

  /** {@code --fetched} keeps one value per call of one element, so it needs a known call count. */
  private void checkFetched(BenchConfig cfg, BenchOutputs outputs) {
    if (fetched == null) {
      return;
    }
    if (cfg.family() != AtomicFamily.FETCH || cfg.count() != 1 || cfg.datatype().size() > 8) {
      throw new BenchUsageException(
          "--fetched keeps fetch calls of one element of 8 bytes or less (--family fetch, --count"
              + " 1)");
    }
    if (cfg.duration() != null || outputs.sweepWindow() || outputs.comparesWithPerftest()) {
      throw new BenchUsageException(
          "--fetched keeps one run of -n calls: not with --duration, --sweep-window or"
              + " --vs-ucx-perftest");
    }
    if (cfg.warmup() + cfg.iterations() > 100_000_000L) {
      throw new BenchUsageException("--fetched keeps at most 100,000,000 calls per thread");
    }
  }

  private int serve() throws IOException {
    if (target.connect != null) {
      throw new BenchUsageException("--server and --connect: one side at a time");
    }
    int p = target.port == null ? DEFAULT_PORT : target.port;
    if (p < 0 || p > 65535) {
      throw new BenchUsageException("--port is 0 .. 65535: " + p);
    }
    if (target.tlsTrust != null || target.region != null) {
      throw new BenchUsageException("--tls-trust and --region are --connect's, not --server's");
    }
    boolean spin = target.spins();
    BootstrapSecurity security = target.serverSecurity();
    java.nio.file.Path perftest = target.perftestServer ? PerftestRunner.find() : null;
    if (target.perftestServer && perftest == null) {
      throw new BenchUsageException(
          "--perftest-server: ucx_perftest is not on the PATH (Debian: apt-get install ucx-utils)");
    }
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(target.bind, p));
      BenchServer server = new BenchServer(run.transport, spin, System.err, security);
      if (target.perftestServer) {
        server.runPerftestServer(perftest);
      }
      if (parentWatch) {
        watchParent(System.in, server);
      }
      return server.serve(socket, System.out);
    }
  }

  /** The parent that started this target holds its stdin: end of input means it is gone. */
  private static void watchParent(InputStream in, BenchServer target) {
    ParentWatch.start(in, target::stopAndWait);
  }

  private static int parsePort(String s) {
    try {
      int p = Integer.parseInt(s);
      return p > 0 && p <= 65535 ? p : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
