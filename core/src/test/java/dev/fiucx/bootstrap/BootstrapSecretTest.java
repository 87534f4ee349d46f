package dev.fiucx.bootstrap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.BootstrapSecurity;
import dev.fiucx.ServeListener;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The shared secret's challenge-response over real loopback sockets: the right secret gets the
 * WELCOME; a wrong, missing or replayed answer gets an ERROR frame and nothing of the WELCOME; an
 * initiator with a secret takes no regions from a target that cannot prove it knows it.
 */
class BootstrapSecretTest {
  static final byte[] SECRET = "the serve's shared secret".getBytes(StandardCharsets.UTF_8);
  static final byte[] OTHER = "another shared secret, wrong".getBytes(StandardCharsets.UTF_8);

  private final BlockingQueue<String> events = new LinkedBlockingQueue<>();
  private BootstrapServer server;

  private final ServeListener listener =
      new ServeListener() {
        @Override
        public void connected(String peer, String client) {
          events.add("connected " + client);
        }

        @Override
        public void refused(String peer, String why) {
          events.add("refused " + why);
        }
      };

  @BeforeEach
  void start() throws IOException {
    server = serve(BootstrapSecurity.none().withSecret(SECRET));
  }

  private BootstrapServer serve(BootstrapSecurity security) throws IOException {
    return new BootstrapServer(
        new InetSocketAddress("127.0.0.1", 0),
        BootstrapWireTest.sample(),
        listener,
        Duration.ofSeconds(5),
        16,
        null,
        security);
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

  private BootstrapClient client(BootstrapSecurity security) throws IOException {
    return BootstrapClient.connect(
        "127.0.0.1", server.port(), "tester", Duration.ofSeconds(10), security);
  }

  @Test
  void theRightSecretGetsTheWelcome() throws Exception {
    try (BootstrapClient c = client(BootstrapSecurity.none().withSecret(SECRET))) {
      assertEquals(BootstrapWireTest.sample().regions(), c.welcome().regions());
      assertArrayEquals(BootstrapWireTest.sample().address(), c.welcome().address());
      assertEquals("connected tester", event());
      assertEquals(1, server.connections());
    }
  }

  @Test
  void aWrongSecretIsRefusedWithoutTheWelcome() throws Exception {
    BootstrapException e =
        assertThrows(
            BootstrapException.class, () -> client(BootstrapSecurity.none().withSecret(OTHER)));
    assertEquals(Refusal.UNAUTHORIZED, e.refusal());
    assertTrue(e.fromPeer());
    assertEquals("wrong shared secret (the answer to the challenge is not right)", e.getMessage());
    assertEquals(
        "refused UNAUTHORIZED: wrong shared secret (the answer to the challenge is not right)",
        event());
    assertEquals(0, server.connections());
  }

  @Test
  void noSecretIsRefusedOnBothSides() throws Exception {
    BootstrapException e =
        assertThrows(BootstrapException.class, () -> client(BootstrapSecurity.none()));
    assertEquals(Refusal.UNAUTHORIZED, e.refusal());
    assertFalse(e.fromPeer());
    assertEquals("the serve asks for a shared secret and none was given", e.getMessage());
    assertEquals(
        "refused UNAUTHORIZED: closed the connection instead of answering the challenge", event());
    assertNull(events.poll(200, TimeUnit.MILLISECONDS), "no connection was reported");
  }

  /** HELLO over a raw socket; returns the CHALLENGE's nonce. */
  private static byte[] hello(DataInputStream in, DataOutputStream out) throws IOException {
    Frames.write(out, Frames.HELLO, Hello.encode("raw"));
    Frame challenge = Frames.read(in, 1 << 20, 0xffff);
    assertEquals(Frames.CHALLENGE, challenge.type());
    return SecretProof.decodeChallenge(challenge.payload());
  }

  /** What follows an answer that is not right: an ERROR frame, then the end, never a WELCOME. */
  private static void assertRefusedThenClosed(DataInputStream in) throws IOException {
    Frame f = Frames.read(in, 1 << 20, 0xffff);
    assertEquals(Frames.ERROR, f.type());
    BootstrapException e = Frames.peerError(f);
    assertEquals(Refusal.UNAUTHORIZED, e.refusal());
    assertEquals("wrong shared secret (the answer to the challenge is not right)", e.getMessage());
    assertEquals(-1, in.read(), "nothing after the ERROR frame");
  }

  @Test
  void aRecordedAnswerIsRefusedOnAnotherConnection() throws Exception {
    byte[] recorded;
    byte[] firstNonce;
    try (Socket s = new Socket("127.0.0.1", server.port())) {
      s.setSoTimeout(10_000);
      DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
      DataOutputStream out = new DataOutputStream(s.getOutputStream());
      firstNonce = hello(in, out);
      byte[] own = SecretProof.nonce();
      recorded = SecretProof.encodeAnswer(own, SecretProof.initiator(SECRET, firstNonce, own));
      Frames.write(out, Frames.ANSWER, recorded);
      assertEquals(Frames.PROOF, Frames.read(in, 1 << 20, 0xffff).type());
      assertEquals(Frames.WELCOME, Frames.read(in, 1 << 20, 0xffff).type());
      assertEquals("connected raw", event());
    }
    try (Socket s = new Socket("127.0.0.1", server.port())) {
      s.setSoTimeout(10_000);
      DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
      DataOutputStream out = new DataOutputStream(s.getOutputStream());
      byte[] nonce = hello(in, out);
      assertFalse(java.util.Arrays.equals(firstNonce, nonce), "a fresh nonce per connection");
      Frames.write(out, Frames.ANSWER, recorded);
      assertRefusedThenClosed(in);
    }
    assertEquals(
        "refused UNAUTHORIZED: wrong shared secret (the answer to the challenge is not right)",
        event());
  }

  @Test
  void anAnswerOfTheTargetsOwnProofIsRefused() throws Exception {
    // a target's proof reflected back as an answer: the labels differ by direction
    try (Socket s = new Socket("127.0.0.1", server.port())) {
      s.setSoTimeout(10_000);
      DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
      DataOutputStream out = new DataOutputStream(s.getOutputStream());
      byte[] nonce = hello(in, out);
      byte[] own = SecretProof.nonce();
      Frames.write(
          out,
          Frames.ANSWER,
          SecretProof.encodeAnswer(own, SecretProof.target(SECRET, nonce, own)));
      assertRefusedThenClosed(in);
    }
  }

  @Test
  void anApplicationFrameBeforeTheAnswerIsRefused() throws Exception {
    try (Socket s = new Socket("127.0.0.1", server.port())) {
      s.setSoTimeout(10_000);
      DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
      DataOutputStream out = new DataOutputStream(s.getOutputStream());
      hello(in, out);
      Frames.write(out, Frames.FIRST_APPLICATION_TYPE, new byte[0]);
      BootstrapException e = Frames.peerError(Frames.read(in, 1 << 20, 0xffff));
      assertEquals(Refusal.UNEXPECTED, e.refusal());
      assertEquals(
          "frame type 256 where ANSWER was expected (this is a fiucx serve)", e.getMessage());
      assertEquals(-1, in.read());
    }
  }

  @Test
  void anInitiatorWithASecretRefusesATargetWithout() throws Exception {
    server.close();
    server = serve(BootstrapSecurity.none());
    BootstrapException e =
        assertThrows(
            BootstrapException.class, () -> client(BootstrapSecurity.none().withSecret(SECRET)));
    assertEquals(Refusal.UNAUTHORIZED, e.refusal());
    assertEquals(
        "the serve asked for no shared secret, so it cannot prove it is the serve meant",
        e.getMessage());
  }

  @Test
  void anInitiatorRefusesATargetThatCannotProveTheSecret() throws Exception {
    // an impostor that challenges, takes any answer and sends a proof it could not compute
    try (ServerSocket impostor =
        new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      Thread t =
          Thread.ofVirtual()
              .start(
                  () -> {
                    try (Socket s = impostor.accept()) {
                      DataInputStream in =
                          new DataInputStream(new BufferedInputStream(s.getInputStream()));
                      DataOutputStream out = new DataOutputStream(s.getOutputStream());
                      Frames.read(in, 1 << 20, 0xffff);
                      Frames.write(out, Frames.CHALLENGE, SecretProof.nonce());
                      Frames.read(in, 1 << 20, 0xffff);
                      Frames.write(out, Frames.PROOF, new byte[SecretProof.PROOF_BYTES]);
                      Frames.write(out, Frames.WELCOME, BootstrapWireTest.sample().encode());
                      in.read();
                    } catch (IOException e) {
                      // the initiator hung up, as it should
                    }
                  });
      BootstrapException e =
          assertThrows(
              BootstrapException.class,
              () ->
                  BootstrapClient.connect(
                      "127.0.0.1",
                      impostor.getLocalPort(),
                      "tester",
                      Duration.ofSeconds(10),
                      BootstrapSecurity.none().withSecret(SECRET)));
      assertEquals(Refusal.UNAUTHORIZED, e.refusal());
      assertEquals(
          "the serve did not prove it knows the shared secret: not the serve meant",
          e.getMessage());
      assertTrue(t.join(Duration.ofSeconds(10)));
    }
  }
}
