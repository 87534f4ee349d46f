package dev.fiucx.perf.jmh;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import java.lang.foreign.MemorySegment;
import org.openjdk.jmh.annotations.Param;

/**
 * {@code fi_fetch_atomic} MIN INT64: the CAS loop. Call number {@code n} carries {@code -n} in
 * every element, so every MIN wins and each element costs a fetching read and a compare-and-swap
 * (the loop skips the swap when MIN would not change the element; that cheaper case is not
 * measured).
 */
public class FetchMinInt64 extends PostPathBenchmark {
  public FetchMinInt64() {
    super(AtomicFamily.FETCH, FiOp.MIN, FiDatatype.INT64);
  }

  @Param({"1", "8", "64", "512"})
  public int count;

  @Override
  protected int count() {
    return count;
  }

  @Override
  protected void initOperand(MemorySegment operand, int n) {}

  @Override
  protected void prepareOperand(MemorySegment operand, int n, long seq) {
    for (int i = 0; i < n; i++) {
      operand.setAtIndex(JAVA_LONG, i, -seq);
    }
  }

  @Override
  protected String check(MemorySegment target, long offset, long posts, long lastSeq) {
    long v = target.get(JAVA_LONG, offset);
    long expected = posts == 0 ? 0 : -lastSeq;
    return v == expected ? null : "holds " + v + ", expected " + expected;
  }
}
