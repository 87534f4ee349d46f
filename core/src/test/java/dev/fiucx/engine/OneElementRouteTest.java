package dev.fiucx.engine;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fiucx.AddressVector;
import dev.fiucx.CompletionQueue;
import dev.fiucx.CqEntry;
import dev.fiucx.DomainAttr;
import dev.fiucx.Endpoint;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.MemoryRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One-element calls to where the last one went take the endpoint's route, over a transport that
 * maps its regions (the element is done on the mapping in the call) and one that does not (it is
 * started through the transport, as a checked call's is). A bad call on the route is refused
 * exactly as the same call on a fresh endpoint, which has no route; it changes nothing, and the
 * route goes on after it.
 */
class OneElementRouteTest {
  /**
   * @param mapped whether the transport maps its regions into this process
   */
  private static EngineDomain open(boolean mapped) {
    return new EngineDomain(
        "loopback",
        new DomainAttr(null, DomainAttr.Progress.MANUAL, false, Map.of()),
        completions -> new LoopbackTransport(completions, mapped));
  }

  private static Endpoint enabled(EngineDomain domain, AddressVector av, CompletionQueue cq) {
    Endpoint ep = domain.openEndpoint();
    ep.bind(av);
    ep.bind(cq, FiFlags.TRANSMIT);
    ep.enable();
    return ep;
  }

  /** Waits for the one completion of the call just posted and says whose it was. */
  private static Object completion(EngineDomain domain, CompletionQueue cq) {
    CqEntry[] entries = {new CqEntry()};
    int n;
    while ((n = cq.read(entries, 1)) == -FiErrno.EAGAIN) {
      domain.progress();
    }
    assertEquals(1, n);
    return entries[0].opContext;
  }

  @ParameterizedTest(name = "mapped {0}")
  @ValueSource(booleans = {false, true})
  void aBadCallOnTheRouteIsRefusedAsOnAFreshEndpointAndTheRouteGoesOn(boolean mapped) {
    try (EngineDomain domain = open(mapped);
        Arena arena = Arena.ofConfined();
        MemoryRegion mr = domain.allocateMemory(64, FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE);
        AddressVector av = domain.openAddressVector();
        CompletionQueue cq = domain.openCompletionQueue(8)) {
      Endpoint routed = enabled(domain, av, cq);
      long peer = av.insert(routed.name());
      MemorySegment one = arena.allocate(8, 8);
      one.set(JAVA_LONG, 0, 1);
      MemorySegment result = arena.allocate(8, 8);
      for (long i = 0; i < 5; i++) {
        assertEquals(0, fetchAdd(routed, one, result, peer, 8, mr.key(), i));
        assertEquals(i, completion(domain, cq));
        assertEquals(i, result.get(JAVA_LONG, 0), "old value of call " + i);
      }

      MemorySegment shortOperand = arena.allocate(4, 4);
      MemorySegment heapResult = MemorySegment.ofArray(new long[1]);
      Object[][] bad = {
        {"misaligned", one, result, 12L},
        {"past the end", one, result, 64L},
        {"before the start", one, result, -8L},
        {"read-only result", one, result.asReadOnly(), 8L},
        {"no result", one, null, 8L},
        {"heap result", one, heapResult, 8L},
        {"short operand", shortOperand, result, 8L},
      };
      for (Object[] b : bad) {
        Endpoint fresh = enabled(domain, av, cq);
        int expected =
            fetchAdd(
                fresh, (MemorySegment) b[1], (MemorySegment) b[2], peer, (long) b[3], mr.key(), 0);
        fresh.close();
        int onRoute =
            fetchAdd(
                routed, (MemorySegment) b[1], (MemorySegment) b[2], peer, (long) b[3], mr.key(), 0);
        assertEquals(expected, onRoute, (String) b[0]);
        assertEquals(true, onRoute < 0, b[0] + " is refused");
        assertEquals(5L, mr.segment().get(JAVA_LONG, 8), b[0] + " changed nothing");
      }

      assertEquals(0, fetchAdd(routed, one, result, peer, 8, mr.key(), "after"));
      assertEquals("after", completion(domain, cq));
      assertEquals(5L, result.get(JAVA_LONG, 0), "the route goes on after the refusals");

      av.remove(peer);
      assertEquals(-FiErrno.EADDRNOTAVAIL, fetchAdd(routed, one, result, peer, 8, mr.key(), 0));
      routed.close();
    }
  }

  private static int fetchAdd(
      Endpoint ep,
      MemorySegment operand,
      MemorySegment result,
      long peer,
      long addr,
      long key,
      Object context) {
    return ep.fetchAtomic(
        operand, 1, null, result, null, peer, addr, key, FiDatatype.UINT64, FiOp.SUM, context);
  }
}
