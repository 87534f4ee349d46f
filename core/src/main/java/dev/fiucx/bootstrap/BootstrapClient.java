package dev.fiucx.bootstrap;

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
   * Connects to a target's bootstrap and reads its WELCOME.
   *
   * @param client what this initiator is, for the target's log (cut to 256 bytes)
   * @param timeout for the TCP connect and for the WELCOME
   * @throws BootstrapException when the target refused (its ERROR frame) or sent what is not a
   *     WELCOME; another {@link IOException} when it cannot be reached
   */
  public static BootstrapClient connect(String host, int port, String client, Duration timeout)
      throws IOException {
    int millis = Math.clamp(timeout.toMillis(), 1, Integer.MAX_VALUE);
    Socket socket = new Socket();
    try {
      socket.connect(new InetSocketAddress(host, port), millis);
      socket.setTcpNoDelay(true);
      socket.setSoTimeout(millis);
      DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
      DataOutputStream out =
          new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
      Welcome w;
      try {
        w = hello(in, out, client, host + ":" + port);
      } catch (SocketTimeoutException e) {
        throw new BootstrapException(
            Refusal.STALLED, "no WELCOME from " + host + ":" + port + " within " + millis + " ms");
      }
      socket.setSoTimeout(0);
      return new BootstrapClient(socket, in, out, w);
    } catch (IOException | RuntimeException e) {
      socket.close();
      throw e;
    }
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
      return new BootstrapClient(connection, in, out, hello(in, out, client, target));
    } catch (IOException | RuntimeException e) {
      connection.close();
      throw e;
    }
  }

  private static Welcome hello(
      DataInputStream in, DataOutputStream out, String client, String target) throws IOException {
    Frames.write(out, Frames.HELLO, Hello.encode(client));
    Frame f = Frames.read(in, BootstrapServer.MAX_PAYLOAD, Frames.FIRST_APPLICATION_TYPE - 1);
    if (f == null) {
      throw new IOException(target + " closed the connection instead of a WELCOME");
    }
    if (f.type() == Frames.ERROR) {
      throw Frames.peerError(f);
    }
    if (f.type() != Frames.WELCOME) {
      throw new BootstrapException(
          Refusal.UNEXPECTED, "frame type " + f.type() + " where WELCOME was expected");
    }
    return Welcome.decode(f.payload());
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
