package dev.fiucx.perf.cli;

import dev.fiucx.AtomicAttr;
import dev.fiucx.AtomicFamily;
import dev.fiucx.DomainAttr;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiException;
import dev.fiucx.FiOp;
import dev.fiucx.conformance.remote.Initiator;
import dev.fiucx.conformance.remote.RemoteTarget;
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
          "operations timed per row, after half as many untimed to warm up (default"
              + " ${DEFAULT-VALUE})")
  int iterations;

  /** One demonstrated call: family, op, datatype, operand and compare as little-endian hex. */
  private record Row(
      AtomicFamily family,
      FiOp op,
      FiDatatype datatype,
      String initial,
      String operand,
      String compare) {}

  /** Call, mechanism, then three memory images of up to 16 bytes (32 hex digits). */
  private static final String COLUMNS = "%-32s %-11s %-32s %-32s %-32s ";

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
          "latency");
      for (Row row : ROWS) {
        System.out.println("  " + run(row, ini, peer, target, arena));
      }
      System.out.println();
      CapabilityTableView.print(InfoCommand.asked(ini.domain), System.out);
      return 0;
    }
  }

  private String run(Row row, Initiator ini, long peer, RemoteTarget target, Arena arena) {
    String call = row.family().label() + " " + row.op().fiName() + " " + row.datatype().fiName();
    AtomicAttr attr;
    try {
      attr = ini.domain.queryAtomic(row.datatype(), row.op(), row.family().queryFlag());
    } catch (FiException e) {
      return String.format("%-32s %-11s %s", call, "-", e.getMessage());
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
      return String.format("%-32s %-11s failed: %s", call, attr.mechanism(), e.getMessage());
    }
    String after = HEX.formatHex(target.get(0, size));
    String fetched =
        row.family() == AtomicFamily.BASE
            ? "-"
            : HEX.formatHex(result.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
    for (int i = 0; i < iterations / 2; i++) {
      once(row, ini, peer, target.key(), operand, compare, result);
    }
    long start = System.nanoTime();
    for (int i = 0; i < iterations; i++) {
      once(row, ini, peer, target.key(), operand, compare, result);
    }
    double micros = (System.nanoTime() - start) / 1e3 / iterations;
    return String.format(
        COLUMNS + "%.2f us",
        call,
        attr.mechanism().name().toLowerCase(java.util.Locale.ROOT),
        row.initial(),
        after,
        fetched,
        micros);
  }

  /** One call of the row, waited for. */
  private static void once(
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
    ini.awaitCompletion();
  }

  private static MemorySegment native_(Arena arena, String hex) {
    byte[] b = HEX.parseHex(hex);
    MemorySegment s = arena.allocate(b.length, 16);
    MemorySegment.copy(MemorySegment.ofArray(b), 0, s, 0, b.length);
    return s;
  }
}
