package dev.fiucx.perf.bench;

import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * What the target's region held after a run, compared with what the calls must have left there
 * where the op determines it (see {@link Operands#expected}).
 *
 * @param checked false when the op leaves nothing exact to compare
 */
record TargetCheck(boolean checked, boolean ok, String detail) {
  static final TargetCheck NOT_CHECKABLE =
      new TargetCheck(false, true, "the op leaves no exactly known value");

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
