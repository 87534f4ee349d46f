package dev.fiucx.semantics;

/**
 * The working registers of {@link ElementSemantics#apply(dev.fiucx.FiOp, dev.fiucx.FiDatatype,
 * java.lang.foreign.MemorySegment, long, java.lang.foreign.MemorySegment, long,
 * java.lang.foreign.MemorySegment, long, java.lang.foreign.MemorySegment, long, ElementScratch)}:
 * LONG_DOUBLE and LONG_DOUBLE_COMPLEX arithmetic keeps its values in primitives and leaves each
 * rounded result here instead of in a new {@link LongDouble}, so computing an element allocates
 * nothing. Reuse one; never share one between threads that compute at the same time (one per
 * thread, or one per element slot that a single thread at a time computes).
 */
public final class ElementScratch {
  /** The last result: a long double, or the real part of a complex product. */
  int signExponent;

  long significand;

  /** The imaginary part of a complex product. */
  int imSignExponent;

  long imSignificand;

  public ElementScratch() {}
}
