package dev.fiucx.conformance.suite;

import dev.fiucx.AtomicAttr;
import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.FiOp;
import dev.fiucx.Mechanism;
import dev.fiucx.conformance.suite.CheckResult.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Every check of one (family, op, datatype) cell: whether the query and the valid call agree, then
 * for a valid cell every call form with edge and random values and the count limit, for an invalid
 * cell every call form refused with -FI_EOPNOTSUPP and nothing changed.
 */
final class CellChecks {
  /** Elements of the random calls of the v and msg forms: enough for three iovs. */
  private static final int SMALL_COUNT = 7;

  /** At most this many edge values are crossed with each other (complex types have more). */
  private static final int MAX_EDGES = 24;

  private final Rig rig;

  CellChecks(Rig rig) {
    this.rig = rig;
  }

  List<CheckResult> check(AtomicFamily family, FiOp op, FiDatatype dt) {
    List<CheckResult> out = new ArrayList<>();
    AtomicAttr attr = null;
    String unsupportedReason = null;
    String queryFailure = null;
    try {
      attr = rig.domain.queryAtomic(dt, op, family.queryFlag());
    } catch (FiException e) {
      if (e.errno() == FiErrno.EOPNOTSUPP) {
        unsupportedReason = e.getMessage();
      } else {
        queryFailure =
            "fi_query_atomic threw "
                + FiErrno.errorString(-e.errno())
                + " ("
                + e.getMessage()
                + "), expected a count or -FI_EOPNOTSUPP";
      }
    }
    long valid = validCount(family, op, dt);
    if (queryFailure == null) {
      queryFailure = disagreement(family, op, dt, attr, valid);
    }
    Mechanism mechanism = attr == null ? null : attr.mechanism();
    if (queryFailure != null) {
      out.add(result(family, op, dt, "query", mechanism, Status.FAIL, queryFailure));
    }
    long max = attr != null ? attr.count() : valid;
    if (max <= 0) {
      // reported unsupported (by at least one of query and valid): every call must refuse it
      String reason =
          unsupportedReason != null ? unsupportedReason : FiErrno.errorString((int) valid);
      if (queryFailure == null) {
        out.add(result(family, op, dt, "query", null, Status.UNSUPPORTED, reason));
      }
      for (CallForm form : CallForm.of(family)) {
        String problem =
            randomCall(family, op, dt, form, 1, new Random(1))
                .runRefused(rig, FiErrno.EOPNOTSUPP, "refused");
        out.add(
            problem == null
                ? result(family, op, dt, form.callName(family), null, Status.UNSUPPORTED, reason)
                : result(family, op, dt, form.callName(family), null, Status.FAIL, problem));
      }
      return out;
    }
    if (queryFailure == null) {
      out.add(result(family, op, dt, "query", mechanism, Status.PASS, ""));
    }
    int count = (int) Math.min(max, Rig.BUFFER_BYTES / dt.size() - 1);
    Random rnd = new Random(31L * (31L * family.ordinal() + op.ordinal()) + dt.ordinal());
    for (CallForm form : CallForm.of(family)) {
      String problem = calls(family, op, dt, form, count, rnd);
      out.add(
          result(
              family, op, dt, form.callName(family), mechanism, statusOf(problem), text(problem)));
    }
    if (count < max) {
      out.add(
          result(
              family,
              op,
              dt,
              "count_limit",
              mechanism,
              Status.UNSUPPORTED,
              "the provider's count "
                  + max
                  + " is beyond this suite's "
                  + Rig.BUFFER_BYTES
                  + "-byte buffers"));
    } else {
      String limit =
          randomCall(family, op, dt, CallForm.PLAIN, count + 1, rnd)
              .runRefused(rig, FiErrno.EMSGSIZE, "too many");
      out.add(result(family, op, dt, "count_limit", mechanism, statusOf(limit), text(limit)));
    }
    return out;
  }

  /** Null when the query's answer and the valid call's agree, otherwise how they differ. */
  private String disagreement(
      AtomicFamily family, FiOp op, FiDatatype dt, AtomicAttr attr, long valid) {
    if (attr == null) {
      return valid == -FiErrno.EOPNOTSUPP
          ? null
          : "fi_query_atomic says unsupported but the valid call says "
              + (valid > 0 ? "count " + valid : FiErrno.errorString((int) valid));
    }
    if (valid <= 0) {
      return "fi_query_atomic says count "
          + attr.count()
          + " but the valid call says "
          + FiErrno.errorString((int) valid);
    }
    if (attr.count() != valid) {
      return "fi_query_atomic count " + attr.count() + ", valid call count " + valid;
    }
    if (attr.size() != dt.size()) {
      return "fi_query_atomic size " + attr.size() + ", expected " + dt.size();
    }
    return null;
  }

  private long validCount(AtomicFamily family, FiOp op, FiDatatype dt) {
    return switch (family) {
      case BASE -> rig.ep.atomicValid(dt, op);
      case FETCH -> rig.ep.fetchAtomicValid(dt, op);
      case COMPARE -> rig.ep.compareAtomicValid(dt, op);
    };
  }

  /**
   * Calls of one form with every pair of edge values (target, operand; in the compare family with
   * the compare equal to the target, then crossed with it), at most {@code max} elements per call;
   * then random values: the plain form in one call of exactly {@code max} elements, the largest the
   * provider takes, the other forms in a small call.
   */
  private String calls(
      AtomicFamily family, FiOp op, FiDatatype dt, CallForm form, int max, Random rnd) {
    List<byte[]> edges = sample(ElementValues.edges(dt));
    int n = edges.size();
    List<byte[][]> elements = new ArrayList<>(); // {target, operand, compare}
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        if (family == AtomicFamily.COMPARE) {
          elements.add(new byte[][] {edges.get(i), edges.get(j), edges.get(i)});
          elements.add(new byte[][] {edges.get(i), edges.get((i + j + 1) % n), edges.get(j)});
        } else {
          elements.add(new byte[][] {edges.get(i), edges.get(j), null});
        }
      }
    }
    for (int from = 0; from < elements.size(); from += max) {
      List<byte[][]> chunk = elements.subList(from, Math.min(from + max, elements.size()));
      String problem = call(family, op, dt, form, chunk).run(rig, "edges " + from);
      if (problem != null) {
        return "edge values from element " + from + ": " + problem;
      }
    }
    int count = form == CallForm.PLAIN ? max : SMALL_COUNT;
    String problem = randomCall(family, op, dt, form, count, rnd).run(rig, "random");
    return problem == null ? null : count + " random elements: " + problem;
  }

  private static List<byte[]> sample(List<byte[]> edges) {
    if (edges.size() <= MAX_EDGES) {
      return edges;
    }
    List<byte[]> out = new ArrayList<>();
    for (int i = 0; i < MAX_EDGES; i++) {
      out.add(edges.get(i * edges.size() / MAX_EDGES));
    }
    return out;
  }

  /** A call of random elements; in the compare family half the compares equal the target. */
  private static AtomicCall randomCall(
      AtomicFamily family, FiOp op, FiDatatype dt, CallForm form, int count, Random rnd) {
    List<byte[][]> elements = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      byte[] t = ElementValues.random(dt, rnd);
      byte[] o = ElementValues.random(dt, rnd);
      byte[] c = null;
      if (family == AtomicFamily.COMPARE) {
        c = rnd.nextBoolean() ? t.clone() : ElementValues.random(dt, rnd);
      }
      elements.add(new byte[][] {t, o, c});
    }
    return call(family, op, dt, form, elements);
  }

  private static AtomicCall call(
      AtomicFamily family, FiOp op, FiDatatype dt, CallForm form, List<byte[][]> elements) {
    int size = dt.size();
    int n = elements.size();
    byte[] target = new byte[n * size];
    byte[] operand = op == FiOp.ATOMIC_READ ? null : new byte[n * size];
    byte[] compare = family == AtomicFamily.COMPARE ? new byte[n * size] : null;
    for (int i = 0; i < n; i++) {
      byte[][] e = elements.get(i);
      System.arraycopy(e[0], 0, target, i * size, size);
      if (operand != null) {
        System.arraycopy(e[1], 0, operand, i * size, size);
      }
      if (compare != null) {
        System.arraycopy(e[2], 0, compare, i * size, size);
      }
    }
    return new AtomicCall(family, op, dt, form, target, operand, compare);
  }

  private static Status statusOf(String problem) {
    return problem == null ? Status.PASS : Status.FAIL;
  }

  private static String text(String problem) {
    return problem == null ? "" : problem;
  }

  private static CheckResult result(
      AtomicFamily family,
      FiOp op,
      FiDatatype dt,
      String call,
      Mechanism mechanism,
      Status status,
      String detail) {
    return new CheckResult(family, op, dt, call, mechanism, status, detail);
  }
}
