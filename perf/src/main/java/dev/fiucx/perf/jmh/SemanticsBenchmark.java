package dev.fiucx.perf.jmh;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import dev.fiucx.semantics.ElementSemantics;
import dev.fiucx.semantics.LongDouble;
import dev.fiucx.semantics.ScalarSemantics;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The semantics kernels: what one (op, datatype) does to one element, bit for bit as libfabric.
 * {@link #apply} goes through {@link ElementSemantics#apply} on memory, fetch style (the old value
 * is copied to a result), as the remote lock computes an element (and so through the
 * package-private {@code WideSemantics} and {@link LongDouble} for the 16- and 32-byte types); the
 * target element is reset to the same value before each call so every call computes the same thing.
 * {@link #compute} is {@link ScalarSemantics#compute} on bits, as the CAS loop computes an element.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class SemanticsBenchmark {

  /** An element in memory: its start value, the operand, and the element itself. */
  @State(Scope.Thread)
  public static class Element {
    @Param({
      "SUM_INT64",
      "MIN_DOUBLE",
      "PROD_FLOAT_COMPLEX",
      "SUM_LONG_DOUBLE",
      "PROD_LONG_DOUBLE_COMPLEX"
    })
    public String cell;

    FiOp op;
    FiDatatype datatype;
    long size;
    MemorySegment initial;
    MemorySegment target;
    MemorySegment operand;
    MemorySegment result;
    private Arena arena;

    @Setup(Level.Trial)
    public void open() {
      int split = cell.indexOf('_');
      op = FiOp.valueOf(cell.substring(0, split));
      datatype = FiDatatype.valueOf(cell.substring(split + 1));
      size = datatype.size();
      arena = Arena.ofConfined();
      initial = arena.allocate(32, 16);
      operand = arena.allocate(32, 16);
      target = arena.allocate(32, 16);
      result = arena.allocate(32, 16);
      switch (datatype) {
        case INT64 -> {
          initial.set(JAVA_LONG, 0, 0x0123_4567_89ab_cdefL);
          operand.set(JAVA_LONG, 0, 0x1111_2222_3333_4444L);
        }
        case DOUBLE -> {
          initial.set(JAVA_DOUBLE, 0, 2.5);
          operand.set(JAVA_DOUBLE, 0, 1.25); // MIN wins: the operand is stored
        }
        case FLOAT_COMPLEX -> {
          initial.set(JAVA_FLOAT, 0, 1.5f);
          initial.set(JAVA_FLOAT, 4, -2.25f);
          operand.set(JAVA_FLOAT, 0, 0.75f);
          operand.set(JAVA_FLOAT, 4, 3.5f);
        }
        case LONG_DOUBLE -> {
          LongDouble.of(1.5).write(initial, 0);
          LongDouble.of(1e-3).write(operand, 0); // inexact: the sum rounds
        }
        case LONG_DOUBLE_COMPLEX -> {
          LongDouble.of(1.5).write(initial, 0);
          LongDouble.of(-2.25).write(initial, 16);
          LongDouble.of(0.75).write(operand, 0);
          LongDouble.of(1.0 / 3).write(operand, 16);
        }
        default -> throw new IllegalArgumentException(cell);
      }
    }

    @TearDown(Level.Trial)
    public void close() {
      arena.close();
    }
  }

  /** An element as bits, for the CAS loop's kernel (types of 8 bytes or less). */
  @State(Scope.Thread)
  public static class Bits {
    @Param({"SUM_INT64", "MIN_DOUBLE", "PROD_FLOAT_COMPLEX"})
    public String cell;

    FiOp op;
    FiDatatype datatype;
    long old;
    long operand;

    @Setup(Level.Trial)
    public void open() {
      int split = cell.indexOf('_');
      op = FiOp.valueOf(cell.substring(0, split));
      datatype = FiDatatype.valueOf(cell.substring(split + 1));
      switch (datatype) {
        case INT64 -> {
          old = 0x0123_4567_89ab_cdefL;
          operand = 0x1111_2222_3333_4444L;
        }
        case DOUBLE -> {
          old = Double.doubleToRawLongBits(2.5);
          operand = Double.doubleToRawLongBits(1.25);
        }
        case FLOAT_COMPLEX -> {
          old = complex(1.5f, -2.25f);
          operand = complex(0.75f, 3.5f);
        }
        default -> throw new IllegalArgumentException(cell);
      }
    }

    private static long complex(float re, float im) {
      return Float.floatToRawIntBits(re) & 0xFFFF_FFFFL | (long) Float.floatToRawIntBits(im) << 32;
    }
  }

  /**
   * {@link ElementSemantics#apply}, fetch style, on an element reset to its start value; {@code
   * alloc.worker.norm} is what this thread allocates per call.
   */
  @Benchmark
  public long apply(Element e, WorkerAllocation allocation) {
    allocation.calls++;
    MemorySegment.copy(e.initial, 0, e.target, 0, e.size);
    ElementSemantics.apply(e.op, e.datatype, e.target, 0, e.operand, 0, null, 0, e.result, 0);
    return e.target.get(JAVA_LONG, 0);
  }

  /** {@link ScalarSemantics#compute}: the new bits of an element from its old bits. */
  @Benchmark
  public long compute(Bits b) {
    return ScalarSemantics.compute(b.op, b.datatype, b.old, b.operand, 0);
  }
}
