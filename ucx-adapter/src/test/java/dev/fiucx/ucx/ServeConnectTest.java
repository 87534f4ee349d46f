package dev.fiucx.ucx;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.ConnectedEndpoint;
import dev.fiucx.Connection;
import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.PeerRegion;
import dev.fiucx.ServeAttr;
import dev.fiucx.Server;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code Fabric.serve} and {@code Fabric.connect} over real UCX (shared memory and tcp): tickets
 * from several initiators and threads, the regions' descriptors, and what initiators get when the
 * server shuts down.
 */
@RequiresUcx
class ServeConnectTest {
  static final long RW = FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE;

  static Server serve(String transport) {
    return Fabric.serve(
        new ServeAttr(
            "127.0.0.1",
            0,
            List.of(
                new ServeAttr.Region("counter", 64, RW),
                new ServeAttr.Region("readonly", 4096, FiFlags.REMOTE_READ)),
            new DomainAttr(transport, DomainAttr.Progress.AUTO, false, Map.of())));
  }

  /** One fetch SUM of {@code add} on the element at {@code addr}: the value before, or -errno. */
  static long fetchAdd(
      ConnectedEndpoint ep, PeerRegion r, long addr, MemorySegment one, MemorySegment result) {
    CqEntry[] done = {new CqEntry()};
    int rc =
        ep.endpoint()
            .fetchAtomic(
                one,
                1,
                null,
                result,
                null,
                ep.peer(),
                r.address() + addr,
                r.key(),
                FiDatatype.UINT64,
                FiOp.SUM,
                null);
    if (rc < 0) {
      return rc;
    }
    rc = ep.cq().sread(done, 1, 10_000);
    if (rc == -FiErrno.EAVAIL) {
      CqErrEntry err = new CqErrEntry();
      ep.cq().readErr(err);
      return -err.err;
    }
    return rc == 1 ? result.get(JAVA_LONG, 0) : rc;
  }

  /**
   * One thread's way to take tickets: an endpoint of {@code c} of its own, and the operand (1) and
   * result buffer of a fetch SUM on the counter's first element.
   */
  static final class TicketTaker implements AutoCloseable {
    private final ConnectedEndpoint ep;
    private final Arena arena = Arena.ofConfined();
    private final PeerRegion counter;
    private final MemorySegment one = arena.allocate(JAVA_LONG);
    private final MemorySegment result = arena.allocate(JAVA_LONG);

    TicketTaker(Connection c) {
      ep = c.openEndpoint(16);
      counter = c.region("counter");
      one.set(JAVA_LONG, 0, 1);
    }

    /** The next ticket (the counter before this call's add), or -errno. */
    long take() {
      return fetchAdd(ep, counter, 0, one, result);
    }

    @Override
    public void close() {
      ep.close();
      arena.close();
    }
  }

  /** {@code tickets} are 0 .. {@code total - 1}, each once. */
  static void assertEachTicketOnce(LongStream tickets, long total) {
    boolean[] seen = new boolean[(int) total];
    tickets.forEach(
        v -> {
          assertTrue(v >= 0 && v < total, "ticket " + v + " outside 0.." + (total - 1));
          assertTrue(!seen[(int) v], "ticket " + v + " seen twice");
          seen[(int) v] = true;
        });
  }

  /**
   * The example of the README and docs/deployment.md, line for line: one ticket from a served
   * counter.
   */
  @Test
  void theReadmeExampleTakesATicket() {
    try (Server server = serve("shm")) {
      String hostPort = "127.0.0.1:" + server.port();
      // --- README begins
      try (Connection c = Fabric.connect(hostPort, DomainAttr.defaults());
          ConnectedEndpoint ep = c.openEndpoint(16);
          Arena arena = Arena.ofConfined()) {
        PeerRegion counter = c.region("counter");
        MemorySegment one = arena.allocate(JAVA_LONG);
        one.set(JAVA_LONG, 0, 1);
        MemorySegment ticket = arena.allocate(JAVA_LONG);
        int rc =
            ep.endpoint()
                .fetchAtomic(
                    one,
                    1,
                    null,
                    ticket,
                    null,
                    ep.peer(),
                    counter.address(),
                    counter.key(),
                    FiDatatype.UINT64,
                    FiOp.SUM,
                    null);
        CqEntry[] done = {new CqEntry()};
        int n = ep.cq().sread(done, 1, 5_000); // 1: done; the ticket is ticket.get(JAVA_LONG, 0)
        // --- README ends
        assertEquals(0, rc);
        assertEquals(1, n);
        assertEquals(0, ticket.get(JAVA_LONG, 0));
        assertEquals(1, server.memory("counter").get(JAVA_LONG, 0));
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"shm", "tcp"})
  void everyTicketFromTwoInitiatorsOfTwoThreadsIsSeenOnce(String transport) throws Exception {
    int perThread = transport.equals("shm") ? 20_000 : 1_500;
    int connections = 2;
    int threads = 2;
    long[][] tickets = new long[connections * threads][perThread];
    AtomicInteger failures = new AtomicInteger();
    try (Server server = serve(transport)) {
      String hostPort = "127.0.0.1:" + server.port();
      List<Connection> open = new ArrayList<>();
      try {
        for (int i = 0; i < connections; i++) {
          open.add(Fabric.connect(hostPort, DomainAttr.defaults()));
        }
        // no transport asked for: the connection takes the serve's
        String tls = open.getFirst().domain().describe().get("ucx.tls");
        assertEquals(transport.equals("shm") ? "sm,self" : "tcp", tls);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < connections * threads; t++) {
          Connection c = open.get(t / threads);
          long[] mine = tickets[t];
          workers.add(
              Thread.ofPlatform()
                  .start(
                      () -> {
                        try (TicketTaker taker = new TicketTaker(c)) {
                          for (int i = 0; i < mine.length; i++) {
                            mine[i] = taker.take();
                          }
                        } catch (RuntimeException e) {
                          failures.incrementAndGet();
                          throw e;
                        }
                      }));
        }
        for (Thread w : workers) {
          w.join(TimeUnit.MINUTES.toMillis(2));
          assertTrue(!w.isAlive(), "a thread did not finish in 2 minutes");
        }
      } finally {
        open.forEach(Connection::close);
      }
      assertEquals(0, failures.get());
      long total = (long) connections * threads * perThread;
      assertEachTicketOnce(Arrays.stream(tickets).flatMapToLong(Arrays::stream), total);
      assertEquals(total, server.memory("counter").get(JAVA_LONG, 0));
    }
  }

  @Test
  void regionsAreDescribedAndCheckedByName() {
    try (Server server = serve("shm");
        Connection c = Fabric.connect("127.0.0.1:" + server.port(), DomainAttr.defaults());
        ConnectedEndpoint ep = c.openEndpoint(4);
        Arena arena = Arena.ofConfined()) {
      assertEquals(server.regions(), c.regions());
      PeerRegion ro = c.region("readonly");
      assertEquals(4096, ro.length());
      assertEquals(FiFlags.REMOTE_READ, ro.access());
      FiException e = assertThrows(FiException.class, () -> c.region("counters"));
      assertEquals(FiErrno.ENOENT, e.errno());
      assertTrue(
          e.getMessage().endsWith("serves no region 'counters'; it serves: counter, readonly"),
          e.getMessage());
      MemorySegment one = arena.allocate(JAVA_LONG);
      MemorySegment result = arena.allocate(JAVA_LONG);
      // the region's access rights hold: no write to a read-only region
      assertEquals(-FiErrno.EACCES, fetchAdd(ep, ro, 0, one, result));
      assertEquals(-FiErrno.EFAULT, fetchAdd(ep, c.region("counter"), 64, one, result));
    }
  }

  @Test
  void anInitiatorWithVirtualAddressesGetsTheTargetsAddresses() {
    try (Server server = serve("shm");
        Connection c =
            Fabric.connect(
                "127.0.0.1:" + server.port(),
                new DomainAttr(null, DomainAttr.Progress.AUTO, true, Map.of()));
        ConnectedEndpoint ep = c.openEndpoint(4);
        Arena arena = Arena.ofConfined()) {
      PeerRegion counter = c.region("counter");
      assertEquals(server.memory("counter").address(), counter.address());
      assertEquals(0, server.regions().getFirst().address()); // the server's own addressing
      MemorySegment one = arena.allocate(JAVA_LONG);
      one.set(JAVA_LONG, 0, 1);
      MemorySegment result = arena.allocate(JAVA_LONG);
      assertEquals(0, fetchAdd(ep, counter, 8, one, result));
      assertEquals(1, fetchAdd(ep, counter, 8, one, result));
      assertEquals(2, server.memory("counter").get(JAVA_LONG, 8));
      assertEquals(0, server.memory("counter").get(JAVA_LONG, 0));
    }
  }

  @Test
  void aServeThatCannotListenSaysWhy() {
    try (Server first = serve("shm")) {
      FiException e =
          assertThrows(
              FiException.class,
              () ->
                  Fabric.serve(
                      new ServeAttr(
                          "127.0.0.1",
                          first.port(),
                          List.of(new ServeAttr.Region("c", 8, RW)),
                          DomainAttr.defaults())));
      assertEquals(FiErrno.EADDRINUSE, e.errno());
      assertTrue(
          e.getMessage().contains("cannot listen on 127.0.0.1:" + first.port()), e.getMessage());
      FiException manual =
          assertThrows(
              FiException.class,
              () ->
                  new ServeAttr(
                      null,
                      0,
                      List.of(new ServeAttr.Region("c", 8, RW)),
                      new DomainAttr(null, DomainAttr.Progress.MANUAL, false, Map.of())));
      assertEquals(FiErrno.EINVAL, manual.errno());
    }
  }

  @Test
  void connectingWhereNoServeListensIsRefused() throws Exception {
    int port;
    try (var s = new java.net.ServerSocket(0)) {
      port = s.getLocalPort();
    }
    int p = port;
    FiException e =
        assertThrows(
            FiException.class, () -> Fabric.connect("127.0.0.1:" + p, DomainAttr.defaults()));
    assertEquals(FiErrno.ECONNREFUSED, e.errno());
    FiException bad =
        assertThrows(FiException.class, () -> Fabric.connect("nohost", DomainAttr.defaults()));
    assertEquals(FiErrno.EINVAL, bad.errno());
  }

  /**
   * Posts racing a server's close over tcp, where the target's UCX applies each atomic to its
   * memory itself: two threads of one connection (automatic progress, so a REVOKE is handled while
   * they post) take tickets until refused while the server closes, five times. A post that looked
   * at the key just before the REVOKE was handled must reach the target before the acknowledgement:
   * one once arrived after it, and the target's UCX wrote memory already unmapped (SIGSEGV in
   * ucp_atomic_req_handler). Every ticket is unique and each thread's first refusal is the key's.
   */
  @Test
  void postsRacingAServersCloseReachItBeforeItsMemoryGoes() throws Exception {
    int threads = 2;
    for (int round = 0; round < 5; round++) {
      Server server = serve("tcp");
      try (Connection c = Fabric.connect("127.0.0.1:" + server.port(), DomainAttr.defaults())) {
        List<List<Long>> tickets = new ArrayList<>();
        long[] refusal = new long[threads];
        CountDownLatch taking = new CountDownLatch(threads);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          List<Long> mine = new ArrayList<>();
          tickets.add(mine);
          int me = t;
          workers.add(
              Thread.ofPlatform()
                  .start(
                      () -> {
                        try (TicketTaker taker = new TicketTaker(c)) {
                          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                          while (System.nanoTime() < deadline) {
                            long rc = taker.take();
                            if (rc < 0) {
                              refusal[me] = rc;
                              break;
                            }
                            if (mine.isEmpty()) {
                              taking.countDown();
                            }
                            mine.add(rc);
                          }
                        }
                      }));
        }
        assertTrue(taking.await(10, TimeUnit.SECONDS), "the threads took no ticket in 10 s");
        Thread closer = Thread.ofPlatform().start(server::close);
        for (Thread w : workers) {
          w.join(TimeUnit.SECONDS.toMillis(30));
          assertTrue(!w.isAlive(), "a thread still posts 30 s after the close began");
        }
        closer.join(10_000);
        assertTrue(!closer.isAlive(), "the server's close took more than 10 s");
        for (long rc : refusal) {
          assertEquals(-FiErrno.EKEYREJECTED, rc, FiErrno.errorString((int) -rc));
        }
        assertEachTicketOnce(
            tickets.stream().flatMap(List::stream).mapToLong(Long::longValue),
            tickets.stream().mapToLong(List::size).sum());
      } finally {
        server.close();
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"shm", "tcp"})
  void initiatorsGetAnErrnoNotAHangWhenTheServerCloses(String transport) throws Exception {
    Server server = serve(transport);
    try (Connection c = Fabric.connect("127.0.0.1:" + server.port(), DomainAttr.defaults());
        TicketTaker taker = new TicketTaker(c)) {
      assertEquals(0, taker.take());
      Thread closer = Thread.ofPlatform().start(server::close);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      long rc = 0;
      while (rc >= 0 && System.nanoTime() < deadline) {
        rc = taker.take();
      }
      closer.join(10_000);
      assertTrue(!closer.isAlive(), "the server's close took more than 10 s");
      assertTrue(rc < 0, "calls still succeed 10 s after the server closed");
      // the keys are revoked (and every peer has acknowledged) before the domain closes, so the
      // first refusal is the key's
      assertEquals(-FiErrno.EKEYREJECTED, rc, FiErrno.errorString(-rc));
      // later calls: the key again, or, once tcp's failure detection has seen the domain go, the
      // peer's reset
      long later = taker.take();
      assertTrue(
          later == -FiErrno.EKEYREJECTED
              || (transport.equals("tcp") && later == -FiErrno.ECONNRESET),
          FiErrno.errorString(-later));
    } finally {
      server.close();
    }
  }
}
