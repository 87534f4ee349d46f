package dev.fiucx.ucx;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.spi.ExposedRegion;
import dev.fiucx.spi.RemoteAtomicOp;
import dev.fiucx.spi.RemoteRegion;
import dev.fiucx.spi.TransportPeer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.BitSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * UCS_THREAD_MODE_MULTI: two threads post to the same peer and both progress the same worker while
 * a third progresses the target. Every fetch-add must see a distinct old value.
 */
@RequiresUcx
class UcxThreadSafeTest {
  private static final int PER_THREAD = 400;

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({"shm, ALLOCATED", "shm, REGISTERED", "tcp, REGISTERED"})
  void concurrentFetchAddsAreAtomicAndAllComplete(String transports, Memory m) throws Exception {
    UcxOptions options = UcxOptions.defaults().withTransports(transports).withThreadSafe(true);
    try (TransportPair pair = new TransportPair(options);
        Arena arena = Arena.ofShared()) {
      assertEquals("multi", pair.a.describe().get("ucx.thread_mode"));
      ExposedRegion region = m.expose(pair.b, arena, 8);
      assertEquals(0, pair.resolve(region.key()));
      RemoteRegion remote = pair.aToB.cached(region.key());
      MemorySegment results = arena.allocate(8L * 2 * PER_THREAD, 8);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      AtomicBoolean stop = new AtomicBoolean();
      Thread target =
          Thread.ofPlatform()
              .start(
                  () -> {
                    while (!stop.get()) {
                      pair.b.progress();
                    }
                  });
      Thread[] posters = new Thread[2];
      for (int th = 0; th < posters.length; th++) {
        int first = th * PER_THREAD;
        posters[th] =
            Thread.ofPlatform()
                .start(
                    () -> {
                      try {
                        for (int i = first; i < first + PER_THREAD; i++) {
                          long token = 1000 + i;
                          int posted =
                              pair.aToB.postAtomic(
                                  remote,
                                  0,
                                  RemoteAtomicOp.ADD,
                                  8,
                                  1,
                                  results.address() + 8L * i,
                                  token);
                          assertTrue(posted >= 0, "posted " + posted);
                          if (posted == TransportPeer.PENDING) {
                            while (pair.completionsA.status(token) == null) {
                              pair.a.progress(); // both posters progress A concurrently
                            }
                            assertEquals(0, pair.completionsA.status(token));
                          }
                        }
                      } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                      }
                    });
      }
      for (Thread t : posters) {
        t.join();
      }
      stop.set(true);
      target.join();
      if (failure.get() != null) {
        throw new AssertionError(failure.get());
      }
      pair.flush();
      int total = 2 * PER_THREAD;
      assertEquals(total, region.segment().get(JAVA_LONG, 0));
      BitSet seen = new BitSet(total);
      for (int i = 0; i < total; i++) {
        long old = results.get(JAVA_LONG, 8L * i);
        assertTrue(old >= 0 && old < total && !seen.get((int) old), "old value " + old);
        seen.set((int) old);
      }
      pair.revoke((UcxExposedRegion) region);
    }
  }
}
