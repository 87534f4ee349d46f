package dev.fiucx.semantics;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link ElementSemantics#apply} on every valid LONG_DOUBLE and LONG_DOUBLE_COMPLEX cell allocates
 * nothing once compiled, through both overloads (this thread's scratch, and the caller's as the
 * remote lock passes it). The values round (an inexact sum and product), and a second set takes the
 * NaN and infinity paths, the complex product's Annex G recalculation among them.
 */
class WideSemanticsAllocationTest {
  private static final int WARM_UP_CALLS = 400_000;
  private static final int MEASURED_CALLS = 100_000;
  private static final int MAX_ROUNDS = 10;

  private static final FiDatatype[] TYPES = {
    FiDatatype.LONG_DOUBLE, FiDatatype.LONG_DOUBLE_COMPLEX
  };

  /**
   * One (op, datatype) on one set of values, in fetch-and-compare style. The target is exactly one
   * element long, so a kernel that writes past its element fails.
   */
  private record Case(
      FiOp op,
      FiDatatype datatype,
      MemorySegment initial,
      MemorySegment operand,
      MemorySegment target) {}

  private static Arena arena;
  private static MemorySegment compare;
  private static MemorySegment result;
  private static List<Case> cases;
  private static final ElementScratch SCRATCH = new ElementScratch();

  @BeforeAll
  static void setUp() {
    arena = Arena.ofConfined();
    compare = arena.allocate(32, 16);
    result = arena.allocate(32, 16);
    // (1.5, -2.25) * (1e-3, 1/3): every sum and product rounds
    MemorySegment finite = values(1.5, -2.25);
    MemorySegment finiteOperand = values(1e-3, 1.0 / 3);
    // (inf, NaN) * (0.75, -0): both parts NaN, so the complex product recalculates
    MemorySegment special = values(Double.POSITIVE_INFINITY, Double.NaN);
    MemorySegment specialOperand = values(0.75, -0.0);
    LongDouble.of(1.5).write(compare, 0); // CSWAP on the finite set swaps
    LongDouble.of(-2.25).write(compare, 16);
    cases = new ArrayList<>();
    AtomicTable table = AtomicTable.reference();
    for (AtomicCell cell : table.validCells()) {
      if (cell.datatype() != TYPES[0] && cell.datatype() != TYPES[1]) {
        continue;
      }
      if (cases.stream().anyMatch(c -> c.op == cell.op() && c.datatype == cell.datatype())) {
        continue; // the same computation in another family
      }
      long size = cell.datatype().size();
      cases.add(
          new Case(
              cell.op(),
              cell.datatype(),
              finite.asSlice(0, size),
              finiteOperand.asSlice(0, size),
              arena.allocate(size, 16)));
      cases.add(
          new Case(
              cell.op(),
              cell.datatype(),
              special.asSlice(0, size),
              specialOperand.asSlice(0, size),
              arena.allocate(size, 16)));
    }
  }

  @AfterAll
  static void tearDown() {
    arena.close();
  }

  private static MemorySegment values(double re, double im) {
    MemorySegment s = arena.allocate(32, 16);
    LongDouble.of(re).write(s, 0);
    LongDouble.of(im).write(s, 16);
    return s;
  }

  @Test
  void everyCellIsCovered() {
    List<String> covered = new ArrayList<>();
    for (Case c : cases) {
      covered.add(c.op + " " + c.datatype);
    }
    // LONG_DOUBLE: MIN, MAX, SUM, PROD, LOR, LAND, LXOR, READ, WRITE and six CSWAPs;
    // LONG_DOUBLE_COMPLEX: SUM, PROD, LOR, LAND, LXOR, READ, WRITE, CSWAP, CSWAP_NE
    assertEquals(2 * (15 + 9), cases.size(), covered.toString());
    assertTrue(covered.contains("PROD LONG_DOUBLE_COMPLEX"), covered.toString());
    assertTrue(covered.contains("CSWAP_GT LONG_DOUBLE"), covered.toString());
  }

  @Test
  void applyWithThisThreadsScratchAllocatesNothing() {
    assertAllocatesNothing(false);
  }

  @Test
  void applyWithTheCallersScratchAllocatesNothing() {
    assertAllocatesNothing(true);
  }

  private static void assertAllocatesNothing(boolean ownScratch) {
    run(ownScratch, WARM_UP_CALLS);
    var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long allocated = -1;
    int rounds = 0;
    while (allocated != 0 && rounds < MAX_ROUNDS) {
      long before = threads.getCurrentThreadAllocatedBytes();
      run(ownScratch, MEASURED_CALLS);
      allocated = threads.getCurrentThreadAllocatedBytes() - before;
      rounds++;
    }
    assertEquals(0, allocated, "bytes allocated by the last " + MEASURED_CALLS + " calls");
  }

  /** {@code calls} calls, round robin over the cases, each on the element reset to its value. */
  private static long run(boolean ownScratch, int calls) {
    long sum = 0;
    int n = cases.size();
    for (int i = 0; i < calls; i++) {
      Case c = cases.get(i % n);
      MemorySegment.copy(c.initial, 0, c.target, 0, c.initial.byteSize());
      if (ownScratch) {
        ElementSemantics.apply(
            c.op, c.datatype, c.target, 0, c.operand, 0, compare, 0, result, 0, SCRATCH);
      } else {
        ElementSemantics.apply(c.op, c.datatype, c.target, 0, c.operand, 0, compare, 0, result, 0);
      }
      sum += c.target.get(JAVA_LONG, 0);
    }
    return sum;
  }
}
