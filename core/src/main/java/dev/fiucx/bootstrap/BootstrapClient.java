package dev.fiucx.bootstrap;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;

/**
 * The initiator's side of the bootstrap: connects, says HELLO, reads the {@link Welcome}, and keeps
 * the connection open until {@link #close} says BYE, so the target sees when this initiator goes.
 */
public final class BootstrapClient implements AutoCloseable {
  private final Socket socket;
  private final DataOutputStream out;
  private final Welcome welcome;

  private BootstrapClient(Socket socket, DataOutputStream out, Welcome welcome) {
    this.socket = socket;
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
      Frames.write(out, Frames.HELLO, Hello.encode(client));
      Frame f;
      try {
        f = Frames.read(in, BootstrapServer.MAX_PAYLOAD, Frames.FIRST_APPLICATION_TYPE - 1);
      } catch (SocketTimeoutException e) {
        throw new BootstrapException(
            Refusal.STALLED, "no WELCOME from " + host + ":" + port + " within " + millis + " ms");
      }
      if (f == null) {
        throw new IOException(host + ":" + port + " closed the connection instead of a WELCOME");
      }
      if (f.type() == Frames.ERROR) {
        throw Frames.peerError(f);
      }
      if (f.type() != Frames.WELCOME) {
        throw new BootstrapException(
            Refusal.UNEXPECTED, "frame type " + f.type() + " where WELCOME was expected");
      }
      Welcome w = Welcome.decode(f.payload());
      socket.setSoTimeout(0);
      return new BootstrapClient(socket, out, w);
    } catch (IOException | RuntimeException e) {
      socket.close();
      throw e;
    }
  }

  public Welcome welcome() {
    return welcome;
  }

  /** Says BYE and closes; the target is told this initiator left. */
  @Override
  public void close() {
    if (socket.isClosed()) {
      return;
    }
    try (socket) {
      synchronized (out) {
        Frames.write(out, Frames.BYE, new byte[0]);
      }
    } catch (IOException e) {
      // the target is gone or closed first; nothing to tell it
    }
  }
}
