package dev.fiucx.perf.bench;

import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import dev.fiucx.semantics.ElementSemantics;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
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

  /**
   * bench -P's check: each slot's elements (a thread's, or with --same-element every initiator's
   * thread of that number) against what its calls leave from what it held before the run.
   *
   * @param start each slot's bytes before the initiators started ({@code count} elements)
   * @param end each slot's bytes after every initiator ended
   * @param callsPerSlot every call made on each slot's elements, warm-up included, all initiators
   */
  static TargetCheck ofSlots(BenchConfig cfg, byte[][] start, byte[][] end, long[] callsPerSlot) {
    int size = cfg.datatype().size();
    for (int s = 0; s < start.length; s++) {
      for (int e = 0; e < cfg.count(); e++) {
        byte[] before = Arrays.copyOfRange(start[s], e * size, (e + 1) * size);
        byte[] got = Arrays.copyOfRange(end[s], e * size, (e + 1) * size);
        byte[] want = after(cfg.op(), cfg.datatype(), before, callsPerSlot[s]);
        if (want == null) {
          return NOT_CHECKABLE;
        }
        if (!sameValue(cfg.datatype(), want, got)) {
          return new TargetCheck(
              true,
              false,
              String.format(
                  "slot %d element %d holds %s, expected %s after %d calls from %s",
                  s,
                  e,
                  HexFormat.of().formatHex(got),
                  HexFormat.of().formatHex(want),
                  callsPerSlot[s],
                  HexFormat.of().formatHex(before)));
        }
      }
    }
    long total = Arrays.stream(callsPerSlot).sum();
    return new TargetCheck(
        true,
        true,
        "every element holds what "
            + total
            + " calls of all initiators (warm-up included) leave on what it held before");
  }

  /** Floating-point sums from a value other than zero are added one by one, up to this many. */
  static final long MAX_STEPS = 1L << 22;

  /**
   * The element {@code start} after {@code calls} calls of {@code op} (operand one, compare zero),
   * or null where (op, datatype) is valid in no family, or a floating-point sum from a value other
   * than zero would take more than {@link #MAX_STEPS} additions. Every call has the same operand,
   * so the order of the calls does not matter: the result is the op applied {@code calls} times
   * ({@link RepeatedCall}, which finds where the values repeat). A floating-point sum from another
   * value than zero never repeats until it stops growing, so it is added one by one.
   */
  static byte[] after(FiOp op, FiDatatype dt, byte[] start, long calls) {
    if (Arrays.equals(start, Operands.zero(dt))) {
      return Operands.expected(op, dt, calls);
    }
    if (op != FiOp.SUM || dt.isInteger()) {
      return RepeatedCall.after(op, dt, start, Operands.one(dt), Operands.zero(dt), calls);
    }
    if (calls > MAX_STEPS) {
      return null;
    }
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment target = arena.allocate(dt.size(), 16);
      MemorySegment.copy(start, 0, target, ValueLayout.JAVA_BYTE, 0, start.length);
      MemorySegment operand = arena.allocate(dt.size(), 16);
      byte[] one = Operands.one(dt);
      MemorySegment.copy(one, 0, operand, ValueLayout.JAVA_BYTE, 0, one.length);
      MemorySegment compare = arena.allocate(dt.size(), 16);
      for (long i = 0; i < calls; i++) {
        ElementSemantics.apply(op, dt, target, 0, operand, 0, compare, 0, null, 0);
      }
      return target.toArray(ValueLayout.JAVA_BYTE);
    }
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
