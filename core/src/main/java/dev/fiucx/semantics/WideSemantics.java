package dev.fiucx.semantics;

import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import java.lang.foreign.MemorySegment;

/**
 * What one (op, datatype) does to one element wider than 8 bytes: DOUBLE_COMPLEX, LONG_DOUBLE and
 * LONG_DOUBLE_COMPLEX, in place on the target's memory. Stored values are copied whole (16 or 32
 * bytes); computed long doubles are written as 10 bytes and zero padding. libfabric handles these
 * types with lock-style code, so CSWAP compares with IEEE {@code ==}, not bytes.
 */
final class WideSemantics {
  private WideSemantics() {}

  static void apply(
      FiOp op,
      FiDatatype dt,
      MemorySegment target,
      long t,
      MemorySegment operand,
      long o,
      MemorySegment compare,
      long c) {
    switch (dt) {
      case DOUBLE_COMPLEX -> doubleComplex(op, target, t, operand, o, compare, c);
      case LONG_DOUBLE -> longDouble(op, target, t, operand, o, compare, c);
      case LONG_DOUBLE_COMPLEX -> longDoubleComplex(op, target, t, operand, o, compare, c);
      default -> throw new IllegalArgumentException(dt.fiName() + " is 8 bytes or less");
    }
  }

  private static void doubleComplex(
      FiOp op,
      MemorySegment target,
      long t,
      MemorySegment operand,
      long o,
      MemorySegment cmp,
      long c) {
    long a = target.get(JAVA_LONG_UNALIGNED, t);
    long b = target.get(JAVA_LONG_UNALIGNED, t + 8);
    switch (op) {
      case SUM ->
          storeDoubles(target, t, Sse.addD(a, dRe(operand, o)), Sse.addD(b, dIm(operand, o)));
      case PROD -> {
        long[] p = Sse.mulComplexD(a, b, dRe(operand, o), dIm(operand, o));
        storeDoubles(target, t, p[0], p[1]);
      }
      case LOR -> storeDoubleBool(target, t, dTruth(a, b) || dTruth(operand, o));
      case LAND -> storeDoubleBool(target, t, dTruth(a, b) && dTruth(operand, o));
      case LXOR -> storeDoubleBool(target, t, dTruth(a, b) != dTruth(operand, o));
      case ATOMIC_READ -> {}
      case ATOMIC_WRITE -> copy(operand, o, target, t, 16);
      case CSWAP, CSWAP_NE -> {
        boolean equal =
            Double.longBitsToDouble(dRe(cmp, c)) == Double.longBitsToDouble(a)
                && Double.longBitsToDouble(dIm(cmp, c)) == Double.longBitsToDouble(b);
        if (equal == (op == FiOp.CSWAP)) {
          copy(operand, o, target, t, 16);
        }
      }
      default -> throw ScalarSemantics.undefined(op, FiDatatype.DOUBLE_COMPLEX);
    }
  }

  private static long dRe(MemorySegment s, long off) {
    return s.get(JAVA_LONG_UNALIGNED, off);
  }

  private static long dIm(MemorySegment s, long off) {
    return s.get(JAVA_LONG_UNALIGNED, off + 8);
  }

  private static boolean dTruth(long re, long im) {
    return Double.longBitsToDouble(re) != 0 || Double.longBitsToDouble(im) != 0;
  }

  private static boolean dTruth(MemorySegment s, long off) {
    return dTruth(dRe(s, off), dIm(s, off));
  }

  private static void storeDoubles(MemorySegment s, long off, long re, long im) {
    s.set(JAVA_LONG_UNALIGNED, off, re);
    s.set(JAVA_LONG_UNALIGNED, off + 8, im);
  }

  private static void storeDoubleBool(MemorySegment s, long off, boolean v) {
    storeDoubles(s, off, v ? Double.doubleToRawLongBits(1.0) : 0L, 0L);
  }

  private static void longDouble(
      FiOp op,
      MemorySegment target,
      long t,
      MemorySegment operand,
      long o,
      MemorySegment cmp,
      long c) {
    LongDouble x = LongDouble.read(target, t);
    switch (op) {
      case MIN -> {
        if (x.greaterThan(LongDouble.read(operand, o))) {
          copy(operand, o, target, t, 16);
        }
      }
      case MAX -> {
        if (x.lessThan(LongDouble.read(operand, o))) {
          copy(operand, o, target, t, 16);
        }
      }
      case SUM -> x.add(LongDouble.read(operand, o)).write(target, t);
      case PROD -> x.multiply(LongDouble.read(operand, o)).write(target, t);
      case LOR ->
          LongDouble.fromBoolean(x.isTrue() || LongDouble.read(operand, o).isTrue())
              .write(target, t);
      case LAND ->
          LongDouble.fromBoolean(x.isTrue() && LongDouble.read(operand, o).isTrue())
              .write(target, t);
      case LXOR ->
          LongDouble.fromBoolean(x.isTrue() != LongDouble.read(operand, o).isTrue())
              .write(target, t);
      case ATOMIC_READ -> {}
      case ATOMIC_WRITE -> copy(operand, o, target, t, 16);
      case CSWAP, CSWAP_NE, CSWAP_LE, CSWAP_LT, CSWAP_GE, CSWAP_GT -> {
        LongDouble z = LongDouble.read(cmp, c);
        boolean swap =
            switch (op) {
              case CSWAP -> z.ieeeEquals(x);
              case CSWAP_NE -> z.ieeeNotEquals(x);
              case CSWAP_LE -> z.lessOrEqual(x);
              case CSWAP_LT -> z.lessThan(x);
              case CSWAP_GE -> z.greaterOrEqual(x);
              default -> z.greaterThan(x);
            };
        if (swap) {
          copy(operand, o, target, t, 16);
        }
      }
      default -> throw ScalarSemantics.undefined(op, FiDatatype.LONG_DOUBLE);
    }
  }

  private static void longDoubleComplex(
      FiOp op,
      MemorySegment target,
      long t,
      MemorySegment operand,
      long o,
      MemorySegment cmp,
      long c) {
    LongDouble a = LongDouble.read(target, t);
    LongDouble b = LongDouble.read(target, t + 16);
    switch (op) {
      case SUM -> {
        a.add(LongDouble.read(operand, o)).write(target, t);
        b.add(LongDouble.read(operand, o + 16)).write(target, t + 16);
      }
      case PROD -> {
        LongDouble[] p =
            LongDouble.complexMultiply(
                a, b, LongDouble.read(operand, o), LongDouble.read(operand, o + 16));
        p[0].write(target, t);
        p[1].write(target, t + 16);
      }
      case LOR -> storeLongDoubleBool(target, t, ldTruth(a, b) || ldTruth(operand, o));
      case LAND -> storeLongDoubleBool(target, t, ldTruth(a, b) && ldTruth(operand, o));
      case LXOR -> storeLongDoubleBool(target, t, ldTruth(a, b) != ldTruth(operand, o));
      case ATOMIC_READ -> {}
      case ATOMIC_WRITE -> copy(operand, o, target, t, 32);
      case CSWAP, CSWAP_NE -> {
        boolean equal =
            LongDouble.read(cmp, c).ieeeEquals(a) && LongDouble.read(cmp, c + 16).ieeeEquals(b);
        if (equal == (op == FiOp.CSWAP)) {
          copy(operand, o, target, t, 32);
        }
      }
      default -> throw ScalarSemantics.undefined(op, FiDatatype.LONG_DOUBLE_COMPLEX);
    }
  }

  private static boolean ldTruth(LongDouble re, LongDouble im) {
    return re.isTrue() || im.isTrue();
  }

  private static boolean ldTruth(MemorySegment s, long off) {
    return ldTruth(LongDouble.read(s, off), LongDouble.read(s, off + 16));
  }

  private static void storeLongDoubleBool(MemorySegment s, long off, boolean v) {
    LongDouble.fromBoolean(v).write(s, off);
    LongDouble.ZERO.write(s, off + 16);
  }

  private static void copy(MemorySegment from, long fromOff, MemorySegment to, long toOff, long n) {
    MemorySegment.copy(from, fromOff, to, toOff, n);
  }
}
