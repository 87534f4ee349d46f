package dev.fiucx.ucx;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.fiucx.AtomicFamily;
import dev.fiucx.AtomicRegion;
import dev.fiucx.ConnectedEndpoint;
import dev.fiucx.Connection;
import dev.fiucx.CqEntry;
import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiOp;
import dev.fiucx.PeerRegion;
import dev.fiucx.Server;
import dev.fiucx.engine.InCallAtomics;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the typed layer's calls cost: on shared memory with the direct path a one-element call is
 * done in the call and writes no completion entry (so is an element UCX's shared-memory transport
 * does in its post; over tcp it is posted and completes through the queue as fi_atomic's does), and
 * no blocking call allocates once compiled, measured with the JVM's per-thread allocation counter
 * over whole rounds of calls.
 */
@RequiresUcx
class AtomicRegionPathTest {
  private static final int MAX_ROUNDS = 10;

  @ParameterizedTest(name = "{0} direct_path={1}")
  // with the direct path off UCX's shared-memory transport does the atomic in its post too
  @CsvSource({"shm, on, true", "shm, off, true", "tcp, on, false"})
  void aOneElementCallIsDoneInTheCallExactlyOnTheMappedPath(
      String transport, String directPath, boolean inCall) {
    DomainAttr attr =
        new DomainAttr(
            null,
            DomainAttr.Progress.AUTO,
            false,
            Map.of(DomainAttr.DIRECT_PATH_OPTION, directPath));
    try (Server server = AtomicRegionTest.serve(transport);
        Connection c = Fabric.connect("127.0.0.1:" + server.port(), attr);
        ConnectedEndpoint ep = c.openEndpoint(4);
        Arena arena = Arena.ofConfined()) {
      PeerRegion cells = c.region("cells");
      InCallAtomics engine = (InCallAtomics) ep.endpoint();
      MemorySegment one = arena.allocate(JAVA_LONG);
      one.set(JAVA_LONG, 0, 1);
      MemorySegment result = arena.allocate(JAVA_LONG);
      CqEntry[] entries = {new CqEntry()};
      // the first call finds the region, the next ones take the remembered route
      for (int i = 0; i < 3; i++) {
        int rc =
            engine.postInCall(
                AtomicFamily.FETCH,
                FiOp.SUM,
                FiDatatype.UINT64,
                one,
                null,
                result,
                ep.peer(),
                cells.address() + 8,
                cells.key());
        if (inCall) {
          assertEquals(InCallAtomics.DONE_IN_CALL, rc, "call " + i);
          assertEquals(-FiErrno.EAGAIN, ep.cq().read(entries, 1), "no entry after call " + i);
        } else {
          assertEquals(0, rc, "call " + i);
          assertEquals(1, ep.cq().sread(entries, 1, 10_000), "one entry after call " + i);
          assertNull(entries[0].opContext);
        }
        assertEquals(i, result.get(JAVA_LONG, 0));
      }
      assertEquals(3, server.memory("cells").get(JAVA_LONG, 8));
      // a refusal says why, as fi_atomic would, and writes nothing
      assertEquals(
          -FiErrno.EFAULT,
          engine.postInCall(
              AtomicFamily.FETCH,
              FiOp.SUM,
              FiDatatype.UINT64,
              one,
              null,
              result,
              ep.peer(),
              cells.address() + 4096,
              cells.key()));
      assertEquals(-FiErrno.EAGAIN, ep.cq().read(entries, 1));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"shm", "tcp"})
  void blockingCallsAllocateNothing(String transport) {
    int perRound = transport.equals("shm") ? 20_000 : 1_000;
    try (Server server = AtomicRegionTest.serve(transport);
        Connection c = Fabric.connect("127.0.0.1:" + server.port(), DomainAttr.defaults());
        AtomicRegion cells = c.openAtomicRegion("cells");
        Arena arena = Arena.ofConfined()) {
      MemorySegment deltas = arena.allocate(32, 8);
      MemorySegment previous = arena.allocate(32, 8);
      for (int i = 0; i < 4; i++) {
        deltas.setAtIndex(JAVA_LONG, i, 1);
      }
      var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
      long allocated = -1;
      int rounds = 0;
      long swaps = 0;
      while (allocated != 0 && rounds < MAX_ROUNDS) {
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < perRound; i++) {
          cells.fetchAddLong(0, 1);
          cells.compareAndSwapLong(8, swaps, ++swaps);
          cells.getInt(16);
          cells.setDouble(24, i);
          cells.fetchAddDouble(32, 1.0);
          cells.fetchAddLongs(64, deltas, previous, 4);
        }
        allocated = threads.getCurrentThreadAllocatedBytes() - before;
        rounds++;
      }
      assertEquals(0, allocated, "bytes allocated by the last " + perRound + " rounds of calls");
      long calls = (long) rounds * perRound;
      MemorySegment target = server.memory("cells");
      assertEquals(calls, target.get(JAVA_LONG, 0));
      assertEquals(calls, target.get(JAVA_LONG, 8));
      assertEquals((double) calls, target.get(java.lang.foreign.ValueLayout.JAVA_DOUBLE, 32));
      assertEquals(calls, target.get(JAVA_LONG, 88));
    }
  }
}
