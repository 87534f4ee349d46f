package dev.fiucx.perf.jmh;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import java.lang.foreign.MemorySegment;
import org.openjdk.jmh.annotations.Param;

/**
 * {@code fi_atomic} SUM UINT64 of 1 per element: native (the ucx provider posts it as a fetching
 * add into a discard word today, so that its completion means it has been applied).
 */
public class BaseSumUint64 extends PostPathBenchmark {
  public BaseSumUint64() {
    super(AtomicFamily.BASE, FiOp.SUM, FiDatatype.UINT64);
  }

  @Param({"1", "8", "64", "512"})
  public int count;

  @Override
  protected int count() {
    return count;
  }

  @Override
  protected void initOperand(MemorySegment operand, int n) {
    for (int i = 0; i < n; i++) {
      operand.setAtIndex(JAVA_LONG, i, 1);
    }
  }

  @Override
  protected String check(MemorySegment target, long offset, long posts, long lastSeq) {
    long v = target.get(JAVA_LONG, offset);
    return v == posts ? null : "holds " + v + ", expected " + posts;
  }
}
