package dev.fiucx.perf.cli;

import dev.fiucx.AtomicAttr;
import dev.fiucx.AtomicFamily;
import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.DomainAttr;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.FiOp;
import dev.fiucx.conformance.remote.Initiator;
import dev.fiucx.conformance.remote.RemoteTarget;
import dev.fiucx.perf.bench.PerftestMatch;
import dev.fiucx.perf.bench.PerftestResult;
import dev.fiucx.perf.bench.PerftestRunner;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code fiucx demo}: the main job. Starts a target process that exposes memory over UCX, runs a
 * few atomics on it from this process, and shows for each its result, how it was carried out and
 * what it cost; then the provider's whole capability table.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description =
        "Run atomics from this process on a target process over UCX: results, mechanism, latency.")
final class DemoCommand implements Callable<Integer> {
  private static final HexFormat HEX = HexFormat.of();

  @Option(
      names = "--transport",
      defaultValue = "shm",
      description = "UCX transport: shm or tcp (default ${DEFAULT-VALUE})")
  String transport;

  @Option(
      names = "--iterations",
      defaultValue = "100000",
      description =
          "round trips timed per row (at most half a second of them), after a warm-up that"
              + " lasts until the rate holds still (default ${DEFAULT-VALUE})")
  int iterations;

  /** The warm-up runs at least this long: the JIT compiles the call path in its first second. */
  private static final long WARMUP_MIN_NANOS = 500_000_000L;

  /** ... and stops here even if the rate still wanders (a busy machine). */
  private static final long WARMUP_MAX_NANOS = 1_500_000_000L;

  /** The warm-up compares the rate of consecutive slices this long. */
  private static final long WARMUP_SLICE_NANOS = 100_000_000L;

  /** Two slices whose rates differ by less than this are steady. */
  private static final double STEADY = 0.05;

  /** A row's timed round trips stop after this long, so tcp rows stay short. */
  private static final long MEASURE_MAX_NANOS = 500_000_000L;

  /** No completion for this long is a failure, not a wait. */
  private static final long COMPLETION_TIMEOUT_NANOS = 10_000_000_000L;

  private final CqEntry[] entries = {new CqEntry()};

  /** One demonstrated call: family, op, datatype, operand and compare as little-endian hex. */
  private record Row(
      AtomicFamily family,
      FiOp op,
      FiDatatype datatype,
      String initial,
      String operand,
      String compare) {}

  /**
   * Call, mechanism and path ({@code native (mapped)}: CPU atomics on the target's region mapped
   * here; {@code (ucp)}: through UCX), then three memory images of up to 16 bytes (32 hex digits).
   */
  private static final String COLUMNS = "%-32s %-21s %-32s %-32s %-32s ";

  private static final List<Row> ROWS =
      List.of(
          new Row(
              AtomicFamily.FETCH,
              FiOp.SUM,
              FiDatatype.UINT64,
              "0a00000000000000",
              "0500000000000000",
              null),
          new Row(AtomicFamily.BASE, FiOp.SUM, FiDatatype.INT32, "ffffffff", "02000000", null),
          new Row(
              AtomicFamily.FETCH,
              FiOp.ATOMIC_READ,
              FiDatatype.DOUBLE,
              "000000000000f83f",
              null,
              null),
          new Row(
              AtomicFamily.FETCH,
              FiOp.ATOMIC_WRITE,
              FiDatatype.FLOAT,
              "0000803f",
              "00000040",
              null),
          new Row(
              AtomicFamily.COMPARE,
              FiOp.CSWAP,
              FiDatatype.UINT64,
              "0700000000000000",
              "0900000000000000",
              "0700000000000000"),
          new Row(AtomicFamily.FETCH, FiOp.BOR, FiDatatype.UINT32, "f0000000", "0f000000", null),
          new Row(
              AtomicFamily.FETCH,
              FiOp.BXOR,
              FiDatatype.UINT64,
              "ff00000000000000",
              "0f00000000000000",
              null),
          new Row(
              AtomicFamily.BASE,
              FiOp.MIN,
              FiDatatype.INT64,
              "0500000000000000",
              "0300000000000000",
              null),
          new Row(AtomicFamily.FETCH, FiOp.SUM, FiDatatype.INT8, "7f", "01", null),
          // (1.5, -2) + (1, 0.25)
          new Row(
              AtomicFamily.FETCH,
              FiOp.SUM,
              FiDatatype.DOUBLE_COMPLEX,
              "000000000000f83f00000000000000c0",
              "000000000000f03f000000000000d03f",
              null),
          // max(1.0L, 2.0L)
          new Row(
              AtomicFamily.BASE,
              FiOp.MAX,
              FiDatatype.LONG_DOUBLE,
              "0000000000000080ff3f000000000000",
              "00000000000000800040000000000000",
              null));

  @Override
  public Integer call() {
    System.out.printf(
        "fiucx demo: this process runs atomics on memory of a second process over UCX (%s)%n%n",
        transport);
    try (RemoteTarget target = new RemoteTarget("ucx", transport, 4096, false, false, List.of());
        Initiator ini = new Initiator("ucx", transport, DomainAttr.Progress.MANUAL);
        Arena arena = Arena.ofConfined()) {
      ini.domain.describe().forEach((k, v) -> System.out.printf("  %-12s %s%n", k, v));
      System.out.println();
      long peer = ini.av.insert(target.address());
      System.out.printf(
          "  " + COLUMNS + "%s%n",
          "call",
          "mechanism",
          "target before",
          "target after",
          "fetched",
          "latency (steady, one in flight)");
      String note = null;
      for (Row row : ROWS) {
        Measured m = run(row, ini, peer, target, arena);
        String line = "  " + m.line();
        if (row == ROWS.getFirst() && m.micros() > 0) {
          Comparison c = vsUcxPerftest(ini, m);
          line += c.suffix();
          note = c.note();
        }
        System.out.println(line);
      }
      if (note != null) {
        System.out.println("  " + note);
      }
      System.out.println();
      CapabilityTableView.print(InfoCommand.asked(ini.domain), System.out);
      return 0;
    }
  }

  /**
   * A row's printed line, its mean round trip in microseconds and how many calls that mean is of (0
   * when the row did not run).
   */
  private record Measured(String line, double micros, long calls) {}

  /** A round trip: its mean in microseconds over a number of calls. */
  private record RoundTrips(double micros, long calls) {}

  /** What the first row says about ucx_perftest: after its latency, and a line below the rows. */
  private record Comparison(String suffix, String note) {}

  private Measured run(Row row, Initiator ini, long peer, RemoteTarget target, Arena arena) {
    String call = row.family().label() + " " + row.op().fiName() + " " + row.datatype().fiName();
    AtomicAttr attr;
    try {
      attr = ini.domain.queryAtomic(row.datatype(), row.op(), row.family().queryFlag());
    } catch (FiException e) {
      return new Measured(String.format("%-32s %-21s %s", call, "-", e.getMessage()), 0, 0);
    }
    byte[] initial = HEX.parseHex(row.initial());
    int size = row.datatype().size();
    MemorySegment operand = row.operand() == null ? null : native_(arena, row.operand());
    MemorySegment compare = row.compare() == null ? null : native_(arena, row.compare());
    MemorySegment result = arena.allocate(size, 16);
    target.set(0, initial);
    try {
      once(row, ini, peer, target.key(), operand, compare, result);
    } catch (FiException e) {
      return new Measured(
          String.format("%-32s %-21s failed: %s", call, attr.mechanism(), e.getMessage()), 0, 0);
    }
    String after = HEX.formatHex(target.get(0, size));
    String fetched =
        row.family() == AtomicFamily.BASE
            ? "-"
            : HEX.formatHex(result.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
    Runnable oneCall = () -> once(row, ini, peer, target.key(), operand, compare, result);
    warmUp(oneCall);
    RoundTrips timed = meanRoundTrip(oneCall);
    return new Measured(
        String.format(
            COLUMNS + "%.3f us",
            call,
            attr.mechanism().name().toLowerCase(java.util.Locale.ROOT)
                + " ("
                + ini.ep.atomicPath(peer, target.key())
                + ")",
            row.initial(),
            after,
            fetched,
            timed.micros()),
        timed.micros(),
        timed.calls());
  }

  /**
   * Calls until the rate holds still: slices of 100 ms, until two in a row agree within 5% (at
   * least 0.5 s, at most 1.5 s). A fixed count of calls was mostly the JIT's warm-up and made the
   * rows read 0.4-1.3 us where the steady call takes a fraction of that.
   */
  private static void warmUp(Runnable call) {
    long start = System.nanoTime();
    double last = -1;
    while (true) {
      long sliceStart = System.nanoTime();
      long n = 0;
      long now;
      do {
        call.run();
        n++;
        now = (n & 63) == 0 ? System.nanoTime() : sliceStart;
      } while (now - sliceStart < WARMUP_SLICE_NANOS);
      double rate = n / (double) (now - sliceStart);
      boolean steady = last > 0 && Math.abs(rate - last) < STEADY * last;
      if (now - start >= WARMUP_MAX_NANOS || (steady && now - start >= WARMUP_MIN_NANOS)) {
        return;
      }
      last = rate;
    }
  }

  /** The mean round trip of {@code iterations} calls, or of as many as half a second holds. */
  private RoundTrips meanRoundTrip(Runnable call) {
    long start = System.nanoTime();
    long n = 0;
    long end = start;
    while (n < iterations) {
      call.run();
      n++;
      if ((n & 255) == 0 && (end = System.nanoTime()) - start > MEASURE_MAX_NANOS) {
        break;
      }
    }
    if (n % 256 != 0 || n == iterations) {
      end = System.nanoTime();
    }
    return new RoundTrips((end - start) / 1e3 / n, n);
  }

  /**
   * ucx_perftest's {@code ucp_fadd} (the first row's counterpart) on the same transports, right
   * after the first row: one round; {@code fiucx bench --vs-ucx-perftest} alternates several.
   */
  private Comparison vsUcxPerftest(Initiator ini, Measured fiucx) {
    java.nio.file.Path exe = PerftestRunner.find();
    if (exe == null) {
      return new Comparison(
          "", "ucx_perftest is not installed (Debian: ucx-utils): no ratio to ucp_fadd");
    }
    String tls = ini.domain.describe().getOrDefault("ucx.tls", transport);
    // as many calls as fiucx timed (at least 1,000): about as long, on a slow transport too
    long n = Math.max(1_000, fiucx.calls());
    double fiucxMicros = fiucx.micros();
    try {
      PerftestResult p =
          new PerftestRunner(exe, tls, System.err)
              .run(new PerftestMatch("ucp_fadd", 8), n, n / 10, 1);
      double ratio = fiucxMicros / p.overallLatencyMicros();
      return new Comparison(
          String.format(
              java.util.Locale.ROOT,
              "  = %.1fx ucx_perftest ucp_fadd (%.3f us)",
              ratio,
              p.overallLatencyMicros()),
          String.format(
              java.util.Locale.ROOT,
              "first row against ucx_perftest -t ucp_fadd -s 8 -n %d -O 1 (UCX_TLS=%s) in this"
                  + " run: fiucx %.3f us, ucx_perftest %.3f us overall, ratio %.2fx",
              n,
              tls,
              fiucxMicros,
              p.overallLatencyMicros(),
              ratio));
    } catch (java.io.IOException e) {
      return new Comparison("", "ucx_perftest ucp_fadd did not run: " + e.getMessage());
    }
  }

  /** One call of the row, waited for. */
  private void once(
      Row row,
      Initiator ini,
      long peer,
      long key,
      MemorySegment operand,
      MemorySegment compare,
      MemorySegment result) {
    int rc =
        ini.post(
            row.family(), row.op(), row.datatype(), 1, operand, compare, result, peer, 0, key, row);
    if (rc < 0) {
      throw new FiException(rc, "the call");
    }
    awaitCompletion(ini);
  }

  /**
   * Reads the queue until the call's completion is there. Unlike {@code sread} it reads no clock
   * per read (only every 2^20 empty reads, for the timeout), so the loop times the call.
   */
  private void awaitCompletion(Initiator ini) {
    long spins = 0;
    long since = 0;
    while (true) {
      int n = ini.cq.read(entries, 1);
      if (n == 1) {
        entries[0].opContext = null;
        return;
      }
      if (n == -FiErrno.EAVAIL) {
        CqErrEntry e = new CqErrEntry();
        ini.cq.readErr(e);
        throw new FiException(-e.err, "error completion: " + e);
      }
      if (n != -FiErrno.EAGAIN) {
        throw new FiException(n, "reading the completion queue");
      }
      if ((++spins & ((1 << 20) - 1)) == 0) {
        long now = System.nanoTime();
        if (since == 0) {
          since = now;
        } else if (now - since > COMPLETION_TIMEOUT_NANOS) {
          throw new FiException(-FiErrno.ETIMEDOUT, "no completion within 10 s");
        }
      }
    }
  }

  private static MemorySegment native_(Arena arena, String hex) {
    byte[] b = HEX.parseHex(hex);
    MemorySegment s = arena.allocate(b.length, 16);
    MemorySegment.copy(MemorySegment.ofArray(b), 0, s, 0, b.length);
    return s;
  }
}
