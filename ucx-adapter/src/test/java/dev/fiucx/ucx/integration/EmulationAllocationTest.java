package dev.fiucx.ucx.integration;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fiucx.CqEntry;
import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.MemoryRegion;
import dev.fiucx.conformance.remote.Initiator;
import dev.fiucx.conformance.suite.RequiresProvider;
import dev.fiucx.semantics.LongDouble;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * An emulated call (CAS loop: INT16; remote lock: DOUBLE_COMPLEX, and LONG_DOUBLE, whose sums round
 * in extended precision) allocates nothing once compiled, through the whole API: validation, the
 * engine's element states, the lock's acquire, get, put and release, the steps that complete at
 * once (shared memory) or later through the progress a completion-queue read makes (tcp), the
 * result and the completion. Measured with the JVM's per-thread allocation counter over whole
 * rounds, under manual progress so that every step runs on this thread; rounds repeat (at most
 * {@link #MAX_ROUNDS}) while the JIT settles.
 */
@RequiresProvider("ucx")
class EmulationAllocationTest {
  private static final int MAX_ROUNDS = 10;

  @ParameterizedTest(name = "{0}: {1} x {2} elements of {3}")
  @CsvSource({
    "shm, 20000, 1, FI_INT16",
    "shm, 2000, 8, FI_INT16",
    "tcp, 1000, 1, FI_INT16",
    "tcp, 200, 8, FI_INT16",
    "shm, 10000, 1, FI_DOUBLE_COMPLEX",
    "shm, 1000, 4, FI_DOUBLE_COMPLEX",
    "tcp, 300, 1, FI_DOUBLE_COMPLEX",
    "tcp, 100, 4, FI_DOUBLE_COMPLEX",
    "shm, 10000, 1, FI_LONG_DOUBLE",
    "shm, 1000, 4, FI_LONG_DOUBLE",
    "tcp, 300, 1, FI_LONG_DOUBLE",
    "tcp, 100, 4, FI_LONG_DOUBLE"
  })
  void anEmulatedCallAllocatesNothing(String transport, int perRound, int count, String type) {
    FiDatatype datatype = FiDatatype.ofName(type);
    boolean wide = datatype == FiDatatype.DOUBLE_COMPLEX;
    boolean longDouble = datatype == FiDatatype.LONG_DOUBLE;
    int size = datatype.size();
    try (Domain target =
            Fabric.openDomain(
                "ucx", new DomainAttr(transport, DomainAttr.Progress.AUTO, false, Map.of()));
        Initiator me = new Initiator("ucx", transport, DomainAttr.Progress.MANUAL);
        Arena arena = Arena.ofConfined()) {
      MemoryRegion region = target.allocateMemory(64, FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE);
      long peer = me.av.insert(target.openEndpoint().name());
      MemorySegment operand = arena.allocate((long) size * count, 16);
      for (int i = 0; i < count; i++) {
        if (wide) {
          operand.set(JAVA_DOUBLE, 16L * i, 1.0); // (1, 0)
        } else if (longDouble) {
          LongDouble.ONE.write(operand, 16L * i);
        } else {
          operand.setAtIndex(JAVA_SHORT, i, (short) 1);
        }
      }
      MemorySegment result = arena.allocate((long) size * count, 16);
      CqEntry[] entries = {new CqEntry()};
      var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
      long allocated = -1;
      int rounds = 0;
      while (allocated != 0 && rounds < MAX_ROUNDS) {
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < perRound; i++) {
          int rc =
              me.ep.fetchAtomic(
                  operand,
                  count,
                  null,
                  result,
                  null,
                  peer,
                  0,
                  region.key(),
                  datatype,
                  FiOp.SUM,
                  null);
          if (rc != 0 || me.cq.sread(entries, 1, 10_000) != 1) {
            throw new AssertionError("call " + i + ": " + rc);
          }
        }
        allocated = threads.getCurrentThreadAllocatedBytes() - before;
        rounds++;
      }
      assertEquals(0, allocated, "bytes allocated by the last " + perRound + " calls");
      int calls = rounds * perRound;
      for (int i = 0; i < count; i++) {
        if (wide) {
          assertEquals(calls, region.segment().get(JAVA_DOUBLE, 16L * i));
          assertEquals(calls - 1, result.get(JAVA_DOUBLE, 16L * i));
        } else if (longDouble) {
          assertEquals(calls, LongDouble.read(region.segment(), 16L * i).toDouble());
          assertEquals(calls - 1, LongDouble.read(result, 16L * i).toDouble());
        } else {
          assertEquals((short) calls, region.segment().getAtIndex(JAVA_SHORT, i));
          assertEquals((short) (calls - 1), result.getAtIndex(JAVA_SHORT, i));
        }
      }
    }
  }
}
