package dev.fiucx.bootstrap;

import dev.fiucx.BootstrapSecurity;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * The initiator's side of the bootstrap: connects, says HELLO, reads the {@link Welcome}, and keeps
 * the connection open until {@link #close} says BYE, so the target sees when this initiator goes. A
 * protocol built on the bootstrap exchanges its own frames on the same connection ({@link
 * #request}).
 */
public final class BootstrapClient implements AutoCloseable {
  private final Closeable connection;
  private final DataInputStream in;
  private final DataOutputStream out;
  private final Welcome welcome;
  private boolean closed;

  private BootstrapClient(
      Closeable connection, DataInputStream in, DataOutputStream out, Welcome welcome) {
    this.connection = connection;
    this.in = in;
    this.out = out;
    this.welcome = welcome;
  }

  /**
   * Connects to a target's bootstrap without a secret or TLS and reads its WELCOME.
   *
   * @param client what this initiator is, for the target's log (cut to 256 bytes)
   * @param timeout for the TCP connect and for the WELCOME
   * @throws BootstrapException when the target refused (its ERROR frame) or sent what is not a
   *     WELCOME; another {@link IOException} when it cannot be reached
   */
  public static BootstrapClient connect(String host, int port, String client, Duration timeout)
      throws IOException {
    return connect(host, port, client, timeout, BootstrapSecurity.none());
  }

  /**
   * Connects to a target's bootstrap, over TLS when {@code security} has a context (checking that
   * the target's certificate names {@code host}), proves the shared secret when it has one and
   * checks the target's proof, and reads the WELCOME.
   *
   * @throws BootstrapException {@link Refusal#UNAUTHORIZED} when a secret was not proven either
   *     way; as {@link #connect(String, int, String, Duration)} otherwise
   * @throws javax.net.ssl.SSLException when the TLS handshake fails (a certificate not trusted)
   */
  public static BootstrapClient connect(
      String host, int port, String client, Duration timeout, BootstrapSecurity security)
      throws IOException {
    int millis = Math.clamp(timeout.toMillis(), 1, Integer.MAX_VALUE);
    String target = host + ":" + port;
    Socket socket = new Socket();
    try {
      socket.connect(new InetSocketAddress(host, port), millis);
      socket.setTcpNoDelay(true);
      socket.setSoTimeout(millis);
      if (security.tls() != null) {
        socket = tls(socket, host, port, security.tls().getSocketFactory());
      }
      DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
      DataOutputStream out =
          new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
      Welcome w;
      try {
        w = hello(in, out, client, target, security.secret());
      } catch (SocketTimeoutException e) {
        throw new BootstrapException(
            Refusal.STALLED, "no WELCOME from " + target + " within " + millis + " ms");
      }
      socket.setSoTimeout(0);
      return new BootstrapClient(socket, in, out, w);
    } catch (IOException | RuntimeException e) {
      socket.close();
      throw e;
    }
  }

  /** TLS over the connected socket; the handshake checks the certificate against the host. */
  private static Socket tls(Socket plain, String host, int port, SSLSocketFactory factory)
      throws IOException {
    SSLSocket s = (SSLSocket) factory.createSocket(plain, host, port, true);
    SSLParameters p = s.getSSLParameters();
    p.setEndpointIdentificationAlgorithm("HTTPS");
    s.setSSLParameters(p);
    try {
      s.startHandshake();
    } catch (SSLException e) {
      s.close();
      throw new SSLException("TLS with " + host + ":" + port + " failed: " + e.getMessage(), e);
    }
    return s;
  }

  /**
   * Says HELLO over streams that reach a target's bootstrap some other way than a socket of this
   * process (a pipe into a process in another network namespace, which relays them to its
   * bootstrap) and reads the WELCOME. Reads have no timeout: closing {@code connection} (or the
   * other end going away) ends them.
   *
   * @param connection what {@link #close} closes after saying BYE
   * @param target the target's name in messages
   */
  public static BootstrapClient over(
      InputStream input, OutputStream output, Closeable connection, String client, String target)
      throws IOException {
    DataInputStream in = new DataInputStream(new BufferedInputStream(input));
    DataOutputStream out = new DataOutputStream(new BufferedOutputStream(output));
    try {
      return new BootstrapClient(connection, in, out, hello(in, out, client, target, null));
    } catch (IOException | RuntimeException e) {
      connection.close();
      throw e;
    }
  }

  /**
   * HELLO, then the challenge when the target asks (or must ask: {@code secret} is not null), then
   * the WELCOME. The target's proof is checked before its WELCOME is read, so a target that does
   * not know the secret hands this initiator no regions.
   */
  private static Welcome hello(
      DataInputStream in, DataOutputStream out, String client, String target, byte[] secret)
      throws IOException {
    Frames.write(out, Frames.HELLO, Hello.encode(client));
    Frame f = next(in, target);
    if (f.type() == Frames.CHALLENGE) {
      if (secret == null) {
        throw new BootstrapException(
            Refusal.UNAUTHORIZED, "the serve asks for a shared secret and none was given");
      }
      SecretProof.Answer answer = SecretProof.answer(secret, f.payload());
      Frames.write(out, Frames.ANSWER, answer.payload());
      f = next(in, target);
      if (f.type() != Frames.PROOF) {
        throw unexpected(f, "PROOF");
      }
      answer.checkProof(f.payload(), "serve");
      f = next(in, target);
    } else if (secret != null && f.type() == Frames.WELCOME) {
      throw new BootstrapException(
          Refusal.UNAUTHORIZED,
          "the serve asked for no shared secret, so it cannot prove it is the serve meant");
    }
    if (f.type() != Frames.WELCOME) {
      throw unexpected(f, "WELCOME");
    }
    return Welcome.decode(f.payload());
  }

  /** The target's next frame; its ERROR frame or the end of the stream as an exception. */
  private static Frame next(DataInputStream in, String target) throws IOException {
    Frame f = Frames.read(in, BootstrapServer.MAX_PAYLOAD, Frames.FIRST_APPLICATION_TYPE - 1);
    if (f == null) {
      throw new IOException(target + " closed the connection instead of a WELCOME");
    }
    if (f.type() == Frames.ERROR) {
      throw Frames.peerError(f);
    }
    return f;
  }

  private static BootstrapException unexpected(Frame f, String expected) {
    return new BootstrapException(
        Refusal.UNEXPECTED, "frame type " + f.type() + " where " + expected + " was expected");
  }

  public Welcome welcome() {
    return welcome;
  }

  /**
   * Sends one frame of a protocol built on the bootstrap (a type from {@link
   * Frames#FIRST_APPLICATION_TYPE}) and returns the target's answer, which is of such a type too.
   *
   * @throws BootstrapException the target's ERROR frame (it then closed the connection), or an
   *     answer of the bootstrap's own types (BYE: the target is shutting down)
   */
  public synchronized Frame request(int type, byte[] payload) throws IOException {
    if (type < Frames.FIRST_APPLICATION_TYPE || type > 0xffff) {
      throw new IllegalArgumentException("request type " + type + " is the bootstrap's own");
    }
    Frames.write(out, type, payload);
    Frame f = Frames.read(in, BootstrapServer.MAX_PAYLOAD, 0xffff);
    if (f == null) {
      throw new IOException("the target closed the connection instead of answering");
    }
    if (f.type() == Frames.ERROR) {
      throw Frames.peerError(f);
    }
    if (f.type() < Frames.FIRST_APPLICATION_TYPE) {
      throw new BootstrapException(
          Refusal.UNEXPECTED,
          "frame type " + f.type() + " where the answer to type " + type + " was expected");
    }
    return f;
  }

  /** Says BYE and closes; the target is told this initiator left. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try (connection) {
      Frames.write(out, Frames.BYE, new byte[0]);
    } catch (IOException e) {
      // the target is gone or closed first; nothing to tell it
    }
  }
}
