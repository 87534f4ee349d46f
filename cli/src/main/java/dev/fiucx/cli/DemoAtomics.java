package dev.fiucx.cli;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dev.fiucx.AtomicAttr;
import dev.fiucx.AtomicFamily;
import dev.fiucx.ConnectedEndpoint;
import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.Domain;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.FiOp;
import dev.fiucx.PeerRegion;
import dev.fiucx.conformance.report.OpMatrix;
import dev.fiucx.semantics.ElementSemantics;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HexFormat;
import java.util.List;

/**
 * The demo's atomics: one call per row on a served region, native, CAS-loop and remote-lock cells,
 * each shown with its mechanism and path, the target's bytes before and after and the fetched
 * bytes, and each checked against the reference semantics. The bytes before are put there with
 * {@code FI_ATOMIC_WRITE} and the bytes after read with {@code FI_ATOMIC_READ}: the demo reaches
 * the serve's memory only through atomics, as any initiator does.
 */
final class DemoAtomics {
  private static final HexFormat HEX = HexFormat.of();

  /** Each row's element lives this many bytes after the previous one's. */
  static final int STRIDE = 32;

  /** No completion for this long is a failure, not a wait. */
  private static final long COMPLETION_TIMEOUT_MILLIS = 10_000;

  /** One call: family, op, datatype, the target's bytes before, operand and compare (hex). */
  record Row(
      AtomicFamily family,
      FiOp op,
      FiDatatype datatype,
      String initial,
      String operand,
      String compare) {
    String call() {
      return family.label() + " " + op.fiName() + " " + datatype.fiName();
    }
  }

  static final List<Row> ROWS =
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
          // a fetching OR that Debian's UCX 1.13.1 gets wrong on shared memory: the self-test
          // demoted it to the CAS loop there
          new Row(AtomicFamily.FETCH, FiOp.BOR, FiDatatype.UINT32, "f0000000", "0f000000", null),
          new Row(
              AtomicFamily.BASE,
              FiOp.MIN,
              FiDatatype.INT64,
              "0500000000000000",
              "0300000000000000",
              null),
          // 127 + 1 wraps to -128
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

  /** Call, mechanism (path), then three memory images of up to 16 bytes, then the check. */
  private static final String COLUMNS = "  %-31s %-15s %-32s %-32s %-32s %s%n";

  private final Domain domain;
  private final ConnectedEndpoint ep;
  private final PeerRegion region;
  private final PrintStream out;
  private final CqEntry[] entries = {new CqEntry()};

  /**
   * @param domain the endpoint's domain, which answers the query calls
   */
  DemoAtomics(Domain domain, ConnectedEndpoint ep, PeerRegion region, PrintStream out) {
    this.domain = domain;
    this.ep = ep;
    this.region = region;
    this.out = out;
  }

  /** Runs every row and prints its line; true when every row did what the reference says. */
  boolean run() {
    out.println(
        String.format(COLUMNS, "call", "mechanism", "target before", "target after", "fetched", "")
            .stripTrailing());
    boolean ok = true;
    try (Arena arena = Arena.ofConfined()) {
      for (int i = 0; i < ROWS.size(); i++) {
        ok &= row(ROWS.get(i), region.address() + (long) i * STRIDE, arena);
      }
    }
    return ok;
  }

  private boolean row(Row row, long addr, Arena arena) {
    FiDatatype dt = row.datatype();
    int size = dt.size();
    String mechanism;
    try {
      AtomicAttr attr = domain.queryAtomic(dt, row.op(), row.family().queryFlag());
      mechanism =
          OpMatrix.word(attr.mechanism()) + " (" + ep.endpoint().atomicPath(ep.peer(), key()) + ")";
    } catch (FiException e) {
      out.printf(COLUMNS, row.call(), "-", "", "", "", "FAILED: " + e.getMessage());
      return false;
    }
    MemorySegment initial = segment(arena, row.initial());
    MemorySegment operand = row.operand() == null ? null : segment(arena, row.operand());
    MemorySegment compare = row.compare() == null ? null : segment(arena, row.compare());
    MemorySegment result = arena.allocate(size, 16).fill((byte) 0xee);
    MemorySegment after = arena.allocate(size, 16);
    try {
      call(AtomicFamily.BASE, FiOp.ATOMIC_WRITE, dt, initial, null, null, addr);
      call(row.family(), row.op(), dt, operand, compare, result, addr);
      call(AtomicFamily.FETCH, FiOp.ATOMIC_READ, dt, null, null, after, addr);
    } catch (FiException e) {
      out.printf(
          COLUMNS, row.call(), mechanism, row.initial(), "", "", "FAILED: " + e.getMessage());
      return false;
    }
    // what the reference semantics make of the same bytes
    MemorySegment wantTarget = segment(arena, row.initial());
    MemorySegment wantResult = arena.allocate(size, 16);
    ElementSemantics.apply(
        row.op(),
        dt,
        wantTarget,
        0,
        operand,
        0,
        compare,
        0,
        row.family() == AtomicFamily.BASE ? null : wantResult,
        0);
    boolean targetRight = sameValue(dt, after, wantTarget);
    boolean fetchedRight = row.family() == AtomicFamily.BASE || sameValue(dt, result, wantResult);
    String verdict =
        targetRight && fetchedRight
            ? "ok"
            : "WRONG: the reference semantics leave "
                + hex(wantTarget)
                + (row.family() == AtomicFamily.BASE ? "" : " and fetch " + hex(wantResult));
    out.printf(
        COLUMNS,
        row.call(),
        mechanism,
        row.initial(),
        hex(after),
        row.family() == AtomicFamily.BASE ? "-" : hex(result),
        verdict);
    return targetRight && fetchedRight;
  }

  private long key() {
    return region.key();
  }

  /** One call of the family's plain form, waited for; throws with the errno when it fails. */
  private void call(
      AtomicFamily family,
      FiOp op,
      FiDatatype dt,
      MemorySegment operand,
      MemorySegment compare,
      MemorySegment result,
      long addr) {
    var e = ep.endpoint();
    long peer = ep.peer();
    String what = family.label() + " " + op.fiName() + " " + dt.fiName();
    int rc =
        switch (family) {
          case BASE -> e.atomic(operand, 1, null, peer, addr, key(), dt, op, what);
          case FETCH ->
              e.fetchAtomic(operand, 1, null, result, null, peer, addr, key(), dt, op, what);
          case COMPARE ->
              e.compareAtomic(
                  operand, 1, null, compare, null, result, null, peer, addr, key(), dt, op, what);
        };
    if (rc < 0) {
      throw new FiException(rc, what + " returned " + rc);
    }
    int n = ep.cq().sread(entries, 1, COMPLETION_TIMEOUT_MILLIS);
    if (n == -FiErrno.EAVAIL) {
      CqErrEntry err = new CqErrEntry();
      ep.cq().readErr(err);
      throw new FiException(-err.err, what + " completed with an error: " + err);
    }
    if (n != 1) {
      throw new FiException(
          n < 0 ? n : -FiErrno.ETIMEDOUT,
          what + ": no completion within " + COMPLETION_TIMEOUT_MILLIS / 1000 + " s");
    }
    if (entries[0].opContext != what) {
      throw new FiException(-FiErrno.EIO, what + ": the completion of another call came");
    }
    entries[0].opContext = null;
  }

  /**
   * The same value of {@code dt}: every byte, except the padding of the 80-bit long double (bytes
   * 10-15 of each 16), which carries no value (as in the test vectors).
   */
  static boolean sameValue(FiDatatype dt, MemorySegment a, MemorySegment b) {
    for (int i = 0; i < dt.size(); i++) {
      boolean padding =
          (dt == FiDatatype.LONG_DOUBLE || dt == FiDatatype.LONG_DOUBLE_COMPLEX) && i % 16 >= 10;
      if (!padding && a.get(JAVA_BYTE, i) != b.get(JAVA_BYTE, i)) {
        return false;
      }
    }
    return true;
  }

  private static String hex(MemorySegment s) {
    return HEX.formatHex(s.toArray(JAVA_BYTE));
  }

  private static MemorySegment segment(Arena arena, String hex) {
    byte[] b = HEX.parseHex(hex);
    MemorySegment s = arena.allocate(b.length, 16);
    MemorySegment.copy(MemorySegment.ofArray(b), 0, s, 0, b.length);
    return s;
  }
}
