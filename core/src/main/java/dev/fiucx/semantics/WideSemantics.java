package dev.fiucx.semantics;

import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import java.lang.foreign.MemorySegment;

/**
 * What one (op, datatype) does to one element wider than 8 bytes: DOUBLE_COMPLEX, LONG_DOUBLE and
 * LONG_DOUBLE_COMPLEX, in place on the target's memory. Stored values are copied whole (16 or 32
 * bytes); computed long doubles are written as 10 bytes and zero padding. Long doubles are computed
 * on primitives, results left in the caller's {@link ElementScratch}: nothing allocates. libfabric
 * handles these types with lock-style code, so CSWAP compares with IEEE {@code ==}, not bytes.
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
      long c,
      ElementScratch scratch) {
    switch (dt) {
      case DOUBLE_COMPLEX -> doubleComplex(op, target, t, operand, o, compare, c);
      case LONG_DOUBLE -> longDouble(op, target, t, operand, o, compare, c, scratch);
      case LONG_DOUBLE_COMPLEX -> longDoubleComplex(op, target, t, operand, o, compare, c, scratch);
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
      long c,
      ElementScratch r) {
    int xSe = LongDouble.readSignExponent(target, t);
    long xM = LongDouble.readSignificand(target, t);
    switch (op) {
      case MIN -> {
        if (LongDouble.compare(xSe, xM, ldSe(operand, o), ldM(operand, o)) == 1) {
          copy(operand, o, target, t, 16);
        }
      }
      case MAX -> {
        if (LongDouble.compare(xSe, xM, ldSe(operand, o), ldM(operand, o)) == -1) {
          copy(operand, o, target, t, 16);
        }
      }
      case SUM -> {
        LongDouble.add(xSe, xM, ldSe(operand, o), ldM(operand, o), false, r);
        LongDouble.write(target, t, r.signExponent, r.significand);
      }
      case PROD -> {
        LongDouble.multiply(xSe, xM, ldSe(operand, o), ldM(operand, o), r);
        LongDouble.write(target, t, r.signExponent, r.significand);
      }
      case LOR ->
          LongDouble.fromBoolean(LongDouble.isTrue(xSe, xM) || ldTrue(operand, o)).write(target, t);
      case LAND ->
          LongDouble.fromBoolean(LongDouble.isTrue(xSe, xM) && ldTrue(operand, o)).write(target, t);
      case LXOR ->
          LongDouble.fromBoolean(LongDouble.isTrue(xSe, xM) != ldTrue(operand, o)).write(target, t);
      case ATOMIC_READ -> {}
      case ATOMIC_WRITE -> copy(operand, o, target, t, 16);
      case CSWAP, CSWAP_NE, CSWAP_LE, CSWAP_LT, CSWAP_GE, CSWAP_GT -> {
        int z = LongDouble.compare(ldSe(cmp, c), ldM(cmp, c), xSe, xM);
        boolean swap =
            switch (op) {
              case CSWAP -> z == 0;
              case CSWAP_NE -> z != 0;
              case CSWAP_LE -> LongDouble.lessOrEqual(z);
              case CSWAP_LT -> z == -1;
              case CSWAP_GE -> LongDouble.greaterOrEqual(z);
              default -> z == 1;
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
      long c,
      ElementScratch r) {
    int aSe = LongDouble.readSignExponent(target, t);
    long aM = LongDouble.readSignificand(target, t);
    int bSe = LongDouble.readSignExponent(target, t + 16);
    long bM = LongDouble.readSignificand(target, t + 16);
    switch (op) {
      case SUM -> {
        LongDouble.add(aSe, aM, ldSe(operand, o), ldM(operand, o), false, r);
        LongDouble.write(target, t, r.signExponent, r.significand);
        LongDouble.add(bSe, bM, ldSe(operand, o + 16), ldM(operand, o + 16), false, r);
        LongDouble.write(target, t + 16, r.signExponent, r.significand);
      }
      case PROD -> {
        LongDouble.complexMultiply(
            aSe,
            aM,
            bSe,
            bM,
            ldSe(operand, o),
            ldM(operand, o),
            ldSe(operand, o + 16),
            ldM(operand, o + 16),
            r);
        LongDouble.write(target, t, r.signExponent, r.significand);
        LongDouble.write(target, t + 16, r.imSignExponent, r.imSignificand);
      }
      case LOR -> storeLongDoubleBool(target, t, ldTruth(aSe, aM, bSe, bM) || ldTruth(operand, o));
      case LAND -> storeLongDoubleBool(target, t, ldTruth(aSe, aM, bSe, bM) && ldTruth(operand, o));
      case LXOR -> storeLongDoubleBool(target, t, ldTruth(aSe, aM, bSe, bM) != ldTruth(operand, o));
      case ATOMIC_READ -> {}
      case ATOMIC_WRITE -> copy(operand, o, target, t, 32);
      case CSWAP, CSWAP_NE -> {
        boolean equal =
            LongDouble.compare(ldSe(cmp, c), ldM(cmp, c), aSe, aM) == 0
                && LongDouble.compare(ldSe(cmp, c + 16), ldM(cmp, c + 16), bSe, bM) == 0;
        if (equal == (op == FiOp.CSWAP)) {
          copy(operand, o, target, t, 32);
        }
      }
      default -> throw ScalarSemantics.undefined(op, FiDatatype.LONG_DOUBLE_COMPLEX);
    }
  }

  private static int ldSe(MemorySegment s, long off) {
    return LongDouble.readSignExponent(s, off);
  }

  private static long ldM(MemorySegment s, long off) {
    return LongDouble.readSignificand(s, off);
  }

  private static boolean ldTrue(MemorySegment s, long off) {
    return LongDouble.isTrue(ldSe(s, off), ldM(s, off));
  }

  private static boolean ldTruth(int reSe, long reM, int imSe, long imM) {
    return LongDouble.isTrue(reSe, reM) || LongDouble.isTrue(imSe, imM);
  }

  private static boolean ldTruth(MemorySegment s, long off) {
    return ldTruth(ldSe(s, off), ldM(s, off), ldSe(s, off + 16), ldM(s, off + 16));
  }

  private static void storeLongDoubleBool(MemorySegment s, long off, boolean v) {
    LongDouble.fromBoolean(v).write(s, off);
    LongDouble.ZERO.write(s, off + 16);
  }

  private static void copy(MemorySegment from, long fromOff, MemorySegment to, long toOff, long n) {
    MemorySegment.copy(from, fromOff, to, toOff, n);
  }
}
