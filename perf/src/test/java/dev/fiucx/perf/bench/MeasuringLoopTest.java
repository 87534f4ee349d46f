package dev.fiucx.perf.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.AtomicFamily;
import dev.fiucx.CompletionQueue;
import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.Endpoint;
import dev.fiucx.Fabric;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.MemoryRegion;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * bench's measuring loop, with one call in flight (its own loop) and with a window: every call it
 * counts reached the target exactly once, samples are recorded only when asked, a timed run stops,
 * and a refused call ends the run with the call's own errno and nothing done.
 */
@RequiresProvider("ucx")
class MeasuringLoopTest {
  /** A manual-progress initiator with one endpoint on a target domain's 64-byte region. */
  private record Setup(
      Domain target,
      Domain me,
      Arena arena,
      MemoryRegion region,
      Endpoint ep,
      long peer,
      CompletionQueue cq)
      implements AutoCloseable {
    static Setup open(int window) {
      Domain target =
          Fabric.openDomain(
              "ucx", new DomainAttr("shm", DomainAttr.Progress.AUTO, false, Map.of()));
      Domain me = Fabric.openDomain("ucx", config(window).domainAttr());
      MemoryRegion region = target.allocateMemory(64, FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE);
      var av = me.openAddressVector();
      CompletionQueue cq = me.openCompletionQueue(Math.max(window, 16));
      Endpoint ep = me.openEndpoint();
      ep.bind(av);
      ep.bind(cq, FiFlags.TRANSMIT);
      ep.enable();
      long peer = av.insert(target.openEndpoint().name());
      return new Setup(target, me, Arena.ofShared(), region, ep, peer, cq);
    }

    MeasuringLoop loop(int window, long key) {
      CallPoster poster = new CallPoster(ep, config(window), peer, 0, key, window, arena);
      return new MeasuringLoop(poster, cq, window, new AtomicLong());
    }

    long word() {
      return region.segment().get(ValueLayout.JAVA_LONG, 0);
    }

    @Override
    public void close() {
      arena.close();
      me.close();
      target.close();
    }
  }

  private static BenchConfig config(int window) {
    return new BenchConfig(
        AtomicFamily.FETCH,
        FiOp.SUM,
        FiDatatype.UINT64,
        1,
        window,
        0,
        0,
        1,
        "shm",
        DomainAttr.Progress.MANUAL,
        null,
        null,
        DomainAttr.Threading.DOMAIN);
  }

  @ParameterizedTest(name = "window {0}")
  @ValueSource(ints = {1, 8})
  void everyCountedCallReachedTheTargetOnce(int window) {
    try (Setup s = Setup.open(window)) {
      MeasuringLoop loop = s.loop(window, s.region().key());
      assertEquals(0, loop.run(500, 0, true));
      assertEquals(500, loop.completed());
      assertEquals(500, loop.histogram().getTotalCount());
      assertEquals(500, s.word());
      // a clock-free run records nothing
      assertEquals(0, loop.run(300, 0, false));
      assertEquals(300, loop.completed());
      assertEquals(500, loop.histogram().getTotalCount());
      assertEquals(800, s.word());
      // a timed run stops by itself, after at least its duration
      assertEquals(0, loop.run(0, 20_000_000L, false));
      long timed = loop.completed();
      assertTrue(timed > 0, "no call in 20 ms");
      assertTrue(loop.endNanos() - loop.startNanos() >= 20_000_000L);
      assertEquals(800 + timed, s.word());
      assertEquals(0, loop.run(0, 20_000_000L, true));
      assertEquals(500 + loop.completed(), loop.histogram().getTotalCount());
      assertEquals(800 + timed + loop.completed(), s.word());
    }
  }

  @ParameterizedTest(name = "window {0}")
  @ValueSource(ints = {1, 8})
  void aRefusedCallEndsTheRunWithItsErrno(int window) {
    try (Setup s = Setup.open(window)) {
      MeasuringLoop loop = s.loop(window, s.region().key() + 1);
      assertEquals(-FiErrno.EKEYREJECTED, loop.run(100, 0, true));
      assertEquals(0, loop.completed());
      assertEquals(0, loop.histogram().getTotalCount());
      assertEquals(0, s.word());
    }
  }
}
