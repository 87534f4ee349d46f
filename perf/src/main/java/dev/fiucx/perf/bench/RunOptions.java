package dev.fiucx.perf.bench;

import dev.fiucx.AtomicFamily;
import dev.fiucx.DomainAttr;
import dev.fiucx.semantics.AtomicTable;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Option;

/**
 * bench's options for what is run: the cells, the calls, the threads and their CPUs, and how the
 * initiator's domain opens. The spellings are ucx_perftest's where it has the option ({@code -n},
 * {@code -w}, {@code -O}, {@code -T}, {@code -c}) and fabtests' fi_rdm_atomic's for the cell
 * ({@code -o}, {@code -z}); elements per call is {@code --count}, long only, because ucx_perftest's
 * {@code -c} is its CPU list and fabtests' {@code -c} its completion method ({@code -e}: fabtests'
 * endpoint type). ucx_perftest's {@code -s} (message size in bytes) is left out: an element's size
 * here is its datatype's, and the bytes of a call are {@code --count} of them.
 */
final class RunOptions {
  @Option(
      names = "--family",
      paramLabel = "F[,F..]|all",
      description =
          "base, fetch or compare, a list of them, or all (default: each op's own, compare for"
              + " CSWAP..MSWAP, else fetch)")
  String family;

  @Option(
      names = {"-o", "--op"},
      paramLabel = "OP[,OP..]|all",
      defaultValue = "sum",
      description =
          "op: sum, min, cswap_le, read, write, ... or FI_SUM; a list (sum,min) or all for a matrix"
              + " (default ${DEFAULT-VALUE})")
  String op;

  @Option(
      names = {"-z", "--datatype"},
      paramLabel = "TYPE[,TYPE..]|all",
      defaultValue = "uint64",
      description =
          "datatype: int8 .. uint64, float, double_complex, ... or FI_UINT64; a list or all for a"
              + " matrix (default ${DEFAULT-VALUE})")
  String datatype;

  @Option(
      names = "--count",
      paramLabel = "N",
      defaultValue = "1",
      description =
          "elements per call (default ${DEFAULT-VALUE}; long form only: -c is ucx_perftest's CPU"
              + " list, and fabtests' completion method)")
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
      names = {"-T", "--threads"},
      paramLabel = "T",
      defaultValue = "1",
      description =
          "threads, each with its own endpoint, CQ and elements, as ucx_perftest's -T (default"
              + " ${DEFAULT-VALUE})")
  int threads;

  @Option(
      names = {"-c", "--cpus"},
      paramLabel = "CPUS",
      description =
          "pin each measuring thread to these CPUs (0,2-3), as ucx_perftest's -c: the set, not one"
              + " CPU per thread; the target and the JVM's other threads are not pinned")
  String cpus;

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

  /** ucx_perftest's test ({@code -t}): here threads were once {@code -t}, so it gets a hint. */
  @Option(names = "-t", hidden = true, paramLabel = "TEST")
  String testFlag;

  /** ucx_perftest's message size ({@code -s}): left out, with a hint. */
  @Option(names = "-s", hidden = true, paramLabel = "SIZE")
  String sizeFlag;

  /** The one-line hint for a spelling of ucx_perftest's or of an older bench, or null. */
  String oldSpelling() {
    if (testFlag != null) {
      return "-t is ucx_perftest's test; threads are -T";
    }
    if (sizeFlag != null) {
      return "-s is ucx_perftest's message size: an element's size here is its datatype's (-z),"
          + " and a call's elements are --count";
    }
    return null;
  }

  /** The cells {@code --family}, {@code -o} and {@code -z} select. */
  CellSelection selection() {
    return CellSelection.parse(family, op, datatype);
  }

  /**
   * The CPUs of {@code -c}, checked: each one online here and one a thread can be pinned to.
   *
   * @return null without {@code -c}
   */
  CpuSet cpuSet() {
    if (cpus == null) {
      return null;
    }
    CpuSet online = CpuSet.online();
    String v = cpus.trim();
    if (v.matches("[0-9]{1,6}")) {
      int n = Integer.parseInt(v);
      if (n >= 1 && n <= AtomicTable.MAX_ATOMIC_BYTES && !online.contains(n)) {
        // elements per call were -c once: a count that is no CPU here was meant as one
        throw new BenchUsageException(
            "-c is ucx_perftest's CPU list (this machine's CPUs: "
                + online
                + "); elements per call are --count");
      }
    }
    CpuSet set;
    try {
      set = CpuSet.parse(v);
    } catch (IllegalArgumentException e) {
      throw new BenchUsageException("-c takes a CPU list such as 0,2-3: " + e.getMessage());
    }
    List<Integer> missing = set.missingFrom(online);
    if (!missing.isEmpty()) {
      throw new BenchUsageException(
          "-c "
              + set
              + ": CPU "
              + new CpuSet(missing)
              + " is not online here (this machine's CPUs: "
              + online
              + ")");
    }
    String why = Pinning.whyNot(set);
    if (why != null) {
      throw new BenchUsageException("-c " + set + ": " + why);
    }
    return set;
  }

  /**
   * The options as a checked run of {@code cell}; a bad combination is a usage error.
   *
   * @param familyNamed whether {@code --family} named the cell's family (one cell checks that the
   *     op is the family's)
   */
  BenchConfig config(CellSelection.Cell cell, boolean familyNamed) {
    AtomicFamily f = cell.family();
    if (familyNamed && (f == AtomicFamily.COMPARE) != cell.op().isCompareOp()) {
      throw new BenchUsageException(
          cell.op().fiName()
              + " is no "
              + f.label()
              + " op ("
              + f.label()
              + " atomics take "
              + (f == AtomicFamily.COMPARE ? "CSWAP .. MSWAP" : "MIN .. ATOMIC_WRITE")
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
    return new BenchConfig(
        f,
        cell.op(),
        cell.datatype(),
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
  }

  private static void positive(String name, long v) {
    if (v <= 0) {
      throw new BenchUsageException(name + " must be at least 1: " + v);
    }
  }
}
