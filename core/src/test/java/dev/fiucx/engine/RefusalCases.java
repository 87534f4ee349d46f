package dev.fiucx.engine;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fiucx.AtomicMsg;
import dev.fiucx.Endpoint;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.Ioc;
import dev.fiucx.RmaIoc;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;

/**
 * The bad calls of {@link EngineEndpointRefusalsTest}, by kind (keys, bounds, alignment, counts,
 * cells, access, buffers, destinations, states), against one {@link LoopbackRig}, and the check
 * each is run with: its exact errno, every region and the result buffer unchanged, no completion,
 * no counter moved, then an exact fetch SUM on the probe word.
 */
final class RefusalCases {
  /** The probe: a UINT64 that every case's fetch SUM of 1 moves by one. */
  static final long PROBE = LoopbackRig.REGION - 64;

  private static final int REGION = LoopbackRig.REGION;

  /** One bad call and the negative errno it must return. */
  record Case(String name, int errno, IntSupplier call) {}

  final LoopbackRig r;
  final Arena arena;
  final long k;
  final long p;
  final MemorySegment one;
  final MemorySegment ones;

  /** Results of up to 513 elements of 8 bytes, filled with a pattern before each case. */
  final MemorySegment result;

  final MemorySegment big;
  Runnable beforeProbe = () -> {}; // ends the calls a case left deferred behind an FI_FENCE
  private final byte[] pattern = new byte[REGION];
  private long probeValue;
  private int probes;

  RefusalCases(LoopbackRig r) {
    this.r = r;
    this.arena = r.arena;
    this.k = r.key;
    this.p = r.peer;
    one = r.longs(1, 0, 0, 0);
    ones = r.longs(1, 1, 1, 1);
    result = r.zeroed(513 * 8);
    big = r.zeroed(4097 * 8);
    for (int i = 0; i < REGION; i++) {
      pattern[i] = (byte) (i * 7 + 3);
    }
    for (int i = 0; i < 8; i++) {
      pattern[(int) PROBE + i] = 0;
    }
    r.target.copyFrom(MemorySegment.ofArray(pattern));
    r.second.segment().copyFrom(MemorySegment.ofArray(pattern));
    for (int i = 0; i < LoopbackRig.READ_ONLY_REGION; i++) {
      r.readOnly.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (i * 5 + 1));
    }
    probe();
  }

  void run(Case c) {
    result.fill((byte) 0x5A);
    byte[] resultBefore = result.toArray(ValueLayout.JAVA_BYTE);
    byte[] targetBefore = LoopbackRig.bytesOf(r.region);
    byte[] secondBefore = LoopbackRig.bytesOf(r.second);
    byte[] readOnlyBefore = LoopbackRig.bytesOf(r.readOnly);
    long reads = r.reads.read();
    long writes = r.writes.read();

    int rc = c.call().getAsInt();

    assertEquals(FiErrno.errorString(-c.errno()), FiErrno.errorString(rc), c.name());
    r.noCompletion();
    assertArrayEquals(targetBefore, LoopbackRig.bytesOf(r.region), "the region changed");
    assertArrayEquals(secondBefore, LoopbackRig.bytesOf(r.second), "the second region changed");
    assertArrayEquals(readOnlyBefore, LoopbackRig.bytesOf(r.readOnly), "the read-only changed");
    assertArrayEquals(resultBefore, result.toArray(ValueLayout.JAVA_BYTE), "a result written");
    assertEquals(reads, r.reads.read(), "the read counter moved");
    assertEquals(writes, r.writes.read(), "the write counter moved");
    beforeProbe.run();
    probe();
  }

  /** The same endpoint does an exact fetch SUM of 1 on the probe. */
  private void probe() {
    MemorySegment fetched = r.zeroed(8);
    String context = "probe " + probes++;
    assertEquals(
        0,
        r.ep.fetchAtomic(
            one, 1, null, fetched, null, p, PROBE, k, FiDatatype.UINT64, FiOp.SUM, context));
    r.completes(context, FiFlags.ATOMIC | FiFlags.READ);
    assertEquals(probeValue, fetched.get(JAVA_LONG, 0), "the probe fetched");
    probeValue++;
    assertEquals(probeValue, r.word(PROBE));
  }

  private int fetch(FiDatatype dt, FiOp op, MemorySegment res, long addr, long count) {
    return r.ep.fetchAtomic(ones, count, null, res, null, p, addr, k, dt, op, "x");
  }

  private int fetchSum(long addr) {
    return fetch(FiDatatype.UINT64, FiOp.SUM, result, addr, 1);
  }

  private int sum(FiDatatype dt, long addr, long count) {
    return r.ep.atomic(big, count, null, p, addr, k, dt, FiOp.SUM, "x");
  }

  private int atomicmsg(RmaIoc[] rma, FiDatatype dt, FiOp op, long flags) {
    return r.ep.atomicmsg(
        new AtomicMsg(new Ioc[] {new Ioc(ones, 2)}, null, p, rma, dt, op, "x", 0), flags);
  }

  List<Case> all() {
    List<Case> c = new ArrayList<>();
    keys(c);
    bounds(c);
    alignment(c);
    counts(c);
    cells(c);
    access(c);
    buffers(c);
    destinations(c);
    states(c);
    return c;
  }

  private void keys(List<Case> c) {
    long unknown = k + 1000;
    int rejected = FiErrno.EKEYREJECTED;
    c.add(
        new Case(
            "unknown key, count 1",
            rejected,
            () ->
                r.ep.fetchAtomic(
                    one, 1, null, result, null, p, 0, unknown, FiDatatype.UINT64, FiOp.SUM, "x")));
    c.add(
        new Case(
            "unknown key, count 4",
            rejected,
            () ->
                r.ep.fetchAtomic(
                    ones, 4, null, result, null, p, 0, unknown, FiDatatype.UINT64, FiOp.SUM, "x")));
    c.add(
        new Case(
            "unknown key, CAS-loop cell",
            rejected,
            () -> r.ep.atomic(one, 1, null, p, 0, unknown, FiDatatype.INT8, FiOp.MAX, "x")));
    c.add(
        new Case(
            "unknown key, remote-lock cell",
            rejected,
            () ->
                r.ep.fetchAtomic(
                    ones,
                    1,
                    null,
                    result,
                    null,
                    p,
                    16,
                    unknown,
                    FiDatatype.DOUBLE_COMPLEX,
                    FiOp.SUM,
                    "x")));
    long lockKey = EngineDomain.lockKeyOf(r.ep.name());
    c.add(
        new Case(
            "the key of the peer's lock words",
            rejected,
            () -> r.ep.atomic(one, 1, null, p, 0, lockKey, FiDatatype.UINT64, FiOp.SUM, "x")));
    c.add(
        new Case(
            "fi_atomicmsg, the second rma iov's key unknown (the first is not carried out)",
            rejected,
            () ->
                atomicmsg(
                    new RmaIoc[] {new RmaIoc(0, 1, k), new RmaIoc(8, 1, unknown)},
                    FiDatatype.UINT64,
                    FiOp.SUM,
                    0)));
  }

  private void bounds(List<Case> c) {
    int fault = FiErrno.EFAULT;
    for (long addr : new long[] {REGION, REGION - 4, -8, Long.MAX_VALUE - 7, 1L << 40}) {
      c.add(new Case("fetch SUM UINT64 at " + addr, fault, () -> fetchSum(addr)));
    }
    c.add(
        new Case(
            "UINT64 count 2 across the end", fault, () -> sum(FiDatatype.UINT64, REGION - 8, 2)));
    c.add(new Case("UINT64 count 512 from offset 8", fault, () -> sum(FiDatatype.UINT64, 8, 512)));
    c.add(new Case("INT8 at the end (CAS loop)", fault, () -> sum(FiDatatype.INT8, REGION, 1)));
    c.add(
        new Case(
            "DOUBLE_COMPLEX across the end (remote lock)",
            fault,
            () -> sum(FiDatatype.DOUBLE_COMPLEX, REGION - 8, 1)));
    c.add(
        new Case(
            "fi_inject_atomic before the start",
            fault,
            () -> r.ep.injectAtomic(one, 1, p, -16, k, FiDatatype.UINT64, FiOp.SUM)));
    c.add(
        new Case(
            "fi_compare_atomic CSWAP at the end",
            fault,
            () ->
                r.ep.compareAtomic(
                    one,
                    1,
                    null,
                    one,
                    null,
                    result,
                    null,
                    p,
                    REGION,
                    k,
                    FiDatatype.UINT64,
                    FiOp.CSWAP,
                    "x")));
    c.add(
        new Case(
            "fi_atomicmsg, the second rma iov outside",
            fault,
            () ->
                atomicmsg(
                    new RmaIoc[] {new RmaIoc(0, 1, k), new RmaIoc(REGION, 1, k)},
                    FiDatatype.UINT64,
                    FiOp.SUM,
                    0)));
    c.add(
        new Case(
            "ATOMIC_READ past the read-only region's end",
            fault,
            () ->
                r.ep.fetchAtomic(
                    null,
                    1,
                    null,
                    result,
                    null,
                    p,
                    LoopbackRig.READ_ONLY_REGION,
                    r.readOnly.key(),
                    FiDatatype.UINT64,
                    FiOp.ATOMIC_READ,
                    "x")));
  }

  private void alignment(List<Case> c) {
    c.add(new Case("fetch SUM UINT64 at 4", FiErrno.EINVAL, () -> fetchSum(4)));
    c.add(
        new Case(
            "fetch SUM UINT64 count 3 at 12",
            FiErrno.EINVAL,
            () -> fetch(FiDatatype.UINT64, FiOp.SUM, result, 12, 3)));
    c.add(
        new Case(
            "fetch MIN INT32 at 2 (CAS loop)",
            FiErrno.EINVAL,
            () -> fetch(FiDatatype.INT32, FiOp.MIN, result, 2, 1)));
    c.add(new Case("SUM INT16 at 1 (CAS loop)", FiErrno.EINVAL, () -> sum(FiDatatype.INT16, 1, 1)));
    c.add(
        new Case(
            "SUM DOUBLE_COMPLEX at 4 (remote lock)",
            FiErrno.EINVAL,
            () -> sum(FiDatatype.DOUBLE_COMPLEX, 4, 1)));
    c.add(
        new Case(
            "SUM LONG_DOUBLE at 8 (remote lock)",
            FiErrno.EINVAL,
            () -> sum(FiDatatype.LONG_DOUBLE, 8, 1)));
  }

  private void counts(List<Case> c) {
    for (long n : new long[] {0, -1, Long.MIN_VALUE}) {
      c.add(
          new Case(
              "fi_atomic count " + n,
              FiErrno.EINVAL,
              () -> r.ep.atomic(ones, n, null, p, 0, k, FiDatatype.UINT64, FiOp.SUM, "x")));
    }
    c.add(
        new Case(
            "fi_fetch_atomic count 0",
            FiErrno.EINVAL,
            () -> fetch(FiDatatype.UINT64, FiOp.SUM, result, 0, 0)));
    c.add(
        new Case(
            "fi_inject_atomic count 0",
            FiErrno.EINVAL,
            () -> r.ep.injectAtomic(ones, 0, p, 0, k, FiDatatype.UINT64, FiOp.SUM)));
    c.add(
        new Case(
            "fi_atomic UINT64 count 513", FiErrno.EMSGSIZE, () -> sum(FiDatatype.UINT64, 0, 513)));
    c.add(
        new Case(
            "fi_fetch_atomic count Long.MAX_VALUE",
            FiErrno.EMSGSIZE,
            () -> fetch(FiDatatype.UINT64, FiOp.SUM, big, 0, Long.MAX_VALUE)));
    c.add(
        new Case(
            "fi_atomic INT8 count 4097 (CAS loop)",
            FiErrno.EMSGSIZE,
            () -> sum(FiDatatype.INT8, 0, 4097)));
    c.add(
        new Case(
            "fi_atomic DOUBLE_COMPLEX count 257 (remote lock)",
            FiErrno.EMSGSIZE,
            () -> sum(FiDatatype.DOUBLE_COMPLEX, 0, 257)));
    c.add(
        new Case(
            "fi_inject_atomic count 513",
            FiErrno.EMSGSIZE,
            () -> r.ep.injectAtomic(big, 513, p, 0, k, FiDatatype.UINT64, FiOp.SUM)));
    c.add(
        new Case(
            "fi_atomicv iov count 0",
            FiErrno.EINVAL,
            () ->
                r.ep.atomicv(
                    new Ioc[] {new Ioc(ones, 1)},
                    null,
                    0,
                    p,
                    0,
                    k,
                    FiDatatype.UINT64,
                    FiOp.SUM,
                    "x")));
    c.add(
        new Case(
            "fi_atomicv two iovs of 300 elements",
            FiErrno.EMSGSIZE,
            () ->
                r.ep.atomicv(
                    new Ioc[] {new Ioc(big, 300), new Ioc(big, 300)},
                    null,
                    2,
                    p,
                    0,
                    k,
                    FiDatatype.UINT64,
                    FiOp.SUM,
                    "x")));
  }

  private void cells(List<Case> c) {
    int no = FiErrno.EOPNOTSUPP;
    c.add(
        new Case(
            "fi_atomic BAND FLOAT",
            no,
            () -> r.ep.atomic(ones, 1, null, p, 0, k, FiDatatype.FLOAT, FiOp.BAND, "x")));
    c.add(
        new Case(
            "fi_atomic count 4 BOR DOUBLE",
            no,
            () -> r.ep.atomic(ones, 4, null, p, 0, k, FiDatatype.DOUBLE, FiOp.BOR, "x")));
    c.add(
        new Case(
            "fi_atomic MIN DOUBLE_COMPLEX",
            no,
            () -> r.ep.atomic(ones, 1, null, p, 0, k, FiDatatype.DOUBLE_COMPLEX, FiOp.MIN, "x")));
    c.add(
        new Case(
            "fi_inject_atomic CSWAP",
            no,
            () -> r.ep.injectAtomic(one, 1, p, 0, k, FiDatatype.UINT64, FiOp.CSWAP)));
    c.add(
        new Case(
            "fi_fetch_atomic CSWAP", no, () -> fetch(FiDatatype.UINT64, FiOp.CSWAP, result, 0, 1)));
    c.add(
        new Case(
            "fi_compare_atomic SUM",
            no,
            () ->
                r.ep.compareAtomic(
                    one,
                    1,
                    null,
                    one,
                    null,
                    result,
                    null,
                    p,
                    0,
                    k,
                    FiDatatype.UINT64,
                    FiOp.SUM,
                    "x")));
    c.add(
        new Case(
            "fi_atomic null op",
            FiErrno.EINVAL,
            () -> r.ep.atomic(one, 1, null, p, 0, k, FiDatatype.UINT64, null, "x")));
    c.add(
        new Case(
            "fi_fetch_atomic null datatype",
            FiErrno.EINVAL,
            () -> fetch(null, FiOp.SUM, result, 0, 1)));
    c.add(new Case("fi_atomicmsg null message", FiErrno.EINVAL, () -> r.ep.atomicmsg(null, 0)));
    c.add(
        new Case(
            "fi_atomicmsg flags FI_TAGGED",
            FiErrno.EBADFLAGS,
            () ->
                atomicmsg(
                    new RmaIoc[] {new RmaIoc(0, 2, k)},
                    FiDatatype.UINT64,
                    FiOp.SUM,
                    FiFlags.TAGGED)));
  }

  private void access(List<Case> c) {
    long rk = r.readOnly.key();
    int denied = FiErrno.EACCES;
    c.add(
        new Case(
            "read-only region: SUM",
            denied,
            () -> r.ep.atomic(one, 1, null, p, 0, rk, FiDatatype.UINT64, FiOp.SUM, "x")));
    c.add(
        new Case(
            "read-only region: fetch SUM",
            denied,
            () ->
                r.ep.fetchAtomic(
                    one, 1, null, result, null, p, 0, rk, FiDatatype.UINT64, FiOp.SUM, "x")));
    c.add(
        new Case(
            "read-only region: fetch ATOMIC_WRITE",
            denied,
            () ->
                r.ep.fetchAtomic(
                    one,
                    1,
                    null,
                    result,
                    null,
                    p,
                    8,
                    rk,
                    FiDatatype.UINT64,
                    FiOp.ATOMIC_WRITE,
                    "x")));
    c.add(
        new Case(
            "read-only region: CSWAP",
            denied,
            () ->
                r.ep.compareAtomic(
                    one,
                    1,
                    null,
                    one,
                    null,
                    result,
                    null,
                    p,
                    0,
                    rk,
                    FiDatatype.UINT64,
                    FiOp.CSWAP,
                    "x")));
    c.add(
        new Case(
            "read-only region: fetch MAX INT8 (CAS loop)",
            denied,
            () ->
                r.ep.fetchAtomic(
                    one, 1, null, result, null, p, 0, rk, FiDatatype.INT8, FiOp.MAX, "x")));
    c.add(
        new Case(
            "read-only region: SUM DOUBLE_COMPLEX (remote lock)",
            denied,
            () -> r.ep.atomic(ones, 1, null, p, 16, rk, FiDatatype.DOUBLE_COMPLEX, FiOp.SUM, "x")));
    c.add(
        new Case(
            "read-only region: fi_inject_atomic",
            denied,
            () -> r.ep.injectAtomic(one, 1, p, 0, rk, FiDatatype.UINT64, FiOp.SUM)));
    c.add(
        new Case(
            "read-only region: fi_atomicmsg count 2",
            denied,
            () -> atomicmsg(new RmaIoc[] {new RmaIoc(0, 2, rk)}, FiDatatype.UINT64, FiOp.BXOR, 0)));
  }

  private void buffers(List<Case> c) {
    int inval = FiErrno.EINVAL;
    Arena gone = Arena.ofConfined();
    MemorySegment freed = gone.allocate(64, 16);
    gone.close();
    MemorySegment heap = MemorySegment.ofArray(new long[8]);
    c.add(
        new Case(
            "a result of 4 bytes",
            inval,
            () -> fetch(FiDatatype.UINT64, FiOp.SUM, r.zeroed(4), 0, 1)));
    c.add(
        new Case(
            "a result of 3 elements for 4",
            inval,
            () -> fetch(FiDatatype.UINT64, FiOp.SUM, result.asSlice(0, 24), 0, 4)));
    c.add(
        new Case(
            "a read-only result",
            inval,
            () -> fetch(FiDatatype.UINT64, FiOp.SUM, result.asReadOnly(), 0, 1)));
    c.add(new Case("a heap result", inval, () -> fetch(FiDatatype.UINT64, FiOp.SUM, heap, 0, 1)));
    c.add(new Case("a freed result", inval, () -> fetch(FiDatatype.UINT64, FiOp.SUM, freed, 0, 1)));
    c.add(new Case("no result", inval, () -> fetch(FiDatatype.UINT64, FiOp.SUM, null, 0, 1)));
    c.add(
        new Case(
            "an operand of 4 bytes",
            inval,
            () ->
                r.ep.fetchAtomic(
                    r.zeroed(4),
                    1,
                    null,
                    result,
                    null,
                    p,
                    0,
                    k,
                    FiDatatype.UINT64,
                    FiOp.SUM,
                    "x")));
    c.add(
        new Case(
            "no operand",
            inval,
            () -> r.ep.atomic(null, 1, null, p, 0, k, FiDatatype.UINT64, FiOp.SUM, "x")));
    c.add(
        new Case(
            "a compare value of 4 bytes",
            inval,
            () ->
                r.ep.compareAtomic(
                    one,
                    1,
                    null,
                    r.zeroed(4),
                    null,
                    result,
                    null,
                    p,
                    0,
                    k,
                    FiDatatype.UINT64,
                    FiOp.CSWAP,
                    "x")));
    c.add(
        new Case(
            "a CAS-loop result of 2 bytes",
            inval,
            () -> fetch(FiDatatype.INT32, FiOp.MIN, r.zeroed(2), 0, 1)));
    c.add(
        new Case(
            "a remote-lock result of 8 bytes",
            inval,
            () -> fetch(FiDatatype.DOUBLE_COMPLEX, FiOp.SUM, result.asSlice(0, 8), 0, 1)));
    c.add(
        new Case(
            "fi_fetch_atomicv, result iovs of 2 elements for 3",
            inval,
            () ->
                r.ep.fetchAtomicv(
                    new Ioc[] {new Ioc(ones, 3)},
                    null,
                    1,
                    new Ioc[] {new Ioc(result, 1), new Ioc(result.asSlice(64), 1)},
                    null,
                    2,
                    p,
                    0,
                    k,
                    FiDatatype.UINT64,
                    FiOp.SUM,
                    "x")));
    c.add(
        new Case(
            "fi_compare_atomicmsg, compare values of 1 element for 2",
            inval,
            () ->
                r.ep.compareAtomicmsg(
                    new AtomicMsg(
                        new Ioc[] {new Ioc(ones, 2)},
                        null,
                        p,
                        new RmaIoc[] {new RmaIoc(0, 2, k)},
                        FiDatatype.UINT64,
                        FiOp.CSWAP,
                        "x",
                        0),
                    new Ioc[] {new Ioc(one, 1)},
                    null,
                    1,
                    new Ioc[] {new Ioc(result, 2)},
                    null,
                    1,
                    0)));
  }

  private void destinations(List<Case> c) {
    int none = FiErrno.EADDRNOTAVAIL;
    for (long addr : new long[] {p + 7, -1, Long.MIN_VALUE}) {
      c.add(
          new Case(
              "fetch SUM UINT64 to fi_addr " + addr,
              none,
              () ->
                  r.ep.fetchAtomic(
                      one, 1, null, result, null, addr, 0, k, FiDatatype.UINT64, FiOp.SUM, "x")));
    }
    c.add(
        new Case(
            "count 4 to an unknown fi_addr",
            none,
            () ->
                r.ep.fetchAtomic(
                    ones, 4, null, result, null, 99, 0, k, FiDatatype.UINT64, FiOp.SUM, "x")));
    c.add(
        new Case(
            "fi_inject_atomic to an unknown fi_addr",
            none,
            () -> r.ep.injectAtomic(one, 1, p + 1, 0, k, FiDatatype.UINT64, FiOp.SUM)));
    c.add(
        new Case(
            "remote-lock cell to an unknown fi_addr",
            none,
            () ->
                r.ep.atomic(
                    ones, 1, null, p + 1, 16, k, FiDatatype.DOUBLE_COMPLEX, FiOp.SUM, "x")));
  }

  private void states(List<Case> c) {
    Endpoint idle = r.domain.openEndpoint();
    idle.bind(r.av);
    Endpoint noQueue = r.domain.openEndpoint();
    noQueue.bind(r.av);
    noQueue.enable();
    Endpoint closed = r.domain.openEndpoint();
    closed.bind(r.av);
    closed.enable();
    closed.close();
    c.add(
        new Case(
            "an endpoint not enabled",
            FiErrno.EOPBADSTATE,
            () ->
                idle.fetchAtomic(
                    one, 1, null, result, null, p, 0, k, FiDatatype.UINT64, FiOp.SUM, "x")));
    c.add(
        new Case(
            "a closed endpoint",
            FiErrno.EOPBADSTATE,
            () -> closed.atomic(one, 1, null, p, 0, k, FiDatatype.UINT64, FiOp.SUM, "x")));
    c.add(
        new Case(
            "no completion queue, count 1",
            FiErrno.ENOCQ,
            () ->
                noQueue.fetchAtomic(
                    one, 1, null, result, null, p, 0, k, FiDatatype.UINT64, FiOp.SUM, "x")));
    c.add(
        new Case(
            "no completion queue, count 4",
            FiErrno.ENOCQ,
            () -> noQueue.atomic(ones, 4, null, p, 0, k, FiDatatype.UINT64, FiOp.SUM, "x")));
    c.add(
        new Case(
            "no completion queue, CAS-loop cell",
            FiErrno.ENOCQ,
            () -> noQueue.atomic(one, 1, null, p, 0, k, FiDatatype.INT8, FiOp.SUM, "x")));
  }
}
