package dev.fiucx.ucx.integration;

import static dev.fiucx.ucx.integration.BadInputRig.of;

import dev.fiucx.AtomicMsg;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiOp;
import dev.fiucx.Ioc;
import dev.fiucx.RmaIoc;
import dev.fiucx.ucx.integration.BadInputRig.Case;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Bad counts: zero, negative, beyond the cell's count, iov counts that do not match their arrays,
 * and element counts whose sum overflows a long (which once wrapped to a small total and returned 0
 * with nothing posted). A count that is too large is {@code -FI_EMSGSIZE}, any other {@code
 * -FI_EINVAL}; nothing is posted.
 */
final class CountCases {
  private CountCases() {}

  static List<Case> cases(BadInputRig r) {
    long k = r.key;
    long p = r.peer;
    MemorySegment big = r.arena.allocate(513 * 8, 16);
    List<Case> c = new ArrayList<>();
    for (long n : new long[] {0, -1, Long.MIN_VALUE}) {
      c.add(
          of(
              "fi_atomic count " + n,
              FiErrno.EINVAL,
              () -> r.ini.ep.atomic(r.ones, n, null, p, 0, k, FiDatatype.UINT64, FiOp.SUM, "x")));
      c.add(
          of(
              "fi_fetch_atomic count " + n,
              FiErrno.EINVAL,
              () ->
                  r.ini.ep.fetchAtomic(
                      r.ones, n, null, r.result, null, p, 0, k, FiDatatype.UINT64, FiOp.SUM, "x")));
    }
    for (long n : new long[] {513, Long.MAX_VALUE, 1L << 40}) {
      c.add(
          of(
              "fi_atomic count " + n,
              FiErrno.EMSGSIZE,
              () -> r.ini.ep.atomic(big, n, null, p, 0, k, FiDatatype.UINT64, FiOp.SUM, "x")));
      c.add(
          of(
              "fi_compare_atomic count " + n,
              FiErrno.EMSGSIZE,
              () ->
                  r.ini.ep.compareAtomic(
                      big,
                      n,
                      null,
                      big,
                      null,
                      big,
                      null,
                      p,
                      0,
                      k,
                      FiDatatype.UINT64,
                      FiOp.CSWAP,
                      "x")));
    }
    c.add(
        of(
            "fi_inject_atomic count 0",
            FiErrno.EINVAL,
            () -> r.ini.ep.injectAtomic(r.ones, 0, p, 0, k, FiDatatype.UINT64, FiOp.SUM)));
    c.add(
        of(
            "fi_inject_atomic count 513",
            FiErrno.EMSGSIZE,
            () -> r.ini.ep.injectAtomic(big, 513, p, 0, k, FiDatatype.UINT64, FiOp.SUM)));
    c.add(
        of(
            "fi_atomic INT8 count 4097 (cas)",
            FiErrno.EMSGSIZE,
            () -> r.ini.ep.atomic(big, 4097, null, p, 0, k, FiDatatype.INT8, FiOp.SUM, "x")));
    c.add(
        of(
            "fi_atomic DOUBLE_COMPLEX count 257 (lock)",
            FiErrno.EMSGSIZE,
            () ->
                r.ini.ep.atomic(
                    big, 257, null, p, 0, k, FiDatatype.DOUBLE_COMPLEX, FiOp.SUM, "x")));

    // fi_atomicv: the iov count against the array and the limit, and the elements' sum
    Ioc[] two = {new Ioc(r.ones, 2), new Ioc(r.ones, 2)};
    for (int n : new int[] {0, -1, 3, 17}) {
      c.add(
          of("fi_atomicv iov count " + n + " of 2 iovs", FiErrno.EINVAL, () -> atomicv(r, two, n)));
    }
    Ioc[] seventeen = new Ioc[17];
    java.util.Arrays.fill(seventeen, new Ioc(r.one, 1));
    c.add(of("fi_atomicv 17 iovs", FiErrno.EINVAL, () -> atomicv(r, seventeen, 17)));
    c.add(of("fi_atomicv null iov array", FiErrno.EINVAL, () -> atomicv(r, null, 1)));
    c.add(
        of(
            "fi_atomicv null iov entry",
            FiErrno.EINVAL,
            () -> atomicv(r, new Ioc[] {new Ioc(r.ones, 1), null}, 2)));
    c.add(
        of(
            "fi_atomicv negative element count",
            FiErrno.EINVAL,
            () -> atomicv(r, new Ioc[] {new Ioc(r.ones, 2), new Ioc(r.ones, -1)}, 2)));
    c.add(
        of(
            "fi_atomicv element counts overflowing a long",
            FiErrno.EMSGSIZE,
            () ->
                atomicv(
                    r,
                    new Ioc[] {
                      new Ioc(r.ones, Long.MAX_VALUE),
                      new Ioc(r.ones, Long.MAX_VALUE),
                      new Ioc(r.ones, 2)
                    },
                    3)));
    c.add(
        of(
            "fi_atomicv element count beyond its buffer",
            FiErrno.EINVAL,
            () -> atomicv(r, new Ioc[] {new Ioc(r.ones, 5)}, 1)));

    // fi_atomicmsg: the rma iovs
    long[][] overflowing = {
      {Long.MAX_VALUE, Long.MAX_VALUE, 2},
      {1L << 62, 1L << 62},
      {Long.MAX_VALUE, 1},
      {1, Long.MAX_VALUE},
      {-1L >>> 1, -1L >>> 1, -1L >>> 1, -1L >>> 1}
    };
    for (long[] counts : overflowing) {
      String name = java.util.Arrays.toString(counts);
      c.add(
          of(
              "fi_atomicmsg rma counts " + name,
              FiErrno.EMSGSIZE,
              () -> r.ini.ep.atomicmsg(msg(r, new Ioc[] {new Ioc(r.one, 1)}, rma(r, counts)), 0)));
    }
    c.add(
        of(
            "fi_fetch_atomicmsg rma counts overflowing a long",
            FiErrno.EMSGSIZE,
            () ->
                r.ini.ep.fetchAtomicmsg(
                    msg(
                        r,
                        new Ioc[] {new Ioc(r.one, 1)},
                        rma(r, new long[] {Long.MAX_VALUE, Long.MAX_VALUE, 2})),
                    new Ioc[] {new Ioc(r.result, 1)},
                    null,
                    1,
                    0)));
    c.add(
        of(
            "fi_compare_atomicmsg rma counts overflowing a long",
            FiErrno.EMSGSIZE,
            () ->
                r.ini.ep.compareAtomicmsg(
                    new AtomicMsg(
                        new Ioc[] {new Ioc(r.one, 1)},
                        null,
                        p,
                        rma(r, new long[] {Long.MAX_VALUE, Long.MAX_VALUE, 2}),
                        FiDatatype.UINT64,
                        FiOp.CSWAP,
                        "x",
                        0),
                    new Ioc[] {new Ioc(r.one, 1)},
                    null,
                    1,
                    new Ioc[] {new Ioc(r.result, 1)},
                    null,
                    1,
                    0)));
    c.add(
        of(
            "fi_atomicmsg negative rma count",
            FiErrno.EINVAL,
            () ->
                r.ini.ep.atomicmsg(
                    msg(r, new Ioc[] {new Ioc(r.one, 1)}, rma(r, new long[] {2, -1})), 0)));
    c.add(
        of(
            "fi_atomicmsg rma count 0",
            FiErrno.EINVAL,
            () ->
                r.ini.ep.atomicmsg(
                    msg(r, new Ioc[] {new Ioc(r.one, 1)}, rma(r, new long[] {0})), 0)));
    c.add(
        of(
            "fi_atomicmsg no rma iovs",
            FiErrno.EINVAL,
            () -> r.ini.ep.atomicmsg(msg(r, new Ioc[] {new Ioc(r.one, 1)}, new RmaIoc[0]), 0)));
    c.add(
        of(
            "fi_atomicmsg null rma iovs",
            FiErrno.EINVAL,
            () -> r.ini.ep.atomicmsg(msg(r, new Ioc[] {new Ioc(r.one, 1)}, null), 0)));
    c.add(
        of(
            "fi_atomicmsg null rma iov entry",
            FiErrno.EINVAL,
            () ->
                r.ini.ep.atomicmsg(
                    msg(r, new Ioc[] {new Ioc(r.one, 1)}, new RmaIoc[] {new RmaIoc(0, 1, k), null}),
                    0)));
    c.add(
        of(
            "fi_atomicmsg 17 rma iovs",
            FiErrno.EINVAL,
            () ->
                r.ini.ep.atomicmsg(
                    msg(r, new Ioc[] {new Ioc(r.one, 1)}, rma(r, new long[17])), 0)));
    c.add(
        of(
            "fi_atomicmsg 2 local elements for 3 remote",
            FiErrno.EINVAL,
            () ->
                r.ini.ep.atomicmsg(
                    msg(r, new Ioc[] {new Ioc(r.ones, 2)}, rma(r, new long[] {1, 2})), 0)));
    c.add(
        of(
            "fi_atomicmsg null local iovs",
            FiErrno.EINVAL,
            () -> r.ini.ep.atomicmsg(msg(r, null, rma(r, new long[] {1})), 0)));
    c.add(
        of(
            "fi_atomicmsg null local iov entry",
            FiErrno.EINVAL,
            () -> r.ini.ep.atomicmsg(msg(r, new Ioc[] {null}, rma(r, new long[] {1})), 0)));

    // fi_fetch_atomicv and fi_compare_atomicv: the other sides' counts
    for (int n : new int[] {0, -1, 3}) {
      c.add(
          of(
              "fi_fetch_atomicv result count " + n + " of 2 iovs",
              FiErrno.EINVAL,
              () ->
                  r.ini.ep.fetchAtomicv(
                      new Ioc[] {new Ioc(r.ones, 2)},
                      null,
                      1,
                      new Ioc[] {new Ioc(r.result, 1), new Ioc(r.result, 1)},
                      null,
                      n,
                      p,
                      0,
                      k,
                      FiDatatype.UINT64,
                      FiOp.SUM,
                      "x")));
    }
    c.add(
        of(
            "fi_fetch_atomicv 1 result element for 2",
            FiErrno.EINVAL,
            () ->
                r.ini.ep.fetchAtomicv(
                    new Ioc[] {new Ioc(r.ones, 2)},
                    null,
                    1,
                    new Ioc[] {new Ioc(r.result, 1)},
                    null,
                    1,
                    p,
                    0,
                    k,
                    FiDatatype.UINT64,
                    FiOp.SUM,
                    "x")));
    c.add(
        of(
            "fi_fetch_atomicv null result iovs",
            FiErrno.EINVAL,
            () ->
                r.ini.ep.fetchAtomicv(
                    new Ioc[] {new Ioc(r.ones, 2)},
                    null,
                    1,
                    null,
                    null,
                    1,
                    p,
                    0,
                    k,
                    FiDatatype.UINT64,
                    FiOp.SUM,
                    "x")));
    for (int n : new int[] {0, 2}) {
      c.add(
          of(
              "fi_compare_atomicv compare count " + n + " of 1 iov",
              FiErrno.EINVAL,
              () ->
                  r.ini.ep.compareAtomicv(
                      new Ioc[] {new Ioc(r.one, 1)},
                      null,
                      1,
                      new Ioc[] {new Ioc(r.one, 1)},
                      null,
                      n,
                      new Ioc[] {new Ioc(r.result, 1)},
                      null,
                      1,
                      p,
                      0,
                      k,
                      FiDatatype.UINT64,
                      FiOp.CSWAP,
                      "x")));
    }
    c.add(
        of(
            "fi_compare_atomicv 2 compare elements for 1",
            FiErrno.EINVAL,
            () ->
                r.ini.ep.compareAtomicv(
                    new Ioc[] {new Ioc(r.one, 1)},
                    null,
                    1,
                    new Ioc[] {new Ioc(r.ones, 2)},
                    null,
                    1,
                    new Ioc[] {new Ioc(r.result, 1)},
                    null,
                    1,
                    p,
                    0,
                    k,
                    FiDatatype.UINT64,
                    FiOp.CSWAP,
                    "x")));
    return c;
  }

  private static int atomicv(BadInputRig r, Ioc[] iov, int count) {
    return r.ini.ep.atomicv(iov, null, count, r.peer, 0, r.key, FiDatatype.UINT64, FiOp.SUM, "x");
  }

  static AtomicMsg msg(BadInputRig r, Ioc[] iov, RmaIoc[] rma) {
    return new AtomicMsg(iov, null, r.peer, rma, FiDatatype.UINT64, FiOp.SUM, "x", 0);
  }

  /** Consecutive rma iovs from offset 0 with these element counts. */
  static RmaIoc[] rma(BadInputRig r, long[] counts) {
    RmaIoc[] rma = new RmaIoc[counts.length];
    for (int i = 0; i < counts.length; i++) {
      rma[i] = new RmaIoc(8L * i, counts[i], r.key);
    }
    return rma;
  }
}
