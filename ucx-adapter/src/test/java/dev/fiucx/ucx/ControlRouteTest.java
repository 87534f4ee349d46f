package dev.fiucx.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.spi.ExposedRegion;
import dev.fiucx.spi.RemoteAtomicOp;
import dev.fiucx.spi.RemoteRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * Where control messages go: between the two transports' control workers (tcp) where both have one,
 * else on the data endpoint, where resolve, revoke and release work as they did before the control
 * worker (a peer whose address names no control worker: an older or a tcp-less one).
 */
@RequiresUcx
class ControlRouteTest {
  @Test
  void peersWithControlWorkersSendControlOverTcpAndDataOverSharedMemory() {
    try (TransportPair pair = TransportPair.of("shm")) {
      assertTrue(pair.aToB.controlLanes().contains("tcp/"), pair.aToB.controlLanes());
      assertTrue(!pair.aToB.lanes().contains("tcp/"), pair.aToB.lanes());
      ExposedRegion region = pair.b.allocate(8, Memory.RW);
      assertEquals(0, pair.resolve(region.key()));
      assertEquals(1, pair.b.control().initiators().served());
    }
  }

  @Test
  void aPeerWhoseAddressNamesNoControlWorkerGetsControlOnItsDataEndpoint() {
    try (TransportPair pair = TransportPair.of("shm");
        Arena arena = Arena.ofConfined()) {
      UcxAddress b = UcxAddress.read(pair.b.address());
      UcxPeer dataOnly = (UcxPeer) pair.a.connect(new UcxAddress(b.data(), null).encode());
      assertEquals("none (control goes on the data endpoint)", dataOnly.controlLanes());
      ExposedRegion region = pair.b.allocate(8, Memory.RW);
      UcxPeer.PendingResolve p = dataOnly.startResolve(region.key());
      long deadline = System.nanoTime() + TransportPair.TIMEOUT_NANOS;
      while (!p.done) {
        assertTrue(System.nanoTime() - deadline < 0, "no answer to resolve");
        pair.progressBoth();
      }
      assertEquals(0, p.status);
      assertEquals(1, pair.b.control().initiators().served());
      RemoteRegion remote = dataOnly.cached(region.key());
      MemorySegment fetched = arena.allocate(8, 8);
      long token = pair.token();
      int posted =
          dataOnly.postAtomic(remote, 0, RemoteAtomicOp.ADD, 8, 5, fetched.address(), token);
      assertEquals(0, pair.complete(posted, token));
      assertEquals(5, region.segment().get(ValueLayout.JAVA_LONG, 0));

      pair.revoke((UcxExposedRegion) region); // the REVOKE and its acknowledgement: data endpoint
      assertTrue(remote.revoked());

      Thread closer = Thread.ofPlatform().start(dataOnly::close);
      deadline = System.nanoTime() + TransportPair.TIMEOUT_NANOS;
      while (closer.isAlive() || pair.b.control().initiators().served() != 0) {
        assertTrue(System.nanoTime() - deadline < 0, "the RELEASE did not arrive");
        pair.b.progress();
      }
    }
  }
}
