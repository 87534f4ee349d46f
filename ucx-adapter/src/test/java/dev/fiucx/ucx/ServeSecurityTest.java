package dev.fiucx.ucx;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.BootstrapSecurity;
import dev.fiucx.Connection;
import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.ServeAttr;
import dev.fiucx.ServeListener;
import dev.fiucx.Server;
import dev.fiucx.TlsContexts;
import dev.fiucx.conformance.remote.TestCertificates;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A serve's shared secret and TLS through {@code Fabric.serve} and {@code Fabric.connect} over real
 * UCX: whoever lacks the secret or trusts another certificate gets no region, and the served bytes
 * stay as they were; whoever has them takes a ticket.
 */
@RequiresUcx
class ServeSecurityTest {
  static final byte[] SECRET = "the serve's shared secret".getBytes(StandardCharsets.UTF_8);
  static final byte[] WRONG = "not the serve's shared secret".getBytes(StandardCharsets.UTF_8);
  static final BootstrapSecurity WITH_SECRET = BootstrapSecurity.none().withSecret(SECRET);

  @TempDir Path dir;

  private final BlockingQueue<String> refusals = new LinkedBlockingQueue<>();

  private Server serve(String bind, BootstrapSecurity security) {
    return Fabric.serve(
        "ucx",
        new ServeAttr(
            bind,
            0,
            List.of(new ServeAttr.Region("counter", 64, ServeConnectTest.RW)),
            new DomainAttr("shm", DomainAttr.Progress.AUTO, false, Map.of()),
            security),
        new ServeListener() {
          @Override
          public void refused(String peer, String why) {
            refusals.add(why);
          }
        });
  }

  private static FiException refused(String hostPort, BootstrapSecurity security) {
    return assertThrows(
        FiException.class, () -> Fabric.connect(hostPort, DomainAttr.defaults(), security));
  }

  private String refusal() throws InterruptedException {
    String why = refusals.poll(10, TimeUnit.SECONDS);
    assertTrue(why != null, "the serve reported no refusal within 10 s");
    return why;
  }

  /** One ticket over {@code c}: the counter's value before this call's add. */
  private static long ticket(Connection c) {
    try (ServeConnectTest.TicketTaker t = new ServeConnectTest.TicketTaker(c)) {
      return t.take();
    }
  }

  @Test
  void aWrongOrMissingSecretGetsNoRegionAndChangesNothing() throws Exception {
    try (Server server = serve("127.0.0.1", WITH_SECRET)) {
      String hostPort = "127.0.0.1:" + server.port();
      server.memory("counter").set(JAVA_LONG, 0, 41);

      FiException wrong = refused(hostPort, BootstrapSecurity.none().withSecret(WRONG));
      assertEquals(FiErrno.EACCES, wrong.errno());
      assertEquals(
          "FI_EACCES: permission denied: "
              + hostPort
              + " refused: wrong shared secret (the answer to the challenge is not right)",
          wrong.getMessage());
      assertEquals(
          "UNAUTHORIZED: wrong shared secret (the answer to the challenge is not right)",
          refusal());

      FiException none = refused(hostPort, BootstrapSecurity.none());
      assertEquals(FiErrno.EACCES, none.errno());
      assertEquals(
          "FI_EACCES: permission denied: "
              + hostPort
              + ": the serve asks for a shared secret and none was given",
          none.getMessage());
      assertEquals(
          "UNAUTHORIZED: closed the connection instead of answering the challenge", refusal());

      assertEquals(0, server.connections());
      assertEquals(41, server.memory("counter").get(JAVA_LONG, 0));
      try (Connection c = Fabric.connect(hostPort, DomainAttr.defaults(), WITH_SECRET)) {
        assertEquals(41, ticket(c));
      }
      assertEquals(42, server.memory("counter").get(JAVA_LONG, 0));
    }
  }

  @Test
  void aServeBeyondLoopbackNeedsASecretOrLeave() {
    FiException e =
        assertThrows(FiException.class, () -> serve("0.0.0.0", BootstrapSecurity.none()));
    assertEquals(FiErrno.EACCES, e.errno());
    assertEquals(
        "FI_EACCES: permission denied: a serve on 0.0.0.0 without a shared secret would give every region's key to anyone who"
            + " reaches it: give a secret, or allow it with BootstrapSecurity.withInsecureBind",
        e.getMessage());
    try (Server server = serve("0.0.0.0", WITH_SECRET);
        Connection c =
            Fabric.connect("127.0.0.1:" + server.port(), DomainAttr.defaults(), WITH_SECRET)) {
      assertEquals(0, ticket(c));
    }
  }

  @Test
  void tlsCarriesTheSecretAndRefusesAnotherCertificate() throws Exception {
    TestCertificates serve = TestCertificates.make(dir, "serve", "127.0.0.1");
    TestCertificates stranger = TestCertificates.make(dir, "stranger", "127.0.0.1");
    TestCertificates elsewhere = TestCertificates.make(dir, "elsewhere", "10.0.0.1");
    SSLContext trustServe = TlsContexts.clientTrusting(serve.certificate());

    for (SSLContext own :
        List.of(
            TlsContexts.serverFromPem(serve.key(), serve.certificate()),
            TlsContexts.serverFromKeystore(serve.keystore(), serve.password().toCharArray()))) {
      try (Server server = serve("127.0.0.1", WITH_SECRET.withTls(own))) {
        String hostPort = "127.0.0.1:" + server.port();
        server.memory("counter").set(JAVA_LONG, 0, 7);

        FiException untrusted =
            refused(
                hostPort, WITH_SECRET.withTls(TlsContexts.clientTrusting(stranger.certificate())));
        assertEquals(FiErrno.ECONNREFUSED, untrusted.errno());
        // the rest is the JDK's words, which its releases change
        assertTrue(
            untrusted
                .getMessage()
                .startsWith(
                    "FI_ECONNREFUSED: connection refused: TLS with " + hostPort + " failed: "),
            untrusted.getMessage());
        assertTrue(
            untrusted.getMessage().contains("unable to find valid certification path"),
            untrusted.getMessage());
        assertTrue(refusal().startsWith("TLS: "));

        FiException plain = refused(hostPort, WITH_SECRET);
        assertEquals(
            "FI_EIO: I/O error: " + hostPort + ": the peer speaks TLS and this side plain TCP",
            plain.getMessage());
        assertEquals(FiErrno.EIO, plain.errno());
        assertTrue(refusal().startsWith("TLS: "));

        assertEquals(0, server.connections());
        assertEquals(7, server.memory("counter").get(JAVA_LONG, 0));
        try (Connection c =
            Fabric.connect(hostPort, DomainAttr.defaults(), WITH_SECRET.withTls(trustServe))) {
          assertEquals(7, ticket(c));
        }
      }
    }

    try (Server server =
        serve(
            "127.0.0.1",
            WITH_SECRET.withTls(
                TlsContexts.serverFromPem(elsewhere.key(), elsewhere.certificate())))) {
      String hostPort = "127.0.0.1:" + server.port();
      FiException misnamed =
          refused(
              hostPort, WITH_SECRET.withTls(TlsContexts.clientTrusting(elsewhere.certificate())));
      assertEquals(FiErrno.ECONNREFUSED, misnamed.errno());
      assertTrue(
          misnamed
              .getMessage()
              .startsWith(
                  "FI_ECONNREFUSED: connection refused: TLS with " + hostPort + " failed: "),
          misnamed.getMessage());
      assertTrue(
          misnamed.getMessage().contains("No subject alternative names matching IP address"),
          misnamed.getMessage());
    }
  }
}
