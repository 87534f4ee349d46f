package dev.fiucx.ucx;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.spi.ExposedRegion;
import dev.fiucx.spi.RemoteAtomicOp;
import dev.fiucx.spi.TransportCompletions;
import dev.fiucx.spi.TransportPeer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A completion handler that throws inside UCX's callback: nothing escapes into native code, the
 * exception comes out of the transport's next progress (where the domain counts it and hands it to
 * the application), and the transport goes on completing operations.
 */
@RequiresUcx
class UcxCompletionHandlerFailureTest {
  @Test
  void aThrowingHandlerSurfacesFromProgressOnceAndTheTransportKeepsServing() {
    AtomicReference<RuntimeException> throwNext = new AtomicReference<>();
    RecordingCompletions recorded = new RecordingCompletions();
    TransportCompletions handler =
        (token, status) -> {
          recorded.completed(token, status);
          RuntimeException e = throwNext.getAndSet(null);
          if (e != null) {
            throw e;
          }
        };
    UcxOptions tcp = UcxOptions.defaults().withTransports("tcp");
    UcxTransport a = new UcxTransport(handler, tcp);
    UcxTransport b = new UcxTransport((token, status) -> {}, tcp);
    try (Arena arena = Arena.ofConfined()) {
      ExposedRegion target = b.allocate(8, Memory.RW);
      UcxPeer peer = (UcxPeer) a.connect(b.address());
      UcxPeer.PendingResolve resolving = peer.startResolve(target.key());
      long deadline = System.nanoTime() + TransportPair.TIMEOUT_NANOS;
      while (!resolving.done) {
        assertTrue(System.nanoTime() - deadline < 0, "no answer to resolve");
        a.progress();
        b.progress();
      }
      var remote = peer.cached(target.key());
      MemorySegment result = arena.allocate(8, 8);

      RuntimeException injected = new IllegalStateException("the handler fails");
      throwNext.set(injected);
      int rc = peer.postAtomic(remote, 0, RemoteAtomicOp.ADD, 8, 5, result.address(), 1);
      assertEquals(TransportPeer.PENDING, rc);
      RuntimeException surfaced = null;
      while (surfaced == null) {
        assertTrue(System.nanoTime() - deadline < 0, "the exception never surfaced");
        b.progress();
        try {
          a.progress();
        } catch (RuntimeException e) {
          surfaced = e;
        }
      }
      assertSame(injected, surfaced);
      assertEquals(0, recorded.status(1), "the operation itself completed");

      rc = peer.postAtomic(remote, 0, RemoteAtomicOp.ADD, 8, 1, result.address(), 2);
      assertEquals(TransportPeer.PENDING, rc);
      while (recorded.status(2) == null) {
        assertTrue(System.nanoTime() - deadline < 0, "no completion after the failure");
        a.progress();
        b.progress();
      }
      assertEquals(5, result.get(JAVA_LONG, 0));
      assertEquals(6, target.segment().get(JAVA_LONG, 0));
      a.progress(); // nothing else was deferred: quiet
    } finally {
      TransportPair.closeBoth(a, b);
    }
  }
}
