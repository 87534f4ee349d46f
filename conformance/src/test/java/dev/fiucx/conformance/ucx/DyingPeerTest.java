package dev.fiucx.conformance.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.DomainAttr;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiOp;
import dev.fiucx.conformance.remote.Initiator;
import dev.fiucx.conformance.remote.RemoteTarget;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A target process killed while operations are in flight over TCP: those operations end as CQ error
 * entries carrying their context, later calls to that peer fail at once, and nothing hangs.
 */
class DyingPeerTest {
  @Test
  void operationsToAKilledPeerEndAsErrorEntries() {
    try (Arena arena = Arena.ofConfined();
        RemoteTarget target = new RemoteTarget("ucx", "tcp", 64, false, false, List.of());
        Initiator ini = new Initiator("ucx", "tcp", DomainAttr.Progress.MANUAL)) {
      long peer = ini.av.insert(target.address());
      MemorySegment one = arena.allocate(8, 8);
      one.set(ValueLayout.JAVA_LONG, 0, 1);
      MemorySegment result = arena.allocate(8, 8);
      assertEquals(
          0,
          ini.ep.fetchAtomic(
              one,
              1,
              null,
              result,
              null,
              peer,
              0,
              target.key(),
              FiDatatype.UINT64,
              FiOp.SUM,
              "alive"));
      assertEquals("alive", ini.awaitCompletion());
      target.kill();
      int errorEntries = 0;
      int refused = 0;
      CqEntry[] entries = {new CqEntry()};
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (refused == 0 && System.nanoTime() < deadline) {
        int rc =
            ini.ep.fetchAtomic(
                one,
                1,
                null,
                result,
                null,
                peer,
                0,
                target.key(),
                FiDatatype.UINT64,
                FiOp.SUM,
                "dying");
        if (rc == -FiErrno.ECONNRESET) {
          refused++;
          break;
        }
        assertEquals(0, rc, FiErrno.errorString(rc));
        int n = ini.cq.sread(entries, 1, 30_000);
        if (n == -FiErrno.EAVAIL) {
          CqErrEntry e = ini.awaitError();
          assertEquals("dying", e.opContext);
          assertEquals(FiErrno.ECONNRESET, e.err, e.toString());
          errorEntries++;
        } else {
          assertEquals(1, n, "a completion or an error entry, not " + FiErrno.errorString(n));
        }
      }
      assertEquals(1, refused, "once the failure is known, calls are refused at once");
      assertEquals(true, errorEntries >= 1, "the operation in flight became an error entry");
    }
  }
}
