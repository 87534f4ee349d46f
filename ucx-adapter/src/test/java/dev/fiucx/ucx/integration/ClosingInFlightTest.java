package dev.fiucx.ucx.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.AddressVector;
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
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Closing a domain whose endpoint has operations in flight (nothing read yet): the endpoint waits
 * for them while the domain still progresses, so the close ends within 5 s (not the 30 s fence
 * limit) with every operation applied, and closing it again does nothing.
 */
@RequiresProvider("ucx")
class ClosingInFlightTest {
  @ParameterizedTest(name = "{0}, {1} progress")
  @CsvSource({"shm, MANUAL", "shm, AUTO", "tcp, MANUAL", "tcp, AUTO"})
  void aDomainClosedWithOperationsInFlightDrainsThemFirst(
      String transport, DomainAttr.Progress progress) {
    try (Domain target =
            Fabric.openDomain(
                "ucx", new DomainAttr(transport, DomainAttr.Progress.AUTO, false, Map.of()));
        MemoryRegion region =
            target.allocateMemory(64, FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE);
        Arena arena = Arena.ofShared()) {
      Domain domain = Fabric.openDomain("ucx", new DomainAttr(transport, progress, false, null));
      CompletionQueue cq = domain.openCompletionQueue(128);
      AddressVector av = domain.openAddressVector();
      Endpoint ep = domain.openEndpoint();
      ep.bind(av);
      ep.bind(cq, FiFlags.TRANSMIT);
      ep.enable();
      long peer = av.insert(target.openEndpoint().name());
      MemorySegment one = arena.allocate(8, 8);
      one.set(ValueLayout.JAVA_LONG, 0, 1);
      MemorySegment results = arena.allocate(64 * 8, 8);
      for (int i = 0; i < 64; i++) {
        assertEquals(
            0,
            ep.fetchAtomic(
                one,
                1,
                null,
                results.asSlice(i * 8L, 8),
                null,
                peer,
                0,
                region.key(),
                FiDatatype.UINT64,
                FiOp.SUM,
                i));
      }
      long start = System.nanoTime();
      domain.close();
      long millis = (System.nanoTime() - start) / 1_000_000;
      assertTrue(millis < 5_000, "close took " + millis + " ms");
      assertEquals(64, region.segment().get(ValueLayout.JAVA_LONG, 0));
      domain.close();
    }
  }
}
