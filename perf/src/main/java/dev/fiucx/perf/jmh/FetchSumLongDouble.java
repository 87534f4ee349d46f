package dev.fiucx.perf.jmh;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import dev.fiucx.semantics.LongDouble;
import java.lang.foreign.MemorySegment;
import org.openjdk.jmh.annotations.Param;

/**
 * {@code fi_fetch_atomic} SUM LONG_DOUBLE of 1 per element: the remote lock, like {@link
 * FetchSumDoubleComplex}, but computing with core's 80-bit {@link LongDouble}. The cell's count is
 * 256.
 */
public class FetchSumLongDouble extends PostPathBenchmark {
  public FetchSumLongDouble() {
    super(AtomicFamily.FETCH, FiOp.SUM, FiDatatype.LONG_DOUBLE);
  }

  @Param({"1", "8", "64", "256"})
  public int count;

  @Override
  protected int count() {
    return count;
  }

  @Override
  protected void initOperand(MemorySegment operand, int n) {
    for (int i = 0; i < n; i++) {
      LongDouble.ONE.write(operand, 16L * i);
    }
  }

  @Override
  protected String check(MemorySegment target, long offset, long posts, long lastSeq) {
    LongDouble v = LongDouble.read(target, offset);
    return v.equals(LongDouble.of(posts)) ? null : "holds " + v + ", expected " + posts;
  }
}
