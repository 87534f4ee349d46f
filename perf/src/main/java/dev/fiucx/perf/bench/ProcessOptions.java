package dev.fiucx.perf.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * bench's options for many initiator processes against one target ({@code -P}), as OSU's multi-pair
 * tests run one pair per process; and the hidden ones a bench -P parent gives each initiator it
 * starts.
 */
final class ProcessOptions {
  /** The most initiator processes -P starts: each is a JVM of its own. */
  static final int MAX_PROCESSES = 64;

  @Option(
      names = {"-P", "--processes"},
      paramLabel = "N",
      description =
          "start N initiator processes (each a JVM with its own -T threads) against one target:"
              + " a serve bench starts in this process, or --connect HOST:PORT --region NAME;"
              + " reports the aggregate rate, each initiator's, fairness (min/max, Jain's index)"
              + " and the target check over all; --csv adds a row per initiator, --plot a curve"
              + " per initiator. One cell; not with --vs-ucx-perftest, --sweep-window, --server,"
              + " --fetched or --metrics-port")
  Integer processes;

  /** How long -P waits for every initiator to say it warmed up, unless told otherwise. */
  static final Duration WARMUP_LIMIT = Duration.ofSeconds(120);

  @Option(
      names = "--warmup-limit",
      paramLabel = "TIME",
      converter = DurationConverter.class,
      description =
          "with -P: how long to wait for every initiator to say it has warmed up (start, connect"
              + " and -w calls) before ending them all and failing (default 120s; raise it for a"
              + " slow warm-up, e.g. a remote-lock cell over tcp)")
  Duration warmupLimit;

  @Option(
      names = "--same-element",
      description =
          "with -P: every initiator on the same elements (thread t of each on thread t's), not"
              + " each on elements of its own")
  boolean sameElement;

  /** The byte offset of this initiator's elements in a serve's region (from a bench -P parent). */
  @Option(names = "--elements-at", hidden = true, paramLabel = "BYTES")
  Long elementsAt;

  /**
   * One initiator of bench -P: say {@link ParentWatch#WARMED_UP} after the warm-up, measure on the
   * parent's {@link ParentWatch#GO}, and put this process's figures in the JSON.
   */
  @Option(names = "--initiator-of-processes", hidden = true)
  boolean child;

  /** The options each initiator gets as they were given here: what runs, and the serve's TLS. */
  private static final Set<String> PASSED_ON =
      Set.of(
          "--family",
          "--op",
          "--datatype",
          "--count",
          "--outstanding",
          "--iterations",
          "--warmup",
          "--threads",
          "--cpus",
          "--transport",
          "--progress",
          "--duration",
          "--direct-path",
          "--threading",
          "--api",
          "--tls-trust");

  /** What of the command line each initiator gets: the options about the run, as given. */
  static List<String> passedOn(CommandLine.ParseResult parsed) {
    List<String> args = new ArrayList<>();
    for (CommandLine.Model.OptionSpec o : parsed.matchedOptions()) {
      if (PASSED_ON.contains(o.longestName())) {
        for (String v : o.originalStringValues()) {
          args.add(o.longestName());
          args.add(v);
        }
      }
    }
    return args;
  }

  /**
   * Refuses, in one line, what -P cannot do; then whether -P was asked.
   *
   * @param given whether the command line named an option
   */
  boolean check(
      int cells, TargetOptions target, ReportOptions report, boolean fetched, Given given) {
    if (processes == null) {
      if (sameElement || warmupLimit != null) {
        throw new BenchUsageException(
            (sameElement ? "--same-element" : "--warmup-limit") + " goes with -P (--processes)");
      }
      return false;
    }
    if (processes < 1 || processes > MAX_PROCESSES) {
      throw new BenchUsageException("-P is 1 .. " + MAX_PROCESSES + ": " + processes);
    }
    String other =
        target.server
            ? "--server"
            : report.vsPerftest
                ? "--vs-ucx-perftest"
                : report.sweepWindow
                    ? "--sweep-window"
                    : fetched
                        ? "--fetched"
                        : given.named("--metrics-port") ? "--metrics-port" : null;
    if (other != null) {
      throw new BenchUsageException("-P and " + other + ": one at a time");
    }
    if (cells > 1) {
      throw new BenchUsageException(
          "-P runs one cell; this selection has " + cells + " (one -o, -z and --family)");
    }
    if (target.connect != null && target.region == null) {
      throw new BenchUsageException(
          "-P runs against a serve: --connect HOST:PORT needs --region NAME (a bench --server"
              + " serves one initiator)");
    }
    if (given.named("--server-progress")) {
      throw new BenchUsageException(
          "--server-progress is a bench target's; the serve -P runs against progresses by itself");
    }
    return true;
  }

  /** How long to wait for the initiators' warm-ups: {@code --warmup-limit}, else 120 s. */
  Duration warmupLimit() {
    return warmupLimit != null ? warmupLimit : WARMUP_LIMIT;
  }

  /** Whether the command line named an option. */
  interface Given {
    boolean named(String option);
  }
}
