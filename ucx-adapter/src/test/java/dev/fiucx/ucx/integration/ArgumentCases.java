package dev.fiucx.ucx.integration;

import static dev.fiucx.ucx.integration.BadInputRig.of;

import dev.fiucx.AtomicMsg;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.Ioc;
import dev.fiucx.RmaIoc;
import dev.fiucx.ucx.integration.BadInputRig.Case;
import java.util.ArrayList;
import java.util.List;

/**
 * Bad arguments other than buffers and counts: null ops, datatypes and messages, flags no atomic
 * call takes, cells that do not exist, unknown peers and keys, addresses outside the region or
 * misaligned, and a region without the access the op needs. Each gets its own errno.
 */
final class ArgumentCases {
  private ArgumentCases() {}

  static List<Case> cases(BadInputRig r) {
    List<Case> c = new ArrayList<>();
    nulls(r, c);
    valid(r, c);
    flags(r, c);
    cells(r, c);
    peersAndKeys(r, c);
    addresses(r, c);
    access(r, c);
    return c;
  }

  private static int sum(BadInputRig r, FiDatatype dt, FiOp op, long addr, long count) {
    return r.ini.ep.atomic(r.result, count, null, r.peer, addr, r.key, dt, op, "x");
  }

  private static void nulls(BadInputRig r, List<Case> c) {
    long k = r.key;
    long p = r.peer;
    c.add(
        of(
            "fi_atomic null op",
            FiErrno.EINVAL,
            () -> r.ini.ep.atomic(r.one, 1, null, p, 0, k, FiDatatype.UINT64, null, "x")));
    c.add(
        of(
            "fi_atomic null datatype",
            FiErrno.EINVAL,
            () -> r.ini.ep.atomic(r.one, 1, null, p, 0, k, null, FiOp.SUM, "x")));
    c.add(
        of(
            "fi_atomic count 4 null op",
            FiErrno.EINVAL,
            () -> r.ini.ep.atomic(r.ones, 4, null, p, 0, k, FiDatatype.UINT64, null, "x")));
    c.add(
        of(
            "fi_inject_atomic null datatype",
            FiErrno.EINVAL,
            () -> r.ini.ep.injectAtomic(r.one, 1, p, 0, k, null, FiOp.SUM)));
    c.add(
        of(
            "fi_fetch_atomic null op",
            FiErrno.EINVAL,
            () ->
                r.ini.ep.fetchAtomic(
                    r.one, 1, null, r.result, null, p, 0, k, FiDatatype.UINT64, null, "x")));
    c.add(
        of(
            "fi_compare_atomic null datatype",
            FiErrno.EINVAL,
            () ->
                r.ini.ep.compareAtomic(
                    r.one, 1, null, r.one, null, r.result, null, p, 0, k, null, FiOp.CSWAP, "x")));
    c.add(
        of(
            "fi_atomicv null op",
            FiErrno.EINVAL,
            () ->
                r.ini.ep.atomicv(
                    new Ioc[] {new Ioc(r.one, 1)},
                    null,
                    1,
                    p,
                    0,
                    k,
                    FiDatatype.UINT64,
                    null,
                    "x")));
    c.add(of("fi_atomicmsg null message", FiErrno.EINVAL, () -> r.ini.ep.atomicmsg(null, 0)));
    c.add(
        of(
            "fi_fetch_atomicmsg null message",
            FiErrno.EINVAL,
            () -> r.ini.ep.fetchAtomicmsg(null, new Ioc[] {new Ioc(r.result, 1)}, null, 1, 0)));
    c.add(
        of(
            "fi_compare_atomicmsg null message",
            FiErrno.EINVAL,
            () ->
                r.ini.ep.compareAtomicmsg(
                    null,
                    new Ioc[] {new Ioc(r.one, 1)},
                    null,
                    1,
                    new Ioc[] {new Ioc(r.result, 1)},
                    null,
                    1,
                    0)));
    c.add(
        of(
            "fi_atomicmsg null op",
            FiErrno.EINVAL,
            () -> r.ini.ep.atomicmsg(message(r, 0, r.key, FiDatatype.UINT64, null), 0)));
    c.add(
        of(
            "fi_atomicmsg null datatype",
            FiErrno.EINVAL,
            () -> r.ini.ep.atomicmsg(message(r, 0, r.key, null, FiOp.SUM), 0)));
  }

  /** The valid calls return a count or an errno; a null datatype or op is {@code -FI_EINVAL}. */
  static void valid(BadInputRig r, List<Case> c) {
    c.add(
        of(
            "fi_atomicvalid of a null datatype",
            FiErrno.EINVAL,
            () -> (int) r.ini.ep.atomicValid(null, FiOp.SUM)));
    c.add(
        of(
            "fi_fetch_atomicvalid of a null op",
            FiErrno.EINVAL,
            () -> (int) r.ini.ep.fetchAtomicValid(FiDatatype.UINT64, null)));
    c.add(
        of(
            "fi_compare_atomicvalid of nulls",
            FiErrno.EINVAL,
            () -> (int) r.ini.ep.compareAtomicValid(null, null)));
    c.add(
        of(
            "fi_atomicvalid of a cell that does not exist",
            FiErrno.EOPNOTSUPP,
            () -> (int) r.ini.ep.atomicValid(FiDatatype.FLOAT, FiOp.BXOR)));
  }

  private static AtomicMsg message(BadInputRig r, long addr, long key, FiDatatype dt, FiOp op) {
    return new AtomicMsg(
        new Ioc[] {new Ioc(r.one, 1)},
        null,
        r.peer,
        new RmaIoc[] {new RmaIoc(addr, 1, key)},
        dt,
        op,
        "x",
        0);
  }

  private static void flags(BadInputRig r, List<Case> c) {
    long[] bad = {FiFlags.TAGGED, 1L << 62, FiFlags.READ, FiFlags.REMOTE_WRITE, -1L};
    for (long f : bad) {
      c.add(
          of(
              "fi_atomicmsg flags 0x" + Long.toHexString(f),
              FiErrno.EBADFLAGS,
              () -> r.ini.ep.atomicmsg(message(r, 0, r.key, FiDatatype.UINT64, FiOp.SUM), f)));
    }
    c.add(
        of(
            "fi_fetch_atomicmsg flags FI_TAGGED",
            FiErrno.EBADFLAGS,
            () ->
                r.ini.ep.fetchAtomicmsg(
                    message(r, 0, r.key, FiDatatype.UINT64, FiOp.SUM),
                    new Ioc[] {new Ioc(r.result, 1)},
                    null,
                    1,
                    FiFlags.TAGGED)));
    c.add(
        of(
            "fi_compare_atomicmsg flags FI_TAGGED",
            FiErrno.EBADFLAGS,
            () ->
                r.ini.ep.compareAtomicmsg(
                    message(r, 0, r.key, FiDatatype.UINT64, FiOp.CSWAP),
                    new Ioc[] {new Ioc(r.one, 1)},
                    null,
                    1,
                    new Ioc[] {new Ioc(r.result, 1)},
                    null,
                    1,
                    FiFlags.TAGGED)));
  }

  private static void cells(BadInputRig r, List<Case> c) {
    long k = r.key;
    long p = r.peer;
    Object[][] base = {
      {FiDatatype.FLOAT, FiOp.BAND},
      {FiDatatype.UINT64, FiOp.CSWAP},
      {FiDatatype.UINT64, FiOp.ATOMIC_READ},
      {FiDatatype.DOUBLE_COMPLEX, FiOp.MIN},
      {FiDatatype.INT32, FiOp.MSWAP}
    };
    for (Object[] cell : base) {
      FiDatatype dt = (FiDatatype) cell[0];
      FiOp op = (FiOp) cell[1];
      c.add(
          of(
              "fi_atomic " + op + " " + dt + " (no such cell)",
              FiErrno.EOPNOTSUPP,
              () -> r.ini.ep.atomic(r.ones, 1, null, p, 0, k, dt, op, "x")));
    }
    c.add(
        of(
            "fi_atomic count 4 BOR DOUBLE (no such cell)",
            FiErrno.EOPNOTSUPP,
            () -> r.ini.ep.atomic(r.ones, 4, null, p, 0, k, FiDatatype.DOUBLE, FiOp.BOR, "x")));
    c.add(
        of(
            "fi_inject_atomic CSWAP (no such cell)",
            FiErrno.EOPNOTSUPP,
            () -> r.ini.ep.injectAtomic(r.one, 1, p, 0, k, FiDatatype.UINT64, FiOp.CSWAP)));
    c.add(
        of(
            "fi_fetch_atomic CSWAP UINT64 (no such cell)",
            FiErrno.EOPNOTSUPP,
            () ->
                r.ini.ep.fetchAtomic(
                    r.one, 1, null, r.result, null, p, 0, k, FiDatatype.UINT64, FiOp.CSWAP, "x")));
    c.add(
        of(
            "fi_compare_atomic SUM UINT64 (no such cell)",
            FiErrno.EOPNOTSUPP,
            () ->
                r.ini.ep.compareAtomic(
                    r.one,
                    1,
                    null,
                    r.one,
                    null,
                    r.result,
                    null,
                    p,
                    0,
                    k,
                    FiDatatype.UINT64,
                    FiOp.SUM,
                    "x")));
    c.add(
        of(
            "fi_compare_atomic MSWAP FLOAT (no such cell)",
            FiErrno.EOPNOTSUPP,
            () ->
                r.ini.ep.compareAtomic(
                    r.one,
                    1,
                    null,
                    r.one,
                    null,
                    r.result,
                    null,
                    p,
                    0,
                    k,
                    FiDatatype.FLOAT,
                    FiOp.MSWAP,
                    "x")));
  }

  private static void peersAndKeys(BadInputRig r, List<Case> c) {
    long k = r.key;
    for (long fiAddr : new long[] {r.peer + 7, -1, Long.MAX_VALUE, Long.MIN_VALUE, 1L << 32}) {
      c.add(
          of(
              "unknown fi_addr " + fiAddr,
              FiErrno.EADDRNOTAVAIL,
              () ->
                  r.ini.ep.atomic(r.one, 1, null, fiAddr, 0, k, FiDatatype.UINT64, FiOp.SUM, "x")));
    }
    c.add(
        of(
            "unknown fi_addr, count 4",
            FiErrno.EADDRNOTAVAIL,
            () ->
                r.ini.ep.fetchAtomic(
                    r.ones, 4, null, r.result, null, 99, 0, k, FiDatatype.UINT64, FiOp.SUM, "x")));
    long[] keys = {k + 1, 0, ~k, -1};
    for (long bad : keys) {
      c.add(
          of(
              "unknown key 0x" + Long.toHexString(bad),
              FiErrno.EKEYREJECTED,
              () ->
                  r.ini.ep.atomic(
                      r.one, 1, null, r.peer, 0, bad, FiDatatype.UINT64, FiOp.SUM, "x")));
    }
    c.add(
        of(
            "unknown key, cas cell",
            FiErrno.EKEYREJECTED,
            () ->
                r.ini.ep.atomic(r.one, 1, null, r.peer, 0, k + 3, FiDatatype.INT8, FiOp.MAX, "x")));
    c.add(
        of(
            "unknown key, lock cell",
            FiErrno.EKEYREJECTED,
            () ->
                r.ini.ep.fetchAtomic(
                    r.ones,
                    1,
                    null,
                    r.result,
                    null,
                    r.peer,
                    16,
                    k ^ 0x5A5A,
                    FiDatatype.LONG_DOUBLE,
                    FiOp.SUM,
                    "x")));
    c.add(
        of(
            "the read-only target's key at the other peer",
            FiErrno.EKEYREJECTED,
            () ->
                r.ini.ep.atomic(
                    r.one, 1, null, r.peer, 0, r.readOnlyKey, FiDatatype.UINT64, FiOp.SUM, "x")));
    c.add(
        of(
            "fi_atomicmsg second rma iov's key unknown",
            FiErrno.EKEYREJECTED,
            () ->
                r.ini.ep.atomicmsg(
                    new AtomicMsg(
                        new Ioc[] {new Ioc(r.ones, 2)},
                        null,
                        r.peer,
                        new RmaIoc[] {new RmaIoc(0, 1, k), new RmaIoc(8, 1, k + 1)},
                        FiDatatype.UINT64,
                        FiOp.SUM,
                        "x",
                        0),
                    0)));
  }

  private static void addresses(BadInputRig r, List<Case> c) {
    int region = BadInputRig.REGION;
    long[] outside = {region, 1L << 40, -8, Long.MIN_VALUE, Long.MAX_VALUE - 7, region + 8};
    for (long addr : outside) {
      c.add(
          of(
              "UINT64 at " + addr,
              FiErrno.EFAULT,
              () -> sum(r, FiDatatype.UINT64, FiOp.SUM, addr, 1)));
    }
    c.add(
        of(
            "UINT64 count 2 straddling the end",
            FiErrno.EFAULT,
            () -> sum(r, FiDatatype.UINT64, FiOp.SUM, region - 8, 2)));
    c.add(
        of(
            "UINT64 count 512 from offset 8",
            FiErrno.EFAULT,
            () -> sum(r, FiDatatype.UINT64, FiOp.SUM, 8, 512)));
    c.add(
        of(
            "INT8 at the end (cas)",
            FiErrno.EFAULT,
            () -> sum(r, FiDatatype.INT8, FiOp.SUM, region, 1)));
    c.add(
        of(
            "LONG_DOUBLE_COMPLEX count 2 straddling the end (lock)",
            FiErrno.EFAULT,
            () -> sum(r, FiDatatype.LONG_DOUBLE_COMPLEX, FiOp.PROD, region - 32, 2)));
    c.add(
        of(
            "fi_atomicmsg second rma iov outside",
            FiErrno.EFAULT,
            () ->
                r.ini.ep.atomicmsg(
                    new AtomicMsg(
                        new Ioc[] {new Ioc(r.ones, 2)},
                        null,
                        r.peer,
                        new RmaIoc[] {new RmaIoc(0, 1, r.key), new RmaIoc(region, 1, r.key)},
                        FiDatatype.UINT64,
                        FiOp.SUM,
                        "x",
                        0),
                    0)));
    c.add(
        of(
            "fi_inject_atomic outside",
            FiErrno.EFAULT,
            () ->
                r.ini.ep.injectAtomic(r.one, 1, r.peer, -16, r.key, FiDatatype.UINT64, FiOp.SUM)));
    Object[][] misaligned = {
      {FiDatatype.UINT64, 4L},
      {FiDatatype.INT32, 2L},
      {FiDatatype.INT16, 1L},
      {FiDatatype.DOUBLE, 6L},
      {FiDatatype.INT64, 3L},
      {FiDatatype.DOUBLE_COMPLEX, 4L},
      {FiDatatype.LONG_DOUBLE, 8L},
      {FiDatatype.FLOAT_COMPLEX, 2L}
    };
    for (Object[] m : misaligned) {
      FiDatatype dt = (FiDatatype) m[0];
      long addr = (Long) m[1];
      c.add(
          of(
              dt + " at " + addr + " (misaligned)",
              FiErrno.EINVAL,
              () -> sum(r, dt, FiOp.SUM, addr, 1)));
    }
  }

  private static void access(BadInputRig r, List<Case> c) {
    long k = r.readOnlyKey;
    long p = r.readOnlyPeer;
    c.add(
        of(
            "read-only region: SUM",
            FiErrno.EACCES,
            () -> r.ini.ep.atomic(r.one, 1, null, p, 0, k, FiDatatype.UINT64, FiOp.SUM, "x")));
    c.add(
        of(
            "read-only region: fetch SUM",
            FiErrno.EACCES,
            () ->
                r.ini.ep.fetchAtomic(
                    r.one, 1, null, r.result, null, p, 0, k, FiDatatype.UINT64, FiOp.SUM, "x")));
    c.add(
        of(
            "read-only region: fetch ATOMIC_WRITE",
            FiErrno.EACCES,
            () ->
                r.ini.ep.fetchAtomic(
                    r.one,
                    1,
                    null,
                    r.result,
                    null,
                    p,
                    8,
                    k,
                    FiDatatype.UINT64,
                    FiOp.ATOMIC_WRITE,
                    "x")));
    c.add(
        of(
            "read-only region: CSWAP",
            FiErrno.EACCES,
            () ->
                r.ini.ep.compareAtomic(
                    r.one,
                    1,
                    null,
                    r.one,
                    null,
                    r.result,
                    null,
                    p,
                    0,
                    k,
                    FiDatatype.UINT64,
                    FiOp.CSWAP,
                    "x")));
    c.add(
        of(
            "read-only region: fetch MAX INT8 (cas)",
            FiErrno.EACCES,
            () ->
                r.ini.ep.fetchAtomic(
                    r.one, 1, null, r.result, null, p, 0, k, FiDatatype.INT8, FiOp.MAX, "x")));
    c.add(
        of(
            "read-only region: MIN INT16 (cas)",
            FiErrno.EACCES,
            () -> r.ini.ep.atomic(r.one, 1, null, p, 2, k, FiDatatype.INT16, FiOp.MIN, "x")));
    c.add(
        of(
            "read-only region: SUM DOUBLE_COMPLEX (lock)",
            FiErrno.EACCES,
            () ->
                r.ini.ep.atomic(
                    r.ones, 1, null, p, 16, k, FiDatatype.DOUBLE_COMPLEX, FiOp.SUM, "x")));
    c.add(
        of(
            "read-only region: fi_atomicmsg count 2",
            FiErrno.EACCES,
            () ->
                r.ini.ep.atomicmsg(
                    new AtomicMsg(
                        new Ioc[] {new Ioc(r.ones, 2)},
                        null,
                        p,
                        new RmaIoc[] {new RmaIoc(0, 2, k)},
                        FiDatatype.UINT64,
                        FiOp.BXOR,
                        "x",
                        0),
                    0)));
  }
}
