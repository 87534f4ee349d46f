package dev.fiucx.ucx;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;
import org.openucx.jucx.ucp.UcpEndpoint;

/** What a transport catches and drops is counted and shown by describe(). */
@RequiresUcx
class UcxErrorsTest {
  @Test
  void aMalformedControlMessageIsCountedAndTheTransportKeepsServing() {
    try (TransportPair pair = TransportPair.of("tcp");
        Arena arena = Arena.ofShared()) {
      assertEquals("none", pair.b.describe().get("ucx.errors"));
      UcpEndpoint raw = pair.a.openControlEndpoint(pair.b.address(), (status, text) -> {});
      MemorySegment garbage = arena.allocate(3);
      garbage.set(JAVA_BYTE, 0, (byte) 0x7f);
      raw.sendAmNonBlocking(
          ControlMessage.AM_RESOLVE,
          0,
          0,
          garbage.address(),
          garbage.byteSize(),
          UcxConstants.UCP_AM_SEND_FLAG_EAGER,
          null);
      long deadline = System.nanoTime() + TransportPair.TIMEOUT_NANOS;
      while (pair.b.errors().countOf("decoding a control message") == 0) {
        assertTrue(System.nanoTime() - deadline < 0, "the message was never counted");
        pair.progressBoth();
      }
      assertEquals("decoding a control message 1", pair.b.describe().get("ucx.errors"));
      var region = pair.b.allocate(8, Memory.RW);
      assertEquals(0, pair.resolve(region.key()), "a well-formed resolve is still answered");
      pair.a.closeEndpoint(raw, true);
    }
  }

  @Test
  void theSummaryListsEveryPlaceSorted() {
    UcxErrors errors = new UcxErrors();
    assertEquals("none", errors.summary());
    errors.peerCaused("b place", new IllegalArgumentException("x"));
    errors.caught("a place", new IllegalStateException("y"));
    errors.peerCaused("b place", new IllegalArgumentException("z"));
    assertEquals("a place 1, b place 2", errors.summary());
    assertEquals(2, errors.countOf("b place"));
    assertEquals(0, errors.countOf("nowhere"));
  }
}
