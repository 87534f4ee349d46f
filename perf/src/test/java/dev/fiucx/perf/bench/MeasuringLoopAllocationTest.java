package dev.fiucx.perf.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fiucx.AtomicFamily;
import dev.fiucx.CompletionQueue;
import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.Endpoint;
import dev.fiucx.Fabric;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.MemoryRegion;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * bench's measuring loop allocates nothing per call, with samples recorded and a window of calls in
 * flight: measured with the JVM's per-thread allocation counter over whole runs, under manual
 * progress so every step runs on this thread; runs repeat (at most 10) while the JIT settles.
 */
@RequiresProvider("ucx")
class MeasuringLoopAllocationTest {
  @ParameterizedTest(name = "{0}, window {1}")
  @CsvSource({"shm, 1, 20000", "shm, 16, 20000", "tcp, 8, 500"})
  void theLoopAllocatesNothing(String transport, int window, int calls) {
    BenchConfig cfg =
        new BenchConfig(
            AtomicFamily.FETCH,
            FiOp.SUM,
            FiDatatype.UINT64,
            1,
            window,
            calls,
            0,
            1,
            transport,
            DomainAttr.Progress.MANUAL,
            null,
            null,
            null);
    try (Domain target =
            Fabric.openDomain(
                "ucx", new DomainAttr(transport, DomainAttr.Progress.AUTO, false, Map.of()));
        Domain me = Fabric.openDomain("ucx", cfg.domainAttr());
        Arena arena = Arena.ofShared()) {
      MemoryRegion region = target.allocateMemory(64, FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE);
      var av = me.openAddressVector();
      CompletionQueue cq = me.openCompletionQueue(window);
      Endpoint ep = me.openEndpoint();
      ep.bind(av);
      ep.bind(cq, FiFlags.TRANSMIT);
      ep.enable();
      long peer = av.insert(target.openEndpoint().name());
      CallPoster poster = new CallPoster(ep, cfg, peer, 0, region.key(), window, arena);
      MeasuringLoop loop = new MeasuringLoop(poster, cq, window, new AtomicLong());
      var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
      long allocated = -1;
      int runs = 0;
      while (allocated != 0 && runs < 10) {
        long before = threads.getCurrentThreadAllocatedBytes();
        assertEquals(0, loop.run(calls, 0, true));
        allocated = threads.getCurrentThreadAllocatedBytes() - before;
        runs++;
        assertEquals(calls, loop.completed());
      }
      assertEquals(0, allocated, "bytes allocated by the last run of " + calls + " calls");
      assertEquals((long) runs * calls, loop.histogram().getTotalCount());
      assertEquals((long) runs * calls, region.segment().get(ValueLayout.JAVA_LONG, 0));
    }
  }
}
