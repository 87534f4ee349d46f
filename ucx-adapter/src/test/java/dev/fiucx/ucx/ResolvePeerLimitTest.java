package dev.fiucx.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fiucx.spi.ExposedRegion;
import dev.fiucx.spi.ProcessIdentity;
import java.lang.foreign.Arena;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.openucx.jucx.ucp.UcpEndpoint;

/**
 * A process that speaks the control protocol by hand names a new peer number in every RESOLVE: the
 * target keeps at most {@link ServedInitiators#MAX_PEERS_PER_INITIATOR} of them per initiator,
 * refuses (and counts) every RESOLVE beyond, and still answers an honest initiator.
 */
@RequiresUcx
class ResolvePeerLimitTest {
  private static final int BEYOND = 8;

  @ParameterizedTest
  @ValueSource(strings = {"shm", "tcp"})
  void aTargetKeepsABoundedNumberOfPeersPerInitiator(String transports) {
    try (TransportPair pair = TransportPair.of(transports);
        UcxTransport forger =
            new UcxTransport(
                (token, status) -> {}, UcxOptions.defaults().withTransports(transports));
        Arena arena = Arena.ofShared()) {
      ExposedRegion region = pair.b.allocate(8, Memory.RW);
      UcpEndpoint ep = forger.openControlEndpoint(pair.b.address(), (status, text) -> {});
      HostileControlProcess.Sender sender =
          new HostileControlProcess.Sender(forger, ep, arena, pair.b::progress);
      long refusedBefore = pair.b.errors().countOf(ControlChannel.REFUSED);
      int sent = ServedInitiators.MAX_PEERS_PER_INITIATOR + BEYOND;
      for (int peer = 0; peer < sent; peer++) {
        sender.send(
            ControlMessage.AM_RESOLVE,
            new ControlMessage.Resolve(
                    peer,
                    region.key(),
                    forger.instanceId(),
                    peer,
                    forger.controlWorkerUuid(),
                    0x5ec2e7L + peer,
                    ProcessIdentity.self())
                .encode(),
            true);
      }
      long deadline = System.nanoTime() + TransportPair.TIMEOUT_NANOS;
      while (pair.b.control().initiators().peersOf(forger.instanceId())
                  + pair.b.errors().countOf(ControlChannel.REFUSED)
                  - refusedBefore
              < sent
          && System.nanoTime() - deadline < 0) {
        pair.b.progress();
        forger.progress();
      }
      assertEquals(
          ServedInitiators.MAX_PEERS_PER_INITIATOR,
          pair.b.control().initiators().peersOf(forger.instanceId()));
      assertEquals(BEYOND, pair.b.errors().countOf(ControlChannel.REFUSED) - refusedBefore);
      // a known number is still answered, and so is an honest initiator
      long refusedNow = pair.b.errors().countOf(ControlChannel.REFUSED);
      sender.send(
          ControlMessage.AM_RESOLVE,
          new ControlMessage.Resolve(
                  sent,
                  region.key(),
                  forger.instanceId(),
                  0,
                  forger.controlWorkerUuid(),
                  0x5ec2e7L,
                  ProcessIdentity.self())
              .encode(),
          true);
      for (int i = 0; i < 1024; i++) {
        pair.b.progress();
      }
      assertEquals(refusedNow, pair.b.errors().countOf(ControlChannel.REFUSED));
      assertEquals(0, pair.resolve(region.key()));
      forger.closeEndpoint(ep, false);
    }
  }
}
