package dev.fiucx.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.FiErrno;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A target whose memory its NIC's atomics update says so when it answers a RESOLVE, and an
 * initiator whose own atomics are not device atomics (shared memory here: CPU atomics; tcp:
 * software atomics on the target) refuses that region: the resolve ends with FI_EOPNOTSUPP, the key
 * is not cached (so no operation reaches UCX, and nothing is mapped for the direct path), the
 * refusal is counted, and the same region answered as CPU-updated resolves as before. The answer is
 * given as such a target sends it, on the initiator's own endpoint; no device with UCP's whole
 * atomic set exists on this machine or in the Soft-RoCE VM (rxe has 64-bit fetch-add and
 * compare-swap only, so UCX runs its atomics in software there).
 */
@RequiresUcx
class IncoherentAtomicsTest {
  @ParameterizedTest
  @ValueSource(strings = {"shm", "tcp"})
  void aRegionUpdatedByDeviceAtomicsIsRefusedToAnInitiatorWithoutThem(String transports) {
    try (TransportPair pair = TransportPair.of(transports)) {
      assertTrue(pair.a.atomics().kind() != AtomicExecution.Kind.DEVICE);
      UcxExposedRegion region = (UcxExposedRegion) pair.b.allocate(8, Memory.RW);
      long refusedBefore = pair.a.errors().countOf("incoherent atomics");

      UcxPeer.PendingResolve resolving = pair.aToB.startResolve(region.key());
      pair.aToB.onResolveReply(reply(pair.aToB, resolving, region, true));
      assertTrue(resolving.done);
      assertEquals(-FiErrno.EOPNOTSUPP, resolving.status);
      assertNull(pair.aToB.cached(region.key()), "a refused region was cached");
      assertEquals(1, pair.a.errors().countOf("incoherent atomics") - refusedBefore);

      UcxPeer.PendingResolve again = pair.aToB.startResolve(region.key());
      pair.aToB.onResolveReply(reply(pair.aToB, again, region, false));
      assertEquals(0, again.status);
      assertNotNull(pair.aToB.cached(region.key()));
      assertEquals(region.segment().address(), pair.aToB.cached(region.key()).base());
      pair.revoke(region);
    }
  }

  private static ControlMessage.ResolveReply reply(
      UcxPeer peer, UcxPeer.PendingResolve resolving, UcxExposedRegion region, boolean device) {
    return new ControlMessage.ResolveReply(
        resolving.requestId,
        peer.id(),
        peer.secret(),
        true,
        device,
        region.segment().address(),
        region.segment().byteSize(),
        region.access(),
        region.packedRkey());
  }
}
