package dev.fiucx.perf.bench;

import dev.fiucx.AtomicFamily;
import dev.fiucx.BootstrapSecurity;
import dev.fiucx.DomainAttr;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.FiOp;
import dev.fiucx.TlsContexts;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code fiucx bench}: latency and rate of one atomic cell against a target process over UCX, named
 * and shaped like ucx_perftest and fabtests' fi_rdm_atomic. Exit status 0, 1 when a call failed or
 * the target held a wrong value, 2 on a bad request.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Measure one atomic (family, op, datatype) against a target process over UCX: latency"
          + " percentiles of every call, rate in calls and elements per second.",
      "By default bench starts the target itself; --server and --connect run the two sides"
          + " apart."
    })
public final class BenchCommand implements Callable<Integer> {
  /** The port {@code --server} listens on unless told otherwise. */
  static final int DEFAULT_PORT = 13340;

  @Option(
      names = "--family",
      paramLabel = "base|fetch|compare",
      converter = AtomicSpellings.FamilyConverter.class,
      description = "base, fetch or compare (default: compare for CSWAP..MSWAP, else fetch)")
  AtomicFamily family;

  @Option(
      names = {"-o", "--op"},
      paramLabel = "OP",
      defaultValue = "sum",
      converter = AtomicSpellings.OpConverter.class,
      description = "op: sum, min, cswap_le, read, write, ... or FI_SUM (default ${DEFAULT-VALUE})")
  FiOp op;

  @Option(
      names = {"-z", "--datatype"},
      paramLabel = "TYPE",
      defaultValue = "uint64",
      converter = AtomicSpellings.DatatypeConverter.class,
      description =
          "datatype: int8 .. uint64, float, double_complex, ... or FI_UINT64 (default"
              + " ${DEFAULT-VALUE})")
  FiDatatype datatype;

  @Option(
      names = {"-c", "--count"},
      paramLabel = "N",
      defaultValue = "1",
      description = "elements per call (default ${DEFAULT-VALUE})")
  int count;

  @Option(
      names = {"-O", "--outstanding"},
      paramLabel = "W",
      defaultValue = "1",
      description = "window: calls in flight per thread (default ${DEFAULT-VALUE})")
  int window;

  @Option(
      names = {"-n", "--iterations"},
      paramLabel = "N",
      defaultValue = "100000",
      description = "calls measured per thread (default ${DEFAULT-VALUE})")
  long iterations;

  @Option(
      names = {"-w", "--warmup"},
      paramLabel = "N",
      defaultValue = "10000",
      description = "calls per thread before measuring (default ${DEFAULT-VALUE})")
  long warmup;

  @Option(
      names = {"-t", "--threads"},
      paramLabel = "T",
      defaultValue = "1",
      description =
          "threads, each with its own endpoint, CQ and elements (default ${DEFAULT-VALUE})")
  int threads;

  @Option(
      names = "--transport",
      paramLabel = "shm|tcp|TLS",
      defaultValue = "shm",
      description = "shm, tcp, or a UCX_TLS list (default ${DEFAULT-VALUE})")
  String transport;

  @Option(
      names = "--progress",
      paramLabel = "auto|manual",
      defaultValue = "auto",
      description = "the initiator's progress: auto or manual (default ${DEFAULT-VALUE})")
  String progress;

  @Option(
      names = "--duration",
      paramLabel = "TIME",
      converter = DurationConverter.class,
      description = "measure for this long (10s, 500ms, 2m) instead of -n calls")
  Duration duration;

  @Option(
      names = "--direct-path",
      paramLabel = "on|off",
      description = "on or off: the domain option direct_path (default: the provider's)")
  String directPath;

  @Option(
      names = "--threading",
      paramLabel = "endpoint|safe|domain",
      description =
          "the initiator domain's threading: domain (FI_THREAD_DOMAIN, the default: nothing"
              + " checked, as ucx_perftest's single-thread UCX worker and fabtests' hints; each"
              + " thread gets a domain of its own), endpoint (FI_THREAD_ENDPOINT: a second thread"
              + " in an endpoint is refused) or safe (FI_THREAD_SAFE)")
  String threading;

  @Option(
      names = "--api",
      paramLabel = "mirror|typed",
      defaultValue = "mirror",
      description =
          "whose calls: mirror (Endpoint's fi_atomic calls and a CQ read) or typed (AtomicRegion's"
              + " blocking calls, one in flight) (default ${DEFAULT-VALUE})")
  String api;

  @Option(names = "--server", description = "be the target: serve one client, then exit")
  boolean server;

  @Option(
      names = "--port",
      paramLabel = "P",
      description = "--server's bootstrap port (default " + DEFAULT_PORT + "; 0 picks a free one)")
  Integer port;

  @Option(
      names = "--bind",
      paramLabel = "ADDR",
      defaultValue = "127.0.0.1",
      description = "--server's bootstrap and --metrics-port's address (default ${DEFAULT-VALUE})")
  String bind;

  @Option(
      names = "--server-progress",
      paramLabel = "spin|auto",
      defaultValue = "spin",
      description =
          "the target's progress (--server's, or the target bench starts itself): spin (a loop"
              + " of its own while a run is on, as ucx_perftest's server) or auto (the domain's"
              + " progress thread, which sleeps while no peer needs it) (default ${DEFAULT-VALUE})")
  String serverProgress;

  @Option(
      names = "--connect",
      paramLabel = "HOST:PORT",
      description =
          "run against a target started with --server there, or with --region against a fiucx"
              + " serve")
  String connect;

  @Option(
      names = "--region",
      paramLabel = "NAME",
      description =
          "with --connect: the region of a fiucx serve to run against (its transport unless"
              + " --transport is given)")
  String region;

  @Option(
      names = "--secret-file",
      paramLabel = "FILE",
      description =
          "the shared secret: with --server, what clients must prove before they learn the"
              + " region; with --connect, the target's (default: the environment's FIUCX_SECRET;"
              + " with neither, --server listens on loopback only)")
  Path secretFile;

  @Option(
      names = "--insecure",
      description =
          "with --server and no secret, listen beyond loopback anyway: the region's key to anyone"
              + " who reaches the port")
  boolean insecure;

  @Option(
      names = "--tls-trust",
      paramLabel = "PEM",
      description =
          "with --region: TLS to the serve, trusting these PEM certificates (its own or its CA's)")
  Path tlsTrust;

  @Option(
      names = "--fetched",
      paramLabel = "FILE",
      description =
          "write every fetched value, one line 'ADDRESS VALUE' per call, and check that fetch SUM's"
              + " tickets are distinct (fetch, -c 1, types of 8 bytes or less, -n)")
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

  @Option(names = "--csv", description = "print one CSV header and row to stdout (table: stderr)")
  boolean csv;

  @Option(names = "--json", paramLabel = "FILE", description = "write every input and figure")
  Path json;

  @Option(
      names = "--hgrm",
      paramLabel = "FILE",
      description = "write HdrHistogram's percentile distribution (microseconds)")
  Path hgrm;

  @Option(
      names = "--plot",
      paramLabel = "FILE.png",
      description = "draw the latency percentiles (with --sweep-window: rate against window)")
  Path plot;

  @Option(names = "--sweep-window", description = "run windows 1, 2, 4, ... up to -O, one run each")
  boolean sweepWindow;

  @Option(
      names = "--vs-ucx-perftest",
      description = "alternate rounds with ucx_perftest's matching test and print the ratios")
  boolean vsPerftest;

  @Option(
      names = "--perftest-test",
      paramLabel = "TEST",
      description =
          "with --vs-ucx-perftest: ucx_perftest's test to run beside the cell instead of its"
              + " counterpart (ucp_add, ucp_fadd, ucp_swap, ucp_cswap), so that any cell, e.g. an"
              + " emulated one, can be put beside UCX's native op")
  String perftestTest;

  @Option(
      names = "--rounds",
      paramLabel = "N",
      defaultValue = "3",
      description = "rounds of each with --vs-ucx-perftest, at least 3 (default ${DEFAULT-VALUE})")
  int rounds;

  /** Runs bench alone (the target process bench starts runs this). */
  public static void main(String[] args) {
    CommandLine cli = new CommandLine(new BenchCommand());
    cli.setParameterExceptionHandler(BenchCommand::oneLineError);
    System.exit(cli.execute(args));
  }

  /** A bad option or value: one line, exit status 2 (picocli's own errors included). */
  public static int oneLineError(CommandLine.ParameterException e, String[] args) {
    e.getCommandLine().getErr().println("fiucx bench: " + e.getMessage());
    e.getCommandLine().getErr().flush();
    return 2;
  }

  @Override
  public Integer call() {
    try {
      if (server) {
        return serve();
      }
      BenchConfig cfg = config();
      BenchOutputs outputs = outputs(cfg);
      String host = null;
      int targetPort = 0;
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
      if (region != null && connect == null) {
        throw new BenchUsageException("--region names a serve's region: it needs --connect");
      }
      if (tlsTrust != null && region == null) {
        throw new BenchUsageException(
            "--tls-trust is a fiucx serve's: it needs --connect and --region");
      }
      if (secretFile != null && connect == null) {
        throw new BenchUsageException(
            "--secret-file is the target's: it needs --server or --connect (the target bench"
                + " starts itself gets a random one)");
      }
      if (insecure) {
        throw new BenchUsageException("--insecure is --server's");
      }
      checkFetched(cfg, outputs);
      boolean targetSpins = spins(serverProgress);
      if (connect != null
          && spec != null
          && spec.commandLine().getParseResult().hasMatchedOption("--server-progress")) {
        throw new BenchUsageException(
            "--server-progress is the target's: give it to the --server side, not with --connect");
      }
      BenchSession session =
          new BenchSession(cfg, outputs, System.out, System.err)
              .targetSpins(targetSpins)
              .withMetrics(bind, metricsPort, metricsLatency, metricsLinger)
              .writeFetched(fetched);
      if (connect != null) {
        session.targetSecurity(targetSecurity());
      }
      if (region != null) {
        boolean transportGiven =
            spec != null && spec.commandLine().getParseResult().hasMatchedOption("--transport");
        session.againstServe(region, transportGiven);
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

  /** The target's secret (--secret-file, else FIUCX_SECRET) and a serve's TLS trust, checked. */
  private BootstrapSecurity targetSecurity() {
    try {
      BootstrapSecurity security = BootstrapSecurity.none();
      byte[] secret = BootstrapSecurity.secretFrom(secretFile);
      if (secret != null) {
        security = security.withSecret(secret);
      }
      return tlsTrust == null ? security : security.withTls(TlsContexts.clientTrusting(tlsTrust));
    } catch (FiException e) {
      throw usage(e);
    }
  }

  /** --server's secret; without one, a bind beyond loopback needs --insecure, as a serve's does. */
  private BootstrapSecurity serverSecurity() {
    try {
      byte[] secret = BootstrapSecurity.secretFrom(secretFile);
      if (secret != null) {
        return BootstrapSecurity.none().withSecret(secret);
      }
      if (!insecure && !BootstrapSecurity.isLoopback(bind)) {
        throw new BenchUsageException(
            "--bind "
                + bind
                + " reaches beyond this host: give a shared secret (--secret-file FILE or "
                + BootstrapSecurity.SECRET_ENV
                + "), or --insecure to hand the region's key to anyone who connects");
      }
      return insecure ? BootstrapSecurity.none().withInsecureBind() : BootstrapSecurity.none();
    } catch (FiException e) {
      throw usage(e);
    }
  }

  /** A secret or address that cannot be used, in its own words (without the errno's name). */
  private static BenchUsageException usage(FiException e) {
    String prefix = FiErrno.errorString(e.errno()) + ": ";
    return new BenchUsageException(e.getMessage().replace(prefix, ""));
  }

  /** The options as a checked run configuration; a bad combination is a usage error. */
  BenchConfig config() {
    if (family == null) {
      family = op.isCompareOp() ? AtomicFamily.COMPARE : AtomicFamily.FETCH;
    }
    if ((family == AtomicFamily.COMPARE) != op.isCompareOp()) {
      throw new BenchUsageException(
          op.fiName()
              + " is no "
              + family.label()
              + " op ("
              + family.label()
              + " atomics take "
              + (family == AtomicFamily.COMPARE ? "CSWAP .. MSWAP" : "MIN .. ATOMIC_WRITE")
              + ")");
    }
    positive("--count", count);
    positive("--outstanding", window);
    positive("--iterations", iterations);
    positive("--threads", threads);
    if (warmup < 0) {
      throw new BenchUsageException("--warmup must be 0 or more: " + warmup);
    }
    if (window > 65536) {
      throw new BenchUsageException("--outstanding is at most 65536: " + window);
    }
    if (threads > 256) {
      throw new BenchUsageException("--threads is at most 256: " + threads);
    }
    if (port != null) {
      throw new BenchUsageException("--port is for --server (--connect takes HOST:PORT)");
    }
    DomainAttr.Progress p =
        switch (progress.trim().toLowerCase(Locale.ROOT)) {
          case "auto" -> DomainAttr.Progress.AUTO;
          case "manual" -> DomainAttr.Progress.MANUAL;
          default ->
              throw new BenchUsageException("--progress is auto or manual, not '" + progress + "'");
        };
    String direct = null;
    if (directPath != null) {
      direct = directPath.trim().toLowerCase(Locale.ROOT);
      if (!direct.equals("on") && !direct.equals("off")) {
        throw new BenchUsageException("--direct-path is on or off, not '" + directPath + "'");
      }
    }
    // the default is what ucx_perftest (a single-thread UCX worker) and fabtests
    // (FI_THREAD_DOMAIN in their hints) run with, so the comparison is like for like
    DomainAttr.Threading model = DomainAttr.Threading.DOMAIN;
    if (threading != null) {
      model =
          switch (threading.trim().toLowerCase(Locale.ROOT)) {
            case "endpoint" -> DomainAttr.Threading.ENDPOINT;
            case "safe" -> DomainAttr.Threading.SAFE;
            case "domain" -> DomainAttr.Threading.DOMAIN;
            default ->
                throw new BenchUsageException(
                    "--threading is endpoint, safe or domain, not '" + threading + "'");
          };
    }
    if (transport.isBlank()) {
      throw new BenchUsageException("--transport is empty");
    }
    BenchConfig.Api apiChoice =
        switch (api.trim().toLowerCase(Locale.ROOT)) {
          case "mirror" -> BenchConfig.Api.MIRROR;
          case "typed" -> BenchConfig.Api.TYPED;
          default -> throw new BenchUsageException("--api is mirror or typed, not '" + api + "'");
        };
    BenchConfig cfg =
        new BenchConfig(
            family,
            op,
            datatype,
            count,
            window,
            iterations,
            warmup,
            threads,
            transport.trim(),
            p,
            duration,
            direct,
            model,
            apiChoice);
    String unsupported = apiChoice == BenchConfig.Api.TYPED ? TypedCall.unsupported(cfg) : null;
    if (unsupported != null) {
      throw new BenchUsageException(unsupported);
    }
    return cfg;
  }

  private BenchOutputs outputs(BenchConfig cfg) {
    PerftestMatch match = null;
    if (perftestTest != null && !vsPerftest) {
      throw new BenchUsageException("--perftest-test goes with --vs-ucx-perftest");
    }
    if (vsPerftest) {
      if (rounds < 3) {
        throw new BenchUsageException("--rounds is at least 3: " + rounds);
      }
      if (connect != null && !loopback(connect)) {
        // ucx_perftest's two processes run here, so the target must be here too
        throw new BenchUsageException(
            "--vs-ucx-perftest runs ucx_perftest on this host: --connect only to a loopback"
                + " address");
      }
      if (sweepWindow) {
        throw new BenchUsageException("--vs-ucx-perftest and --sweep-window: one at a time");
      }
      if (cfg.threads() != 1 || cfg.count() != 1) {
        throw new BenchUsageException(
            "--vs-ucx-perftest compares one thread and one element per call (-t 1 -c 1)");
      }
      match =
          perftestTest != null
              ? PerftestMatch.named(perftestTest.trim(), cfg.datatype())
              : PerftestMatch.of(cfg.family(), cfg.op(), cfg.datatype());
      if (match == null && perftestTest != null) {
        throw new BenchUsageException(
            "--perftest-test is one of " + PerftestMatch.TESTS + ", not '" + perftestTest + "'");
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
    return new BenchOutputs(csv, json, hgrm, plot, sweepWindow, match, rounds);
  }

  /** {@code --fetched} keeps one value per call of one element, so it needs a known call count. */
  private void checkFetched(BenchConfig cfg, BenchOutputs outputs) {
    if (fetched == null) {
      return;
    }
    if (cfg.family() != AtomicFamily.FETCH || cfg.count() != 1 || cfg.datatype().size() > 8) {
      throw new BenchUsageException(
          "--fetched keeps fetch calls of one element of 8 bytes or less (--family fetch, -c 1)");
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

  /** Whether the target spins ({@code --server-progress spin}) or leaves it to auto progress. */
  private static boolean spins(String serverProgress) {
    return switch (serverProgress.trim().toLowerCase(Locale.ROOT)) {
      case "spin" -> true;
      case "auto" -> false;
      default ->
          throw new BenchUsageException(
              "--server-progress is spin or auto, not '" + serverProgress + "'");
    };
  }

  private int serve() throws IOException {
    if (connect != null) {
      throw new BenchUsageException("--server and --connect: one side at a time");
    }
    int p = port == null ? DEFAULT_PORT : port;
    if (p < 0 || p > 65535) {
      throw new BenchUsageException("--port is 0 .. 65535: " + p);
    }
    if (tlsTrust != null || region != null) {
      throw new BenchUsageException("--tls-trust and --region are --connect's, not --server's");
    }
    boolean spin = spins(serverProgress);
    BootstrapSecurity security = serverSecurity();
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(bind, p));
      BenchServer target = new BenchServer(transport, spin, System.err, security);
      if (parentWatch) {
        watchParent(System.in, target);
      }
      return target.serve(socket, System.out);
    }
  }

  /** The parent that started this target holds its stdin: end of input means it is gone. */
  private static void watchParent(InputStream in, BenchServer target) {
    Thread.ofPlatform()
        .daemon()
        .name("fiucx-bench-parent-watch")
        .start(
            () -> {
              try {
                while (in.read() >= 0) {
                  // nothing is sent; only the end matters
                }
              } catch (IOException e) {
                // a broken pipe ends the watch as well
              }
              target.stopAndWait();
            });
  }

  /** Whether {@code HOST:PORT} names this host's loopback (127.0.0.1, [::1], localhost). */
  private static boolean loopback(String hostPort) {
    String host = hostPort.substring(0, Math.max(0, hostPort.lastIndexOf(':')));
    try {
      return !host.isEmpty()
          && java.net.InetAddress.getByName(host.replaceAll("^\\[|\\]$", "")).isLoopbackAddress();
    } catch (java.net.UnknownHostException e) {
      return false;
    }
  }

  private static void positive(String name, long v) {
    if (v <= 0) {
      throw new BenchUsageException(name + " must be at least 1: " + v);
    }
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
