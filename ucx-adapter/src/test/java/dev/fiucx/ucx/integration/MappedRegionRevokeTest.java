package dev.fiucx.ucx.integration;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.DomainAttr;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiOp;
import dev.fiucx.conformance.remote.Initiator;
import dev.fiucx.conformance.remote.RemoteTarget;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A region that a target process closes while this process holds it mapped (native ops are CPU
 * atomics on the mapping, no UCX call at all): the initiator keeps hammering the old key through
 * the close. Every op either counts (fetching exactly the values before it: none lost, none twice)
 * or is refused with {@code -FI_EKEYREJECTED} once the revocation arrived; nothing else happens.
 * After the close returns the target's memory is never written: the regions the target exposes next
 * stay zero while the initiator goes on calling with the old key.
 */
@RequiresProvider("ucx")
class MappedRegionRevokeTest {
  private static final long LENGTH = 4096;

  @ParameterizedTest(name = "{0} progress")
  @EnumSource(DomainAttr.Progress.class)
  void aClosedMappedRegionIsRefusedAndNeverWrittenAgain(DomainAttr.Progress progress)
      throws Exception {
    try (RemoteTarget target = new RemoteTarget("ucx", "shm", LENGTH, false, false, List.of());
        Initiator me =
            new Initiator("ucx", new DomainAttr("shm", progress, false, java.util.Map.of()));
        Arena arena = Arena.ofConfined()) {
      long peer = me.av.insert(target.address());
      long oldKey = target.key();
      assertEquals("mapped", me.ep.atomicPath(peer, oldKey));
      MemorySegment one = arena.allocate(8, 8);
      one.set(JAVA_LONG, 0, 1);
      MemorySegment result = arena.allocate(8, 8);

      // the close waits for this process's acknowledgement, which it gives while it calls
      CompletableFuture<long[]> renewed = new CompletableFuture<>();
      Thread closer =
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      Thread.sleep(100);
                      long a = target.renewRegion();
                      long b = target.renewRegion();
                      renewed.complete(new long[] {a, b});
                    } catch (Throwable t) {
                      renewed.completeExceptionally(t);
                    }
                  });
      long done = 0;
      long refused = 0;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      // keep calling with the old key until the target has exposed two new regions, and a while
      // after that, so that any write that could still land would land in them
      long stopAt = Long.MAX_VALUE;
      while (System.nanoTime() < Math.min(deadline, stopAt)) {
        int rc =
            me.ep.fetchAtomic(
                one, 1, null, result, null, peer, 8, oldKey, FiDatatype.UINT64, FiOp.SUM, null);
        if (rc == 0) {
          me.awaitCompletion();
          assertEquals(0, refused, "an op counted after the key was refused");
          assertEquals(done, result.get(JAVA_LONG, 0), "fetched the count before it");
          done++;
        } else {
          assertEquals(-FiErrno.EKEYREJECTED, rc, () -> FiErrno.errorString(rc));
          refused++;
          me.cq.read(new dev.fiucx.CqEntry[1], 0); // manual progress: the revocations' acks
        }
        if (stopAt == Long.MAX_VALUE && renewed.isDone()) {
          stopAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
        }
      }
      closer.join(10_000);
      renewed.get(1, TimeUnit.SECONDS);
      assertTrue(done > 0, "some ops ran before the close");
      assertTrue(refused > 0, "the old key was refused after the close");
      assertArrayEquals(new byte[(int) LENGTH], target.get(0, (int) LENGTH), "the newest region");
      System.out.printf(
          "mapped region revoked under %s progress: %d ops before the close, %d refused after%n",
          progress, done, refused);
    }
  }
}
