package dev.fiucx.perf.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fiucx.conformance.suite.RequiresProvider;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * bench's measuring loop allocates nothing per call, with samples recorded and a window of calls in
 * flight: measured with the JVM's per-thread allocation counter over whole runs, under manual
 * progress so every step runs on this thread; runs repeat (at most 30) while the JIT settles. Ten
 * were too few for tcp's 500 calls a run after a matrix ran in the same JVM on a loaded machine
 * (the compiler busy with every cell's methods): the tenth run once allocated 16 bytes a call; in a
 * JVM that had just run all 354 cells, runs 13 and 15 still allocated (72 and 328 bytes), none of
 * the 45 after them did.
 */
@RequiresProvider("ucx")
class MeasuringLoopAllocationTest {
  @ParameterizedTest(name = "{0}, window {1}")
  @CsvSource({"shm, 1, 20000", "shm, 16, 20000", "tcp, 8, 500"})
  void theLoopAllocatesNothing(String transport, int window, int calls) {
    try (LoopTarget t = new LoopTarget(transport, window, null)) {
      MeasuringLoop loop = t.loop(t.key());
      var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
      long allocated = -1;
      int runs = 0;
      while (allocated != 0 && runs < 30) {
        long before = threads.getCurrentThreadAllocatedBytes();
        assertEquals(0, loop.run(calls, 0, true));
        allocated = threads.getCurrentThreadAllocatedBytes() - before;
        runs++;
        assertEquals(calls, loop.completed());
      }
      assertEquals(0, allocated, "bytes allocated by the last run of " + calls + " calls");
      assertEquals((long) runs * calls, loop.histogram().getTotalCount());
      assertEquals((long) runs * calls, t.word());
    }
  }
}
