package dev.fiucx.perf.bench;

import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * What the target's region held after a run, compared with what the calls must have left there (see
 * {@link Operands#expected}). Each call applies the same operand and compare, so an element's value
 * depends only on how many calls hit it: every call of a thread hits each of its elements.
 *
 * @param checked false when nothing exact is known to compare with (a serve's shared region)
 */
record TargetCheck(boolean checked, boolean ok, String detail) {
  static final TargetCheck NOT_CHECKABLE =
      new TargetCheck(false, true, "the op leaves no exactly known value");

  /** A serve's region: shared with other initiators, and not handed back. */
  static final TargetCheck SHARED =
      new TargetCheck(
          false,
          true,
          "not checked: a fiucx serve's region is shared with its other initiators and not handed"
              + " back");

  /** Both checks: checked when either was, ok when both are, the details side by side. */
  TargetCheck and(TargetCheck other) {
    String d = !checked && other.checked ? other.detail : detail + "; " + other.detail;
    return new TargetCheck(checked || other.checked, ok && other.ok, d);
  }

  /**
   * What the calls fetched ({@code --fetched}): with SUM on an integer type every value of a
   * thread's element is a ticket and must be distinct; on a region of bench's own (zeroed before
   * the run) they must be exactly 0 .. calls - 1.
   *
   * @param fetched each thread's fetched values (raw bits, unsigned)
   */
  static TargetCheck ofFetched(BenchConfig cfg, long[][] fetched, boolean exclusive) {
    long total = 0;
    for (long[] f : fetched) {
      total += f.length;
    }
    if (cfg.op() != FiOp.SUM || !cfg.datatype().isInteger()) {
      return new TargetCheck(
          false, true, total + " fetched values kept (not tickets: not checked)");
    }
    long mask = cfg.datatype().size() == 8 ? -1L : (1L << (8 * cfg.datatype().size())) - 1;
    for (long[] f : fetched) {
      if (f.length > 0 && Long.compareUnsigned(f.length - 1, mask) > 0) {
        return new TargetCheck(
            false, true, total + " fetched values kept (more calls than the type has values)");
      }
    }
    for (int t = 0; t < fetched.length; t++) {
      long[] sorted = fetched[t].clone();
      Arrays.sort(sorted);
      for (int i = 0; i < sorted.length; i++) {
        if (i > 0 && sorted[i] == sorted[i - 1]) {
          return new TargetCheck(
              true, false, "thread " + t + " fetched the ticket " + sorted[i] + " twice");
        }
        if (exclusive && sorted[i] != i) {
          return new TargetCheck(
              true,
              false,
              "thread "
                  + t
                  + " did not fetch the ticket "
                  + i
                  + " (0 .. "
                  + (sorted.length - 1)
                  + " expected)");
        }
      }
    }
    return new TargetCheck(
        true,
        true,
        total
            + " fetched tickets, distinct per element"
            + (exclusive ? " and exactly 0 .. calls - 1" : ""));
  }

  /**
   * @param region the target's bytes after the run
   * @param callsPerThread every call each thread made, warm-up included
   */
  static TargetCheck of(BenchConfig cfg, byte[] region, long[] callsPerThread) {
    FiOp op = cfg.op();
    FiDatatype dt = cfg.datatype();
    int size = dt.size();
    for (int t = 0; t < callsPerThread.length; t++) {
      byte[] want = Operands.expected(op, dt, callsPerThread[t]);
      if (want == null) {
        return NOT_CHECKABLE;
      }
      long base = t * cfg.threadStride();
      for (int e = 0; e < cfg.count(); e++) {
        int from = (int) (base + (long) e * size);
        byte[] got = Arrays.copyOfRange(region, from, from + size);
        if (!sameValue(dt, want, got)) {
          return new TargetCheck(
              true,
              false,
              String.format(
                  "thread %d element %d holds %s, expected %s after %d calls",
                  t,
                  e,
                  HexFormat.of().formatHex(got),
                  HexFormat.of().formatHex(want),
                  callsPerThread[t]));
        }
      }
    }
    long total = Arrays.stream(callsPerThread).sum();
    return new TargetCheck(
        true, true, "every element holds what " + total + " calls (warm-up included) leave");
  }

  /** Bytes equal, except the 6 padding bytes of each 16-byte long double, which are don't-care. */
  private static boolean sameValue(FiDatatype dt, byte[] want, byte[] got) {
    if (dt != FiDatatype.LONG_DOUBLE && dt != FiDatatype.LONG_DOUBLE_COMPLEX) {
      return Arrays.equals(want, got);
    }
    for (int part = 0; part < want.length; part += 16) {
      if (!Arrays.equals(want, part, part + 10, got, part, part + 10)) {
        return false;
      }
    }
    return true;
  }
}
