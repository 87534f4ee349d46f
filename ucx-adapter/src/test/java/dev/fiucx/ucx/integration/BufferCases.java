package dev.fiucx.ucx.integration;

import static dev.fiucx.ucx.integration.BadInputRig.of;

import dev.fiucx.AtomicMsg;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiOp;
import dev.fiucx.Ioc;
import dev.fiucx.RmaIoc;
import dev.fiucx.ucx.integration.BadInputRig.Case;
import dev.fiucx.ucx.integration.BadInputRig.Kind;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Bad local buffers: every kind (null, short, freed, another thread's confined arena, and for
 * results a read-only view or heap memory) in every place a call takes one (operand, compare value,
 * result), on the count-1 path of each mechanism, the general path, vectors and messages. Each is
 * {@code -FI_EINVAL} before anything is posted.
 */
final class BufferCases {
  private BufferCases() {}

  /** A call that takes the bad buffer in one place and good ones elsewhere. */
  private record Place(String name, long bytes, Function<MemorySegment, Integer> call) {}

  static List<Case> cases(BadInputRig r) {
    List<Case> cases = new ArrayList<>();
    Kind[] readKinds = {Kind.NULL, Kind.SHORT, Kind.FREED, Kind.FOREIGN};
    Kind[] resultKinds = Kind.values();
    for (Place p : operandPlaces(r)) {
      for (Kind k : readKinds) {
        cases.add(
            of(
                "operand " + k + " in " + p.name(),
                FiErrno.EINVAL,
                () -> p.call().apply(r.buffer(k, p.bytes()))));
      }
    }
    for (Place p : resultPlaces(r)) {
      for (Kind k : resultKinds) {
        cases.add(
            of(
                "result " + k + " in " + p.name(),
                FiErrno.EINVAL,
                () -> p.call().apply(r.buffer(k, p.bytes()))));
      }
    }
    for (Place p : comparePlaces(r)) {
      for (Kind k : readKinds) {
        cases.add(
            of(
                "compare " + k + " in " + p.name(),
                FiErrno.EINVAL,
                () -> p.call().apply(r.buffer(k, p.bytes()))));
      }
    }
    return cases;
  }

  private static List<Place> operandPlaces(BadInputRig r) {
    long k = r.key;
    long p = r.peer;
    return List.of(
        new Place(
            "fi_atomic SUM UINT64 (native)",
            8,
            b -> r.ini.ep.atomic(b, 1, null, p, 0, k, FiDatatype.UINT64, FiOp.SUM, "x")),
        new Place(
            "fi_atomic MIN INT64 (cas)",
            8,
            b -> r.ini.ep.atomic(b, 1, null, p, 8, k, FiDatatype.INT64, FiOp.MIN, "x")),
        new Place(
            "fi_atomic SUM DOUBLE_COMPLEX (lock)",
            16,
            b -> r.ini.ep.atomic(b, 1, null, p, 16, k, FiDatatype.DOUBLE_COMPLEX, FiOp.SUM, "x")),
        new Place(
            "fi_atomic count 4",
            32,
            b -> r.ini.ep.atomic(b, 4, null, p, 0, k, FiDatatype.UINT64, FiOp.SUM, "x")),
        new Place(
            "fi_atomicv second iov",
            16,
            b ->
                r.ini.ep.atomicv(
                    new Ioc[] {new Ioc(r.ones, 2), new Ioc(b, 2)},
                    null,
                    2,
                    p,
                    0,
                    k,
                    FiDatatype.UINT64,
                    FiOp.SUM,
                    "x")),
        new Place(
            "fi_inject_atomic",
            8,
            b -> r.ini.ep.injectAtomic(b, 1, p, 0, k, FiDatatype.UINT64, FiOp.SUM)),
        new Place(
            "fi_inject_atomic count 4",
            32,
            b -> r.ini.ep.injectAtomic(b, 4, p, 0, k, FiDatatype.UINT64, FiOp.BOR)),
        new Place(
            "fi_atomicmsg",
            8,
            b ->
                r.ini.ep.atomicmsg(
                    new AtomicMsg(
                        new Ioc[] {new Ioc(b, 1)},
                        null,
                        p,
                        new RmaIoc[] {new RmaIoc(0, 1, k)},
                        FiDatatype.UINT64,
                        FiOp.SUM,
                        "x",
                        0),
                    0)),
        new Place(
            "fi_fetch_atomic",
            8,
            b ->
                r.ini.ep.fetchAtomic(
                    b, 1, null, r.result, null, p, 0, k, FiDatatype.UINT64, FiOp.SUM, "x")),
        new Place(
            "fi_compare_atomic (swap value)",
            8,
            b ->
                r.ini.ep.compareAtomic(
                    b,
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
  }

  private static List<Place> resultPlaces(BadInputRig r) {
    long k = r.key;
    long p = r.peer;
    return List.of(
        new Place(
            "fi_fetch_atomic SUM UINT64 (native)",
            8,
            b ->
                r.ini.ep.fetchAtomic(
                    r.one, 1, null, b, null, p, 0, k, FiDatatype.UINT64, FiOp.SUM, "x")),
        new Place(
            "fi_fetch_atomic MIN INT64 (cas)",
            8,
            b ->
                r.ini.ep.fetchAtomic(
                    r.one, 1, null, b, null, p, 8, k, FiDatatype.INT64, FiOp.MIN, "x")),
        new Place(
            "fi_fetch_atomic SUM DOUBLE_COMPLEX (lock)",
            16,
            b ->
                r.ini.ep.fetchAtomic(
                    r.one, 1, null, b, null, p, 16, k, FiDatatype.DOUBLE_COMPLEX, FiOp.SUM, "x")),
        new Place(
            "fi_fetch_atomic count 4",
            32,
            b ->
                r.ini.ep.fetchAtomic(
                    r.ones, 4, null, b, null, p, 0, k, FiDatatype.UINT64, FiOp.SUM, "x")),
        new Place(
            "fi_fetch_atomic ATOMIC_READ",
            8,
            b ->
                r.ini.ep.fetchAtomic(
                    null, 1, null, b, null, p, 0, k, FiDatatype.UINT64, FiOp.ATOMIC_READ, "x")),
        new Place(
            "fi_fetch_atomicv second result iov",
            8,
            b ->
                r.ini.ep.fetchAtomicv(
                    new Ioc[] {new Ioc(r.ones, 2)},
                    null,
                    1,
                    new Ioc[] {new Ioc(r.result, 1), new Ioc(b, 1)},
                    null,
                    2,
                    p,
                    0,
                    k,
                    FiDatatype.UINT64,
                    FiOp.SUM,
                    "x")),
        new Place(
            "fi_fetch_atomicmsg",
            8,
            b ->
                r.ini.ep.fetchAtomicmsg(
                    new AtomicMsg(
                        new Ioc[] {new Ioc(r.one, 1)},
                        null,
                        p,
                        new RmaIoc[] {new RmaIoc(0, 1, k)},
                        FiDatatype.UINT64,
                        FiOp.SUM,
                        "x",
                        0),
                    new Ioc[] {new Ioc(b, 1)},
                    null,
                    1,
                    0)),
        new Place(
            "fi_compare_atomic CSWAP UINT64 (native)",
            8,
            b ->
                r.ini.ep.compareAtomic(
                    r.one,
                    1,
                    null,
                    r.one,
                    null,
                    b,
                    null,
                    p,
                    0,
                    k,
                    FiDatatype.UINT64,
                    FiOp.CSWAP,
                    "x")),
        new Place(
            "fi_compare_atomic CSWAP_GT INT64 (cas)",
            8,
            b ->
                r.ini.ep.compareAtomic(
                    r.one,
                    1,
                    null,
                    r.one,
                    null,
                    b,
                    null,
                    p,
                    8,
                    k,
                    FiDatatype.INT64,
                    FiOp.CSWAP_GT,
                    "x")),
        new Place(
            "fi_compare_atomicv result iov",
            8,
            b ->
                r.ini.ep.compareAtomicv(
                    new Ioc[] {new Ioc(r.one, 1)},
                    null,
                    1,
                    new Ioc[] {new Ioc(r.one, 1)},
                    null,
                    1,
                    new Ioc[] {new Ioc(b, 1)},
                    null,
                    1,
                    p,
                    0,
                    k,
                    FiDatatype.UINT64,
                    FiOp.CSWAP,
                    "x")));
  }

  private static List<Place> comparePlaces(BadInputRig r) {
    long k = r.key;
    long p = r.peer;
    return List.of(
        new Place(
            "fi_compare_atomic CSWAP UINT64 (native)",
            8,
            b ->
                r.ini.ep.compareAtomic(
                    r.one,
                    1,
                    null,
                    b,
                    null,
                    r.result,
                    null,
                    p,
                    0,
                    k,
                    FiDatatype.UINT64,
                    FiOp.CSWAP,
                    "x")),
        new Place(
            "fi_compare_atomic CSWAP_LE INT64 (cas)",
            8,
            b ->
                r.ini.ep.compareAtomic(
                    r.one,
                    1,
                    null,
                    b,
                    null,
                    r.result,
                    null,
                    p,
                    8,
                    k,
                    FiDatatype.INT64,
                    FiOp.CSWAP_LE,
                    "x")),
        new Place(
            "fi_compare_atomic CSWAP DOUBLE_COMPLEX (lock)",
            16,
            b ->
                r.ini.ep.compareAtomic(
                    r.ones,
                    1,
                    null,
                    b,
                    null,
                    r.result,
                    null,
                    p,
                    16,
                    k,
                    FiDatatype.DOUBLE_COMPLEX,
                    FiOp.CSWAP,
                    "x")),
        new Place(
            "fi_compare_atomic count 4",
            32,
            b ->
                r.ini.ep.compareAtomic(
                    r.ones,
                    4,
                    null,
                    b,
                    null,
                    r.result,
                    null,
                    p,
                    0,
                    k,
                    FiDatatype.UINT64,
                    FiOp.CSWAP,
                    "x")),
        new Place(
            "fi_compare_atomicv compare iov",
            8,
            b ->
                r.ini.ep.compareAtomicv(
                    new Ioc[] {new Ioc(r.one, 1)},
                    null,
                    1,
                    new Ioc[] {new Ioc(b, 1)},
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
                    "x")),
        new Place(
            "fi_compare_atomicmsg compare iov",
            8,
            b ->
                r.ini.ep.compareAtomicmsg(
                    new AtomicMsg(
                        new Ioc[] {new Ioc(r.one, 1)},
                        null,
                        p,
                        new RmaIoc[] {new RmaIoc(0, 1, k)},
                        FiDatatype.UINT64,
                        FiOp.CSWAP,
                        "x",
                        0),
                    new Ioc[] {new Ioc(b, 1)},
                    null,
                    1,
                    new Ioc[] {new Ioc(r.result, 1)},
                    null,
                    1,
                    0)));
  }
}
