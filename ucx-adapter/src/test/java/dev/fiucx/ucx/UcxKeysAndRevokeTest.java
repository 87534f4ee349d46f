package dev.fiucx.ucx;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.spi.ExposedRegion;
import dev.fiucx.spi.RemoteAtomicOp;
import dev.fiucx.spi.RemoteRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Keys: resolution, the cache, unknown keys, and revocation on close. */
@RequiresUcx
class UcxKeysAndRevokeTest {
  @ParameterizedTest
  @ValueSource(strings = {"shm", "shm-ucp", "tcp"})
  void resolveCachesWhatTheTargetExposed(String transports) {
    try (TransportPair pair = TransportPair.of(transports);
        Arena arena = Arena.ofConfined()) {
      MemorySegment mine = arena.allocate(40, 8);
      ExposedRegion region = pair.b.register(mine, FiFlags.REMOTE_READ);
      assertNull(pair.aToB.cached(region.key()), "nothing cached before resolve");

      assertEquals(0, pair.resolve(region.key()));

      RemoteRegion remote = pair.aToB.cached(region.key());
      assertNotNull(remote);
      assertEquals(mine.address(), remote.base());
      assertEquals(40, remote.length());
      assertEquals(FiFlags.REMOTE_READ, remote.access());
      assertFalse(remote.revoked());
      assertNull(pair.bToA.cached(region.key()), "B's own peer to A resolved nothing");

      // asking again keeps the same region (and rkey) rather than unpacking a second one
      assertEquals(0, pair.resolve(region.key()));
      assertSame(remote, pair.aToB.cached(region.key()));
      pair.revoke((UcxExposedRegion) region);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"shm", "shm-ucp", "tcp"})
  void blockingResolveWaitsForThePeer(String transports) {
    try (TransportPair pair = TransportPair.of(transports)) {
      ExposedRegion region = pair.b.allocate(16, Memory.RW);
      // the SPI's resolve progresses only A; B answers from its own thread, as a peer process would
      int status = pair.withBProgressing(() -> pair.aToB.resolve(region.key()));
      assertEquals(0, status);
      assertEquals(region.segment().address(), pair.aToB.cached(region.key()).base());
      int unknown = pair.withBProgressing(() -> pair.aToB.resolve(region.key() ^ 1));
      assertEquals(-FiErrno.EKEYREJECTED, unknown);
      pair.revoke((UcxExposedRegion) region);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"shm", "shm-ucp", "tcp"})
  void unknownKeyIsRejected(String transports) {
    try (TransportPair pair = TransportPair.of(transports)) {
      ExposedRegion region = pair.b.allocate(8, Memory.RW);
      long unknown = region.key() + 1;
      assertEquals(-FiErrno.EKEYREJECTED, pair.resolve(unknown));
      assertNull(pair.aToB.cached(unknown));
      // a key of A is not a key of B
      ExposedRegion ofA = pair.a.allocate(8, Memory.RW);
      assertEquals(-FiErrno.EKEYREJECTED, pair.resolve(ofA.key()));
      pair.revoke((UcxExposedRegion) region);
      ofA.close(); // nobody resolved it: unmapped at once
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"shm", "shm-ucp", "tcp"})
  void closingARegionRevokesItAtEveryPeerThatResolvedIt(String transports) {
    try (TransportPair pair = TransportPair.of(transports);
        Arena arena = Arena.ofConfined()) {
      ExposedRegion region = pair.b.allocate(8, Memory.RW);
      long key = region.key();
      assertEquals(0, pair.resolve(key));
      UcxPeer second = (UcxPeer) pair.a.connect(pair.b.address());
      UcxPeer.PendingResolve p = second.startResolve(key);
      while (!p.done) {
        pair.progressBoth();
      }
      assertEquals(0, p.status);
      RemoteRegion viaFirst = pair.aToB.cached(key);
      RemoteRegion viaSecond = second.cached(key);

      // an operation in flight when the revoke starts still completes before the unmap
      MemorySegment result = arena.allocate(8, 8);
      long token = pair.token();
      int posted =
          pair.aToB.postAtomic(viaFirst, 0, RemoteAtomicOp.ADD, 8, 5, result.address(), token);
      UcxExposedRegion exposed = (UcxExposedRegion) region;
      exposed.beginRevoke();
      assertFalse(exposed.revokeDone(), "waits for both peers' acknowledgements");
      assertEquals(0, pair.complete(posted, token));
      assertEquals(0L, result.get(JAVA_LONG, 0));
      assertEquals(5L, region.segment().get(JAVA_LONG, 0));
      pair.revoke(exposed);

      assertTrue(viaFirst.revoked());
      assertTrue(viaSecond.revoked());
      assertTrue(exposed.isClosed());
      assertEquals(-FiErrno.EKEYREJECTED, pair.resolve(key), "the key is gone");
      second.close();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"shm", "shm-ucp", "tcp"})
  void blockingCloseOfARegionWaitsForTheAcknowledgement(String transports) {
    try (TransportPair pair = TransportPair.of(transports)) {
      // here A exposes and B resolves, so that A's blocking close runs on the test thread
      ExposedRegion region = pair.a.allocate(8, Memory.RW);
      UcxPeer.PendingResolve p = pair.bToA.startResolve(region.key());
      while (!p.done) {
        pair.progressBoth();
      }
      assertEquals(0, p.status);
      long start = System.nanoTime();
      pair.withBProgressing(
          () -> {
            region.close();
            return null;
          });
      assertTrue(
          System.nanoTime() - start < pair.a.controlTimeoutNanos(), "acknowledged, not timed out");
      assertTrue(pair.bToA.cached(region.key()).revoked());
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"shm", "shm-ucp", "tcp"})
  void aPeerThatClosesIsNotWaitedFor(String transports) {
    try (TransportPair pair = TransportPair.of(transports)) {
      ExposedRegion region = pair.b.allocate(8, Memory.RW);
      UcxPeer extra = (UcxPeer) pair.a.connect(pair.b.address());
      UcxPeer.PendingResolve p = extra.startResolve(region.key());
      while (!p.done) {
        pair.progressBoth();
      }
      assertEquals(0, p.status);
      Thread t = Thread.ofPlatform().start(extra::close); // sends RELEASE, closes its endpoint
      while (t.isAlive()) {
        pair.b.progress();
      }
      long start = System.nanoTime();
      pair.b.progress();
      region.close(); // nobody left to ask: no waiting for the timeout
      assertTrue(System.nanoTime() - start < pair.b.controlTimeoutNanos() / 2);
    }
  }

  /**
   * A peer that closes right after its last resolve still reaches the target with its RELEASE, even
   * over tcp to its own worker (as the native self-test of every domain does): the RELEASE once
   * completed locally and was lost in the close, and every tcp domain's open then waited out the
   * control timeout for an acknowledgement nobody would send.
   */
  @ParameterizedTest
  @ValueSource(strings = {"shm", "shm-ucp", "tcp"})
  void aPeerOfItsOwnWorkerReleasesItsKeysWhenItCloses(String transports) {
    try (TransportPair pair = TransportPair.of(transports)) {
      UcxTransport t = pair.a;
      ExposedRegion region = t.allocate(8, Memory.RW);
      UcxPeer self = (UcxPeer) t.connect(t.address());
      UcxPeer.PendingResolve p = self.startResolve(region.key());
      long deadline = System.nanoTime() + TransportPair.TIMEOUT_NANOS;
      while (!p.done) {
        assertTrue(System.nanoTime() - deadline < 0, "no answer to resolve");
        t.progress();
      }
      assertEquals(0, p.status);
      assertEquals(1, t.control().initiators().served());
      self.close();
      t.progress();
      assertEquals(0, t.control().initiators().served(), "the RELEASE arrived");
      UcxExposedRegion exposed = (UcxExposedRegion) region;
      exposed.beginRevoke();
      assertTrue(exposed.revokeDone(), "no user left to acknowledge: unmapped at once");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"shm", "shm-ucp", "tcp"})
  void aClosedPeerRefusesPostsAndResolves(String transports) {
    try (TransportPair pair = TransportPair.of(transports)) {
      ExposedRegion region = pair.b.allocate(8, Memory.RW);
      UcxPeer extra = (UcxPeer) pair.a.connect(pair.b.address());
      UcxPeer.PendingResolve p = extra.startResolve(region.key());
      while (!p.done) {
        pair.progressBoth();
      }
      RemoteRegion remote = extra.cached(region.key());
      Thread t = Thread.ofPlatform().start(extra::close);
      while (t.isAlive()) {
        pair.b.progress();
      }
      assertTrue(extra.failed());
      assertTrue(remote.revoked(), "a closed peer's regions are unusable");
      assertEquals(-FiErrno.EBADF, extra.postAtomic(remote, 0, RemoteAtomicOp.ADD, 8, 1, 0, 1));
      assertEquals(-FiErrno.EBADF, extra.postCompareSwap(remote, 0, 8, 0, 1, 8, 2));
      assertEquals(-FiErrno.EBADF, extra.resolve(region.key()));
      assertEquals(0L, region.segment().get(JAVA_LONG, 0));
      pair.revoke((UcxExposedRegion) region);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"shm", "shm-ucp", "tcp"})
  void keysAreNonZeroAndUnique(String transports) {
    try (TransportPair pair = TransportPair.of(transports)) {
      Set<Long> keys = new HashSet<>();
      Set<ExposedRegion> regions = new HashSet<>();
      for (int i = 0; i < 64; i++) {
        ExposedRegion r = pair.b.allocate(8, Memory.RW);
        assertNotEquals(0L, r.key());
        assertTrue(keys.add(r.key()), "duplicate key");
        regions.add(r);
      }
      regions.forEach(ExposedRegion::close);
    }
  }
}
