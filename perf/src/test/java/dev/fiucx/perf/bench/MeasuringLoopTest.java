package dev.fiucx.perf.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.DomainAttr;
import dev.fiucx.FiErrno;
import dev.fiucx.conformance.suite.RequiresProvider;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * bench's measuring loop, with one call in flight (its own loop) and with a window: every call it
 * counts reached the target exactly once, samples are recorded only when asked, a timed run stops,
 * and a refused call ends the run with the call's own errno and nothing done.
 */
@RequiresProvider("ucx")
class MeasuringLoopTest {
  @ParameterizedTest(name = "window {0}")
  @ValueSource(ints = {1, 8})
  void everyCountedCallReachedTheTargetOnce(int window) {
    try (LoopTarget s = new LoopTarget("shm", window, DomainAttr.Threading.DOMAIN)) {
      MeasuringLoop loop = s.loop(s.key());
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
    try (LoopTarget s = new LoopTarget("shm", window, DomainAttr.Threading.DOMAIN)) {
      MeasuringLoop loop = s.loop(s.key() + 1);
      assertEquals(-FiErrno.EKEYREJECTED, loop.run(100, 0, true));
      assertEquals(0, loop.completed());
      assertEquals(0, loop.histogram().getTotalCount());
      assertEquals(0, s.word());
    }
  }
}
