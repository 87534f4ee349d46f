package dev.fiucx.perf.jmh;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import java.lang.foreign.MemorySegment;
import org.openjdk.jmh.annotations.Param;

/**
 * {@code fi_fetch_atomic} SUM DOUBLE_COMPLEX of (1, 0) per element: the remote lock (take the lock
 * word by CAS, get, compute, put and flush, release). The cell's count is 256 (4096 bytes / 16), so
 * 256 is the largest count here.
 */
public class FetchSumDoubleComplex extends PostPathBenchmark {
  public FetchSumDoubleComplex() {
    super(AtomicFamily.FETCH, FiOp.SUM, FiDatatype.DOUBLE_COMPLEX);
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
      operand.set(JAVA_DOUBLE, 16L * i, 1.0);
      operand.set(JAVA_DOUBLE, 16L * i + 8, 0.0);
    }
  }

  @Override
  protected String check(MemorySegment target, long offset, long posts, long lastSeq) {
    double re = target.get(JAVA_DOUBLE, offset);
    double im = target.get(JAVA_DOUBLE, offset + 8);
    return re == posts && im == 0.0 ? null : "holds (" + re + ", " + im + "), expected " + posts;
  }
}
