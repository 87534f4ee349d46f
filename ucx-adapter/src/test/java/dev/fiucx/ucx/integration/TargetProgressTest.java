package dev.fiucx.ucx.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fiucx.DomainAttr;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import dev.fiucx.conformance.remote.Initiator;
import dev.fiucx.conformance.remote.RemoteTarget;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A target process that only exposes registered memory and does nothing else: UCX runs the atomics
 * on such memory in software, inside the target's progress, so the target's domain must progress by
 * itself (automatic progress, the default).
 */
@RequiresProvider("ucx")
class TargetProgressTest {
  @ParameterizedTest
  @ValueSource(strings = {"shm", "tcp"})
  void aTargetThatOnlyExposesRegisteredMemoryServesItsPeers(String transport) {
    try (Arena arena = Arena.ofConfined();
        RemoteTarget target = new RemoteTarget("ucx", transport, 64, true, false, List.of());
        Initiator ini = new Initiator("ucx", transport, DomainAttr.Progress.MANUAL)) {
      long peer = ini.av.insert(target.address());
      MemorySegment three = arena.allocate(8, 8);
      three.set(ValueLayout.JAVA_LONG, 0, 3);
      MemorySegment result = arena.allocate(8, 8);
      for (long i = 0; i < 1000; i++) {
        assertEquals(
            0,
            ini.ep.fetchAtomic(
                three,
                1,
                null,
                result,
                null,
                peer,
                8,
                target.key(),
                FiDatatype.INT64,
                FiOp.SUM,
                null));
        ini.awaitCompletion();
        assertEquals(3 * i, result.get(ValueLayout.JAVA_LONG, 0));
      }
      assertEquals(
          3000, ByteBuffer.wrap(target.get(8, 8)).order(ByteOrder.LITTLE_ENDIAN).getLong());
    }
  }
}
