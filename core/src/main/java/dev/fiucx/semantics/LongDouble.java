package dev.fiucx.semantics;

import java.lang.foreign.MemorySegment;

public record LongDouble(int signExponent, long significand) {
  public static final LongDouble ZERO = new LongDouble(0, 0);

  public static LongDouble read(MemorySegment s, long o) {
    throw new UnsupportedOperationException();
  }

  public void write(MemorySegment s, long o) {
    throw new UnsupportedOperationException();
  }

  public LongDouble add(LongDouble b) {
    throw new UnsupportedOperationException();
  }

  public LongDouble multiply(LongDouble b) {
    throw new UnsupportedOperationException();
  }

  public boolean lessThan(LongDouble b) {
    throw new UnsupportedOperationException();
  }

  public boolean greaterThan(LongDouble b) {
    throw new UnsupportedOperationException();
  }

  public boolean lessOrEqual(LongDouble b) {
    throw new UnsupportedOperationException();
  }

  public boolean greaterOrEqual(LongDouble b) {
    throw new UnsupportedOperationException();
  }

  public boolean ieeeEquals(LongDouble b) {
    throw new UnsupportedOperationException();
  }

  public boolean ieeeNotEquals(LongDouble b) {
    throw new UnsupportedOperationException();
  }

  public boolean isTrue() {
    throw new UnsupportedOperationException();
  }

  public static LongDouble fromBoolean(boolean b) {
    throw new UnsupportedOperationException();
  }

  public static LongDouble[] complexMultiply(
      LongDouble a, LongDouble b, LongDouble c, LongDouble d) {
    throw new UnsupportedOperationException();
  }
}
