package dev.fiucx.ucx;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fiucx.spi.ExposedRegion;
import dev.fiucx.spi.RemoteAtomicOp;
import dev.fiucx.spi.TransportCompletions;
import dev.fiucx.spi.TransportPeer;
import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The posting path allocates nothing once compiled: cached(), postAtomic(), the completion upcall
 * and progress(), measured with the JVM's per-thread allocation counter over whole rounds of
 * fetch-adds. Rounds repeat (at most {@link #MAX_ROUNDS}) while the JIT is still settling, which
 * allocates on its own; a single round of zero bytes is only possible if no post allocates.
 */
@RequiresUcx
class HotPathAllocationTest {
  private static final int MAX_ROUNDS = 10;

  /** Counts completions without allocating (the recording one boxes). */
  private static final class Counter implements TransportCompletions {
    long completed;
    int lastStatus;

    @Override
    public void completed(long token, int status) {
      completed++;
      lastStatus = status;
    }
  }

  @ParameterizedTest(name = "{0} {1} fetch={3}")
  @CsvSource({
    "shm, ALLOCATED, 20000, true",
    "shm, ALLOCATED, 20000, false",
    "shm, REGISTERED, 10000, true",
    "tcp, REGISTERED, 2000, true",
    "tcp, REGISTERED, 2000, false"
  })
  void postingAndCompletingAllocatesNothing(
      String transports, Memory m, int perRound, boolean fetch) {
    Counter counter = new Counter();
    UcxOptions options = UcxOptions.defaults().withTransports(transports);
    UcxTransport a = new UcxTransport(counter, options);
    UcxTransport b = new UcxTransport((t, s) -> {}, options);
    try (Arena arena = Arena.ofConfined()) {
      TransportPeer peer = a.connect(b.address());
      b.connect(a.address());
      ExposedRegion region = m.expose(b, arena, 8);
      UcxPeer.PendingResolve p = ((UcxPeer) peer).startResolve(region.key());
      while (!p.done) {
        a.progress();
        b.progress();
      }
      long key = region.key();
      long result = fetch ? arena.allocate(8, 8).address() : 0;
      var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

      long allocated = -1;
      int rounds = 0;
      while (allocated != 0 && rounds < MAX_ROUNDS) {
        long before = threads.getCurrentThreadAllocatedBytes();
        run(peer, a, b, counter, key, result, perRound);
        allocated = threads.getCurrentThreadAllocatedBytes() - before;
        rounds++;
      }

      assertEquals(0, allocated, "bytes allocated by the last " + perRound + " posts");
      assertEquals((long) rounds * perRound, region.segment().get(JAVA_LONG, 0));
      assertEquals(0, counter.lastStatus);
      UcxExposedRegion exposed = (UcxExposedRegion) region;
      exposed.beginRevoke();
      while (!exposed.revokeDone()) {
        a.progress();
        b.progress();
      }
    } finally {
      TransportPair.closeBoth(a, b);
    }
  }

  private static void run(
      TransportPeer peer,
      UcxTransport a,
      UcxTransport b,
      Counter counter,
      long key,
      long result,
      int count) {
    for (int i = 0; i < count; i++) {
      long done = counter.completed;
      int posted = peer.postAtomic(peer.cached(key), 0, RemoteAtomicOp.ADD, 8, 1, result, i);
      if (posted == TransportPeer.PENDING) {
        while (counter.completed == done) {
          a.progress();
          b.progress();
        }
      } else if (posted != TransportPeer.DONE) {
        throw new AssertionError("posted " + posted);
      }
    }
  }
}
