package dev.fiucx.bootstrap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.ServeListener;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The bootstrap server over real loopback sockets: good peers, hostile peers, stalled peers. */
class BootstrapServerTest {
  private final BlockingQueue<String> events = new LinkedBlockingQueue<>();
  private BootstrapServer server;

  private final ServeListener listener =
      new ServeListener() {
        @Override
        public void connected(String peer, String client) {
          events.add("connected " + client);
        }

        @Override
        public void departed(String peer, String client, String why) {
          events.add("departed " + client + ": " + why);
        }

        @Override
        public void refused(String peer, String why) {
          events.add("refused " + why);
        }
      };

  @BeforeEach
  void start() throws IOException {
    server = start(16);
  }

  private BootstrapServer start(int maxConnections) throws IOException {
    return new BootstrapServer(
        new InetSocketAddress("127.0.0.1", 0),
        BootstrapWireTest.sample(),
        listener,
        Duration.ofMillis(300),
        maxConnections);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private String event() throws InterruptedException {
    String e = events.poll(10, TimeUnit.SECONDS);
    assertNotNull(e, "no listener event within 10 s");
    return e;
  }

  private BootstrapClient client(String name) throws IOException {
    return BootstrapClient.connect("127.0.0.1", server.port(), name, Duration.ofSeconds(10));
  }

  /** Sends raw bytes; returns the frame the server answers with (null at end of stream). */
  private Frame rawExchange(byte[] bytes) throws IOException {
    try (Socket s = new Socket("127.0.0.1", server.port())) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(bytes);
      out.flush();
      DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
      Frame f = Frames.read(in, 1 << 20, 0xffff);
      assertEquals(-1, in.read(), "the server closes after an ERROR frame");
      return f;
    }
  }

  private void assertRefused(byte[] bytes, Refusal refusal, String text) throws Exception {
    Frame f = rawExchange(bytes);
    assertNotNull(f);
    assertEquals(Frames.ERROR, f.type());
    BootstrapException e = Frames.peerError(f);
    assertEquals(refusal, e.refusal());
    assertEquals(text, e.getMessage());
    assertEquals("refused " + refusal + ": " + text, event());
  }

  @Test
  void anInitiatorGetsTheWelcomeAndItsComingAndGoingIsReported() throws Exception {
    try (BootstrapClient c = client("tester 1")) {
      Welcome w = c.welcome();
      assertEquals(BootstrapWireTest.sample().regions(), w.regions());
      assertArrayEquals(BootstrapWireTest.sample().address(), w.address());
      assertEquals("tcp", w.transport());
      assertEquals("connected tester 1", event());
      assertEquals(1, server.connections());
    }
    assertEquals("departed tester 1: said BYE", event());
    // closing without BYE is a departure too
    Socket s = new Socket("127.0.0.1", server.port());
    Frames.write(
        new java.io.DataOutputStream(s.getOutputStream()), Frames.HELLO, Hello.encode("raw"));
    assertEquals("connected raw", event());
    s.close();
    assertEquals("departed raw: connection closed", event());
    assertEquals(0, server.connections());
  }

  @Test
  void aQuietInitiatorIsKeptPastTheFrameTimeout() throws Exception {
    try (BootstrapClient c = client("quiet")) {
      assertEquals("tcp", c.welcome().transport());
      assertEquals("connected quiet", event());
      Thread.sleep(1000); // more than three frame timeouts
      assertEquals(1, server.connections());
      assertNull(events.poll());
    }
    assertEquals("departed quiet: said BYE", event());
  }

  @Test
  void malformedFramesAreRefusedAndTheServerServesOn() throws Exception {
    assertRefused(
        BootstrapWireTest.frame(0x47455420, 2, 1, 0, new byte[0]),
        Refusal.BAD_MAGIC,
        "not a fiucx bootstrap peer (magic 0x47455420)");
    assertRefused(
        BootstrapWireTest.frame(Frames.MAGIC, 1, 1, 0, new byte[0]),
        Refusal.BAD_VERSION,
        "bootstrap version 1 from the peer, this side speaks 2");
    assertRefused(
        BootstrapWireTest.frame(0x16030100, 2, 1, 0, new byte[0]),
        Refusal.BAD_MAGIC,
        "the peer speaks TLS and this side plain TCP");
    assertRefused(
        BootstrapWireTest.frame(Frames.MAGIC, 2, Frames.PROOF + 1, 0, new byte[0]),
        Refusal.BAD_TYPE,
        "unknown frame type 8");
    assertRefused(
        BootstrapWireTest.frame(Frames.MAGIC, 2, 0x100, 8, new byte[8]),
        Refusal.UNEXPECTED,
        "frame type 256 where HELLO was expected (this is a fiucx serve)");
    assertRefused(
        BootstrapWireTest.frame(Frames.MAGIC, 2, Frames.HELLO, 0xffff_ffffL, new byte[0]),
        Refusal.TOO_LONG,
        "frame type 1 of 4294967295 bytes (at most 65536)");
    assertRefused(
        BootstrapWireTest.frame(Frames.MAGIC, 2, Frames.WELCOME, 0, new byte[0]),
        Refusal.UNEXPECTED,
        "frame type 2 where HELLO was expected (this is a fiucx serve)");
    assertRefused(
        BootstrapWireTest.frame(Frames.MAGIC, 2, Frames.HELLO, 3, new byte[] {0, 5, 'a'}),
        Refusal.MALFORMED,
        "HELLO: truncated at byte 2");
    assertRefused(
        BootstrapWireTest.frame(
            Frames.MAGIC, 2, Frames.HELLO, 4, new byte[] {0, 2, (byte) 0xff, (byte) 0xfe}),
        Refusal.MALFORMED,
        "HELLO: client is not UTF-8");
    // a hello frame that ends early, then the connection closes: nothing to answer but refused
    Frame f =
        rawExchange(Arrays.copyOf(BootstrapWireTest.frame(Frames.MAGIC, 2, 1, 9, new byte[9]), 15));
    assertEquals(Frames.ERROR, f.type());
    assertEquals(Refusal.STALLED, Frames.peerError(f).refusal());
    event();
    try (BootstrapClient c = client("after the hostile ones")) {
      assertEquals(2, c.welcome().regions().size());
    }
  }

  @Test
  void randomBytesNeverStopTheServer() throws Exception {
    java.util.Random random = new java.util.Random(7);
    byte[] hello = BootstrapWireTest.frame(Frames.MAGIC, 2, Frames.HELLO, 2, new byte[2]);
    for (int i = 0; i < 60; i++) {
      // a valid header with random bytes after it, or random bytes from the start
      byte[] junk = new byte[1 + random.nextInt(64)];
      random.nextBytes(junk);
      byte[] bytes = junk;
      if (i % 2 == 0) {
        bytes = Arrays.copyOf(hello, hello.length + junk.length);
        System.arraycopy(junk, 0, bytes, hello.length, junk.length);
      }
      try (Socket s = new Socket("127.0.0.1", server.port())) {
        s.setSoTimeout(10_000);
        s.getOutputStream().write(bytes);
        s.shutdownOutput();
        // whatever it answers, the server ends the connection within the frame timeout
        byte[] all = s.getInputStream().readAllBytes();
        assertTrue(all.length < 2048, all.length + " bytes answered");
      }
    }
    try (BootstrapClient c = client("after the junk")) {
      assertEquals(2, c.welcome().regions().size());
      // the junk's own events may still be arriving
      String e;
      do {
        e = event();
      } while (!e.equals("connected after the junk"));
    }
  }

  @Test
  void anythingButByeAfterTheWelcomeIsRefused() throws Exception {
    Socket s = new Socket("127.0.0.1", server.port());
    s.setSoTimeout(10_000);
    var out = new java.io.DataOutputStream(s.getOutputStream());
    var in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
    Frames.write(out, Frames.HELLO, Hello.encode("chatty"));
    assertEquals(Frames.WELCOME, Frames.read(in, 1 << 20, 0xffff).type());
    assertEquals("connected chatty", event());
    Frames.write(out, Frames.HELLO, Hello.encode("again"));
    Frame f = Frames.read(in, 1 << 20, 0xffff);
    assertEquals(Refusal.UNEXPECTED, Frames.peerError(f).refusal());
    assertEquals(
        "frame type 1 where BYE was expected (this is a fiucx serve)",
        Frames.peerError(f).getMessage());
    assertEquals(
        "refused UNEXPECTED: frame type 1 where BYE was expected (this is a fiucx serve)", event());
    assertEquals(
        "departed chatty: refused: frame type 1 where BYE was expected (this is a fiucx serve)",
        event());
    s.close();
  }

  @Test
  void aProtocolOnTheBootstrapGetsItsOwnFramesAnswered() throws Exception {
    server.close();
    server =
        new BootstrapServer(
            new InetSocketAddress("127.0.0.1", 0),
            BootstrapWireTest.sample(),
            listener,
            Duration.ofMillis(300),
            16,
            request -> {
              if (request.payload().length == 0) {
                throw new BootstrapException(Refusal.MALFORMED, "an empty request");
              }
              return new Frame(request.type() + 1, request.payload().clone());
            });
    // over streams, as a relayed target's parent talks to it
    Socket s = new Socket("127.0.0.1", server.port());
    try (BootstrapClient c =
        BootstrapClient.over(s.getInputStream(), s.getOutputStream(), s, "relayed", "target")) {
      assertEquals("connected relayed", event());
      Frame answer = c.request(0x100, new byte[] {1, 2});
      assertEquals(0x101, answer.type());
      assertArrayEquals(new byte[] {1, 2}, answer.payload());
      assertEquals(
          "request type 4 is the bootstrap's own",
          assertThrows(IllegalArgumentException.class, () -> c.request(Frames.ERROR, new byte[0]))
              .getMessage());
      // a new WELCOME for later initiators; this one keeps its own
      Welcome changed = new Welcome("ucx", "shm", new byte[] {9}, List.of());
      server.welcome(changed);
      try (BootstrapClient later = client("later")) {
        assertEquals("shm", later.welcome().transport());
        assertEquals(List.of(), later.welcome().regions());
      }
      assertEquals(changed, server.welcome());
      assertEquals("tcp", c.welcome().transport());
      BootstrapException e =
          assertThrows(BootstrapException.class, () -> c.request(0x100, new byte[0]));
      assertEquals(Refusal.MALFORMED, e.refusal());
      assertEquals("an empty request", e.getMessage());
      assertTrue(e.fromPeer());
    }
  }

  @Test
  void stalledPeersAreDropped() throws Exception {
    long t0 = System.nanoTime();
    assertRefused(new byte[0], Refusal.STALLED, "no HELLO within 300 ms");
    assertRefused(
        Arrays.copyOf(BootstrapWireTest.frame(Frames.MAGIC, 2, 1, 0, new byte[0]), 5),
        Refusal.STALLED,
        "a frame not finished within 300 ms");
    assertRefused(
        Arrays.copyOf(BootstrapWireTest.frame(Frames.MAGIC, 2, 1, 20, new byte[20]), 20),
        Refusal.STALLED,
        "a frame not finished within 300 ms");
    assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(10));
  }

  @Test
  void oneConnectionMoreThanTheServerTakesIsRefused() throws Exception {
    server.close();
    server = start(1);
    try (BootstrapClient c = client("first")) {
      assertEquals("ucx", c.welcome().provider());
      assertEquals("connected first", event());
      BootstrapException e = assertThrows(BootstrapException.class, () -> client("second"));
      assertEquals(Refusal.TOO_MANY, e.refusal());
      assertEquals("the server serves 1 connections at most", e.getMessage());
      assertEquals("refused TOO_MANY: the server serves 1 connections at most", event());
    }
  }

  @Test
  void closingTellsConnectedInitiatorsByeAndRefusesNewOnes() throws Exception {
    Socket s = new Socket("127.0.0.1", server.port());
    s.setSoTimeout(10_000);
    var out = new java.io.DataOutputStream(s.getOutputStream());
    var in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
    Frames.write(out, Frames.HELLO, Hello.encode("stays"));
    assertEquals(Frames.WELCOME, Frames.read(in, 1 << 20, 0xffff).type());
    assertEquals("connected stays", event());
    int port = server.port();
    server.close();
    assertEquals(Frames.BYE, Frames.read(in, 1 << 20, 0xffff).type());
    assertEquals(-1, in.read());
    assertEquals("departed stays: server shutting down", event());
    assertThrows(IOException.class, () -> new Socket("127.0.0.1", port).close());
    s.close();
  }

  @Test
  void aClientRefusesAPeerThatIsNoBootstrapServer() throws Exception {
    try (ServerSocket http = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      Thread t =
          Thread.ofVirtual()
              .start(
                  () -> {
                    try (Socket s = http.accept()) {
                      s.getOutputStream().write("HTTP/1.1 400 Bad Request\r\n\r\n".getBytes());
                    } catch (IOException e) {
                      // the test fails on its own assertion
                    }
                  });
      BootstrapException e =
          assertThrows(
              BootstrapException.class,
              () ->
                  BootstrapClient.connect(
                      "127.0.0.1", http.getLocalPort(), "x", Duration.ofSeconds(10)));
      assertEquals(Refusal.BAD_MAGIC, e.refusal());
      assertEquals("not a fiucx bootstrap peer (magic 0x48545450)", e.getMessage());
      t.join(10_000);
    }
  }
}
