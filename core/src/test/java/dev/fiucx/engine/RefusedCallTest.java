package dev.fiucx.engine;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fiucx.AddressVector;
import dev.fiucx.CompletionQueue;
import dev.fiucx.DomainAttr;
import dev.fiucx.Endpoint;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.Ioc;
import dev.fiucx.MemoryRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A call refused after some of its buffers were read leaves none of them for the next call: the
 * element walks are cleared on every refusal.
 */
class RefusedCallTest {
  private static EngineDomain open() {
    return new EngineDomain(
        "loopback",
        new DomainAttr(null, DomainAttr.Progress.MANUAL, false, Map.of()),
        LoopbackTransport::new);
  }

  private static Endpoint enabled(EngineDomain domain, AddressVector av, CompletionQueue cq) {
    Endpoint ep = domain.openEndpoint();
    ep.bind(av);
    ep.bind(cq, FiFlags.TRANSMIT);
    ep.enable();
    return ep;
  }

  /**
   * A compare vector call without compare values is refused, not carried out with the compare
   * values of the refused call before it.
   */
  @Test
  void aRefusedCallLeavesNoBuffersForTheNext() {
    try (EngineDomain domain = open();
        Arena arena = Arena.ofConfined();
        MemoryRegion mr = domain.allocateMemory(64, FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE);
        AddressVector av = domain.openAddressVector();
        CompletionQueue cq = domain.openCompletionQueue(8)) {
      Endpoint ep = enabled(domain, av, cq);
      long peer = av.insert(ep.name());
      MemorySegment swap = arena.allocate(8, 8);
      swap.set(JAVA_LONG, 0, 7);
      MemorySegment compare = arena.allocate(8, 8); // 0: what the target holds
      MemorySegment old = arena.allocate(8, 8);
      Ioc[] swaps = {new Ioc(swap, 1)};
      Ioc[] compares = {new Ioc(compare, 1)};
      Ioc[] results = {new Ioc(old, 1)};
      dev.fiucx.AtomicMsg msg =
          new dev.fiucx.AtomicMsg(
              swaps,
              null,
              peer,
              new dev.fiucx.RmaIoc[] {new dev.fiucx.RmaIoc(0, 1, mr.key())},
              FiDatatype.UINT64,
              FiOp.CSWAP,
              null,
              0);

      // its compare iovs are read, then its result iovs refused
      assertEquals(-FiErrno.EINVAL, ep.compareAtomicmsg(msg, compares, null, 1, null, null, 1, 0));
      // no compare values: refused, whatever the call before read
      assertEquals(
          -FiErrno.EINVAL,
          ep.compareAtomicv(
              swaps,
              null,
              1,
              null,
              null,
              0,
              results,
              null,
              1,
              peer,
              0,
              mr.key(),
              FiDatatype.UINT64,
              FiOp.CSWAP,
              null));
      assertEquals(0L, mr.segment().get(JAVA_LONG, 0), "nothing was swapped");
      ep.close();
    }
  }
}
