package dev.fiucx.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.spi.ExposedRegion;
import dev.fiucx.spi.RemoteRegion;
import java.lang.foreign.Arena;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.openucx.jucx.ucp.UcpEndpoint;

/**
 * A target's messages to an initiator (RESOLVE_REPLY, REVOKE) count only when they come on the
 * initiator's own endpoint to that target. A third worker that knows the initiator's address sends
 * it, with and without UCX's reply flag, a "not found" for the very request it has in flight and a
 * REVOKE of a key it resolved: each is refused and counted, the resolve still ends with the
 * target's true answer, and the resolved key stays as it was.
 */
@RequiresUcx
class ForgedTargetMessagesTest {
  private static final long TIMEOUT_NANOS = 10_000_000_000L;

  @ParameterizedTest
  @ValueSource(strings = {"shm", "tcp"})
  void aThirdWorkerCannotAnswerOrRevokeForTheTarget(String transports) {
    try (TransportPair pair = TransportPair.of(transports);
        UcxTransport forger =
            new UcxTransport(
                (token, status) -> {}, UcxOptions.defaults().withTransports(transports));
        Arena arena = Arena.ofShared()) {
      ExposedRegion resolved = pair.b.allocate(8, Memory.RW);
      ExposedRegion asked = pair.b.allocate(8, Memory.RW);
      assertEquals(0, pair.resolve(resolved.key()));
      RemoteRegion cached = pair.aToB.cached(resolved.key());
      // in flight: B is not progressed until the forgeries were handled, so its answer waits
      UcxPeer.PendingResolve inFlight = pair.aToB.startResolve(asked.key());
      int peer = pair.aToB.id();

      UcpEndpoint ep = forger.openControlEndpoint(pair.a.address(), (status, text) -> {});
      HostileControlProcess.Sender sender =
          new HostileControlProcess.Sender(forger, ep, arena, pair.a::progress);
      long refusedBefore = pair.a.errors().countOf(ControlChannel.REFUSED);
      long guess = pair.aToB.secret() ^ 1;
      for (boolean replyFlag : new boolean[] {true, false}) {
        sender.send(
            ControlMessage.AM_RESOLVE_REPLY,
            new ControlMessage.ResolveReply(
                    inFlight.requestId, peer, guess, false, false, 0, 0, 0, new byte[0])
                .encode(),
            replyFlag);
        sender.send(
            ControlMessage.AM_REVOKE,
            new ControlMessage.Revoke(resolved.key(), peer, guess).encode(),
            replyFlag);
      }
      long deadline = System.nanoTime() + TIMEOUT_NANOS;
      while (pair.a.errors().countOf(ControlChannel.REFUSED) - refusedBefore < 4) {
        assertTrue(System.nanoTime() - deadline < 0, "A did not get the forged messages");
        pair.a.progress();
        forger.progress();
      }
      assertEquals(4, pair.a.errors().countOf(ControlChannel.REFUSED) - refusedBefore);
      assertFalse(inFlight.done, "a forged 'not found' ended the resolve");
      assertFalse(cached.revoked(), "a forged REVOKE dropped the key");
      assertSame(cached, pair.aToB.cached(resolved.key()));

      while (!inFlight.done) {
        assertTrue(System.nanoTime() - deadline < 0, "B's answer did not come");
        pair.progressBoth();
      }
      assertEquals(0, inFlight.status);
      assertEquals(asked.segment().address(), pair.aToB.cached(asked.key()).base());
      assertEquals(4, pair.a.errors().countOf(ControlChannel.REFUSED) - refusedBefore);

      sender.send(
          ControlMessage.AM_REVOKE,
          new ControlMessage.Revoke(resolved.key(), peer, pair.aToB.secret()).encode(),
          false);
      while (!cached.revoked()) {
        assertTrue(System.nanoTime() - deadline < 0, "the REVOKE with the secret was not taken");
        pair.progressBoth();
        forger.progress();
      }
      assertEquals(4, pair.a.errors().countOf(ControlChannel.REFUSED) - refusedBefore);
      forger.closeEndpoint(ep, false);
      pair.revoke((UcxExposedRegion) resolved);
      pair.revoke((UcxExposedRegion) asked);
    }
  }
}
