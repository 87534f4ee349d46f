package dev.fiucx.ucx;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.FiErrno;
import dev.fiucx.spi.ExposedRegion;
import dev.fiucx.spi.RemoteAtomicOp;
import dev.fiucx.spi.TransportPeer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * Over tcp (peer-failure detection on, so UCX may purge requests) a fetching atomic with every
 * request slot in flight is refused with -FI_EAGAIN instead of taking a request from UCX's pool;
 * once the target progresses and the slots come back, posts go out again.
 */
@RequiresUcx
class UcxRequestSlotsTest {
  private static final int SLOTS = 4;

  @Test
  void fetchesBeyondTheSlotsAreRefusedUntilOneComesBack() {
    RecordingCompletions done = new RecordingCompletions();
    UcxOptions tcp = UcxOptions.defaults().withTransports("tcp");
    UcxTransport a = new UcxTransport(done, tcp, SLOTS);
    UcxTransport b = new UcxTransport((token, status) -> {}, tcp);
    try (Arena arena = Arena.ofConfined()) {
      ExposedRegion target = b.allocate(8, Memory.RW);
      UcxPeer aToB = (UcxPeer) a.connect(b.address());
      UcxPeer.PendingResolve resolving = aToB.startResolve(target.key());
      long deadline = System.nanoTime() + TransportPair.TIMEOUT_NANOS;
      while (!resolving.done) {
        assertTrue(System.nanoTime() - deadline < 0, "no answer to resolve");
        a.progress();
        b.progress();
      }
      assertEquals(0, resolving.status);
      var remote = aToB.cached(target.key());
      MemorySegment results = arena.allocate(8L * (SLOTS + 1), 8);

      // the target does not progress: software atomics over tcp stay in flight
      for (int i = 0; i < SLOTS; i++) {
        int rc =
            aToB.postAtomic(remote, 0, RemoteAtomicOp.ADD, 8, 1, results.address() + 8L * i, i);
        assertEquals(TransportPeer.PENDING, rc, "post " + i);
      }
      long last = results.address() + 8L * SLOTS;
      assertEquals(
          -FiErrno.EAGAIN, aToB.postAtomic(remote, 0, RemoteAtomicOp.ADD, 8, 1, last, SLOTS));
      assertEquals(
          -FiErrno.EAGAIN, aToB.postCompareSwap(remote, 0, 8, 0, 1, last, SLOTS), "CSWAP too");
      assertEquals(
          "4 for fetching atomics in flight, 4 in use; 2 posts refused with FI_EAGAIN when all were"
              + " in use",
          a.describe().get("ucx.request_slots"));

      while (done.count() < SLOTS) {
        assertTrue(System.nanoTime() - deadline < 0, "the fetches never completed");
        a.progress();
        b.progress();
      }
      for (int i = 0; i < SLOTS; i++) {
        assertEquals(0, done.status(i));
      }
      assertEquals(SLOTS, target.segment().get(JAVA_LONG, 0), "each refused post did nothing");

      int rc = aToB.postAtomic(remote, 0, RemoteAtomicOp.ADD, 8, 1, last, SLOTS);
      assertEquals(TransportPeer.PENDING, rc, "a slot came back");
      while (done.status(SLOTS) == null) {
        assertTrue(System.nanoTime() - deadline < 0, "the last fetch never completed");
        a.progress();
        b.progress();
      }
      assertEquals(SLOTS, results.get(JAVA_LONG, 8L * SLOTS));
    } finally {
      TransportPair.closeBoth(a, b);
    }
  }
}
