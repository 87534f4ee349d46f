package dev.fiucx.perf.bench;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import dev.fiucx.semantics.AtomicTable;
import dev.fiucx.semantics.ElementScratch;
import dev.fiucx.semantics.ElementSemantics;
import dev.fiucx.semantics.ScalarSemantics;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What one element holds after the same call (one op, operand and compare) was applied to it {@code
 * n} times, computed with the reference semantics ({@link ElementSemantics}), byte for byte as they
 * define it. Every call of a bench run applies the same operand and compare, so the element's final
 * value is {@code f^n(start)} whatever order the threads and processes took turns in: only how many
 * calls hit it matters.
 *
 * <p>The calls are applied one by one until the element's value repeats: a fixed point (most ops
 * reach one after one or two calls) or a cycle (BXOR and LXOR with a period of 2, a PROD that wraps
 * around), from which the value after {@code n} calls follows without applying the rest. An integer
 * SUM is one call with the operand times {@code n} (both wrap modulo the type's width, as repeated
 * sums do). Anything else that neither repeats nor ends within {@link #STEPS} calls is unknown.
 */
final class RepeatedCall {
  /** The most calls applied one by one (and values kept) before the answer is given up. */
  static final int STEPS = 4096;

  private RepeatedCall() {}

  /**
   * The element after {@code calls} calls, or null when (op, datatype) is valid in no family or the
   * value neither repeats nor is reached within {@link #STEPS} calls.
   *
   * @param start the element's bytes before the first call
   * @param operand each call's operand (ignored by ATOMIC_READ)
   * @param compare each call's compare value (used by the compare family's ops only)
   */
  static byte[] after(
      FiOp op, FiDatatype dt, byte[] start, byte[] operand, byte[] compare, long calls) {
    if (calls < 0) {
      throw new IllegalArgumentException("calls must not be negative: " + calls);
    }
    if (!definedInSomeFamily(op, dt)) {
      return null;
    }
    if (op == FiOp.SUM && dt.isInteger()) {
      return integerSum(dt, start, operand, calls);
    }
    List<byte[]> seen = new ArrayList<>();
    Map<ByteBuffer, Integer> stepOf = new HashMap<>();
    ElementScratch scratch = new ElementScratch();
    byte[] value = start.clone();
    for (int step = 0; ; step++) {
      if (step == calls) {
        return value;
      }
      Integer first = stepOf.putIfAbsent(key(dt, value), step);
      if (first != null) {
        int period = step - first;
        return seen.get(first + (int) ((calls - first) % period));
      }
      if (step == STEPS) {
        return null;
      }
      seen.add(value);
      value = applyOnce(op, dt, value, operand, compare, scratch);
    }
  }

  private static boolean definedInSomeFamily(FiOp op, FiDatatype dt) {
    for (AtomicFamily f : AtomicFamily.values()) {
      if (AtomicTable.reference().valid(f, op, dt) > 0) {
        return true;
      }
    }
    return false;
  }

  /** start + calls x operand in one call: integers wrap, so the order of the sums is free. */
  private static byte[] integerSum(FiDatatype dt, byte[] start, byte[] operand, long calls) {
    int size = dt.size();
    long all = ElementSemantics.load(MemorySegment.ofArray(operand), 0, size) * calls;
    long sum =
        ScalarSemantics.compute(
            FiOp.SUM, dt, ElementSemantics.load(MemorySegment.ofArray(start), 0, size), all, 0);
    byte[] out = new byte[size];
    ElementSemantics.store(MemorySegment.ofArray(out), 0, size, sum);
    return out;
  }

  private static byte[] applyOnce(
      FiOp op,
      FiDatatype dt,
      byte[] value,
      byte[] operand,
      byte[] compare,
      ElementScratch scratch) {
    byte[] next = value.clone();
    ElementSemantics.apply(
        op,
        dt,
        MemorySegment.ofArray(next),
        0,
        MemorySegment.ofArray(operand),
        0,
        MemorySegment.ofArray(compare),
        0,
        null,
        0,
        scratch);
    return next;
  }

  /**
   * The value's bytes as a map key; a long double's 6 padding bytes (per part) zeroed, since the
   * semantics read only its 10 bytes of value.
   */
  private static ByteBuffer key(FiDatatype dt, byte[] value) {
    byte[] k = value.clone();
    if (dt == FiDatatype.LONG_DOUBLE || dt == FiDatatype.LONG_DOUBLE_COMPLEX) {
      for (int part = 0; part < k.length; part += 16) {
        Arrays.fill(k, part + 10, part + 16, (byte) 0);
      }
    }
    return ByteBuffer.wrap(k);
  }
}
