package dev.fiucx.ucx.integration;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.Connection;
import dev.fiucx.CqEntry;
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
import dev.fiucx.bootstrap.BootstrapClient;
import dev.fiucx.bootstrap.BootstrapException;
import dev.fiucx.bootstrap.Frame;
import dev.fiucx.bootstrap.Refusal;
import dev.fiucx.conformance.remote.RemoteTarget;
import dev.fiucx.conformance.remote.TargetProcess;
import dev.fiucx.conformance.remote.TestModeServe;
import dev.fiucx.conformance.remote.TestModeWire;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

// Beside the provider, not in the conformance module: it needs a provider, and the conformance
// module depends on none.
/**
 * A serve in test mode answers the test mode's messages over the bootstrap, exactly; a user's serve
 * refuses them; {@link RemoteTarget} drives a {@link TargetProcess} through them.
 */
@RequiresProvider("ucx")
class TestModeServeTest {
  private static final long RW = FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE;

  private static TestModeServe serve(boolean register, long access) {
    return new TestModeServe(
        "ucx", "shm", 64, register, access, new InetSocketAddress("127.0.0.1", 0));
  }

  private static BootstrapClient client(InetSocketAddress at) throws IOException {
    return BootstrapClient.connect("127.0.0.1", at.getPort(), "test", Duration.ofSeconds(10));
  }

  private static String failure(Frame f) {
    assertEquals(TestModeWire.FAILED, f.type());
    return TestModeWire.failure(f.payload());
  }

  private static Frame request(BootstrapClient c, Frame f) throws IOException {
    return c.request(f.type(), f.payload());
  }

  @Test
  void aServeInTestModeSetsGetsRenewsAndClosesItsRegion() throws Exception {
    try (TestModeServe serve = serve(false, RW);
        BootstrapClient c = client(serve.address())) {
      PeerRegion first = c.welcome().regions().getFirst();
      assertEquals("target", first.name());
      assertEquals(64, first.length());
      assertEquals(RW, first.access());
      assertEquals("ucx", c.welcome().provider());
      assertEquals("shm", c.welcome().transport());

      Frame ok = request(c, TestModeWire.set("target", 8, new byte[] {1, 2, 3, 4, 5}));
      assertEquals(TestModeWire.OK, ok.type());
      assertArrayEquals(new byte[0], ok.payload());
      Frame data = request(c, TestModeWire.get("target", 6, 8));
      assertEquals(TestModeWire.DATA, data.type());
      assertArrayEquals(new byte[] {0, 0, 1, 2, 3, 4, 5, 0}, data.payload());

      // refusals that leave the connection open
      assertEquals(
          "bytes 60 .. 68 are outside region 'target' of 64",
          failure(request(c, TestModeWire.get("target", 60, 8))));
      assertEquals(
          "bytes -1 .. 0 are outside region 'target' of 64",
          failure(request(c, TestModeWire.set("target", -1, new byte[1]))));
      assertEquals("no region named 'table'", failure(request(c, TestModeWire.get("table", 0, 8))));
      assertEquals(
          "a GET of 32769 bytes (at most 32768 per message)",
          failure(request(c, TestModeWire.get("target", 0, 32769))));
      Frame progress = request(c, TestModeWire.fact("progress"));
      assertEquals(TestModeWire.DATA, progress.type());
      assertEquals("auto", new String(progress.payload(), StandardCharsets.UTF_8));
      assertEquals("no fact named 'colour'", failure(request(c, TestModeWire.fact("colour"))));

      Frame renewed = request(c, TestModeWire.renew("target"));
      assertEquals(TestModeWire.RENEWED, renewed.type());
      assertEquals(16, renewed.payload().length);
      long newKey = java.nio.ByteBuffer.wrap(renewed.payload(), 8, 8).getLong();
      assertNotEquals(first.key(), newKey);
      assertArrayEquals(
          new byte[64], request(c, TestModeWire.get("target", 0, 64)).payload(), "zeroed");
      // initiators that connect from now on are told the new key
      try (BootstrapClient later = client(serve.address())) {
        assertEquals(newKey, later.welcome().regions().getFirst().key());
      }

      assertEquals(TestModeWire.OK, request(c, TestModeWire.close("target")).type());
      assertEquals(
          "region 'target' is closed", failure(request(c, TestModeWire.get("target", 0, 8))));
      try (BootstrapClient later = client(serve.address())) {
        assertEquals(List.of(), later.welcome().regions());
      }
      // a renew after a close exposes a region again
      assertEquals(TestModeWire.RENEWED, request(c, TestModeWire.renew("target")).type());
      assertEquals(8, request(c, TestModeWire.get("target", 0, 8)).payload().length);

      // a request that does not parse: the bootstrap's ERROR frame, then the connection closes
      BootstrapException e =
          assertThrows(
              BootstrapException.class, () -> c.request(TestModeWire.GET, new byte[] {6, 't'}));
      assertEquals(Refusal.MALFORMED, e.refusal());
      assertEquals("GET: truncated at byte 1", e.getMessage());
      assertTrue(e.fromPeer());
      assertThrows(IOException.class, () -> request(c, TestModeWire.get("target", 0, 8)));
    }
  }

  @Test
  void registeredReadOnlyMemoryIsServedAndStillInspected() throws Exception {
    try (TestModeServe serve = serve(true, FiFlags.REMOTE_READ);
        BootstrapClient c = client(serve.address())) {
      assertEquals(FiFlags.REMOTE_READ, c.welcome().regions().getFirst().access());
      // the test sets what peers may only read
      request(c, TestModeWire.set("target", 0, new byte[] {7}));
      assertArrayEquals(new byte[] {7, 0}, request(c, TestModeWire.get("target", 0, 2)).payload());
    }
  }

  @Test
  void anInitiatorReachesATestModeServeAsItReachesAnyServe() throws Exception {
    try (TestModeServe serve = serve(false, RW);
        Connection conn =
            Fabric.connect("127.0.0.1:" + serve.address().getPort(), DomainAttr.defaults());
        var ep = conn.openEndpoint(4);
        Arena arena = Arena.ofConfined();
        BootstrapClient c = client(serve.address())) {
      request(c, TestModeWire.set("target", 0, new byte[] {41, 0, 0, 0, 0, 0, 0, 0}));
      MemorySegment one = arena.allocate(JAVA_LONG);
      one.set(JAVA_LONG, 0, 1);
      MemorySegment fetched = arena.allocate(JAVA_LONG);
      PeerRegion target = conn.region("target");
      assertEquals(
          0,
          ep.endpoint()
              .fetchAtomic(
                  one,
                  1,
                  null,
                  fetched,
                  null,
                  ep.peer(),
                  target.address(),
                  target.key(),
                  FiDatatype.UINT64,
                  FiOp.SUM,
                  null));
      assertEquals(1, ep.cq().sread(new CqEntry[] {new CqEntry()}, 1, 10_000));
      assertEquals(41, fetched.get(JAVA_LONG, 0));
      assertArrayEquals(
          new byte[] {42, 0, 0, 0, 0, 0, 0, 0},
          request(c, TestModeWire.get("target", 0, 8)).payload());
    }
  }

  @Test
  void aUsersServeRefusesTestModeMessages() throws Exception {
    ServeAttr attr =
        new ServeAttr(
            "127.0.0.1",
            0,
            List.of(new ServeAttr.Region("target", 64, RW)),
            new DomainAttr("shm", DomainAttr.Progress.AUTO, false, Map.of()));
    try (Server server = Fabric.serve(attr);
        BootstrapClient c =
            BootstrapClient.connect("127.0.0.1", server.port(), "test", Duration.ofSeconds(10))) {
      Frame get = TestModeWire.get("target", 0, 8);
      BootstrapException e =
          assertThrows(BootstrapException.class, () -> c.request(get.type(), get.payload()));
      assertEquals(Refusal.UNEXPECTED, e.refusal());
      assertEquals("frame type 257 where BYE was expected (this is a fiucx serve)", e.getMessage());
      assertTrue(e.fromPeer());
      // and the serve closed the connection
      assertThrows(IOException.class, () -> c.request(get.type(), get.payload()));
    }
  }

  @Test
  void aRemoteTargetCarriesMoreThanOneFrameHolds() {
    int length = 80 << 10; // the conformance suite's region: more than two 32 KiB pieces
    try (RemoteTarget target = new RemoteTarget("ucx", "shm", length, false, false, List.of())) {
      byte[] pattern = new byte[length - 3];
      for (int i = 0; i < pattern.length; i++) {
        pattern[i] = (byte) (i * 31 + 7);
      }
      target.set(3, pattern);
      byte[] back = target.get(0, length);
      assertArrayEquals(new byte[3], Arrays.copyOf(back, 3));
      assertArrayEquals(pattern, Arrays.copyOfRange(back, 3, length));
      assertEquals(length, target.length());
      long old = target.key();
      long renewed = target.renewRegion();
      assertNotEquals(old, renewed);
      assertEquals(renewed, target.key());
      assertArrayEquals(new byte[length], target.get(0, length));
      FiException e = assertThrows(FiException.class, () -> target.get(length - 4, 8));
      assertEquals(FiErrno.EIO, e.errno());
      assertEquals(
          "FI_EIO: I/O error: target process refused: bytes 81916 .. 81924 are outside region 'target' of 81920",
          e.getMessage());
      // the connection stays usable after a refusal
      assertArrayEquals(new byte[4], target.get(length - 4, 4));
    }
  }
}
