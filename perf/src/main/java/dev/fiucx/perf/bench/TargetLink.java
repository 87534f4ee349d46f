package dev.fiucx.perf.bench;

import dev.fiucx.bootstrap.BootstrapException;
import dev.fiucx.bootstrap.Frames;
import dev.fiucx.bootstrap.Refusal;
import dev.fiucx.bootstrap.SecretProof;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;

/** The initiator's end of the bootstrap connection to a {@link BenchServer}. */
final class TargetLink implements BenchTarget {
  private static final int CONNECT_TIMEOUT_MS = 10_000;

  private final Socket socket;
  private final DataInputStream in;
  private final DataOutputStream out;
  private final BootstrapWire.Ready ready;
  private final String target;

  /**
   * Connects, asks for a region of {@code regionBytes}, proves the shared secret both ways when the
   * server asks for it or {@code secret} is given, and reads where the region is.
   *
   * @param secret the server's shared secret, or null for a server without one
   */
  TargetLink(String host, int port, long regionBytes, byte[] secret) throws IOException {
    socket = new Socket();
    target = host + ":" + port;
    try {
      socket.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MS);
      socket.setTcpNoDelay(true);
      in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
      out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
      BootstrapWire.write(out, BootstrapWire.Type.HELLO, BootstrapWire.u64(regionBytes));
      ready = BootstrapWire.Ready.decode(admitted(secret, host + ":" + port));
    } catch (IOException e) {
      socket.close();
      if (e.getCause() instanceof BootstrapException b && b.refusal() == Refusal.UNEXPECTED) {
        throw new IOException(
            e.getMessage() + "; against a fiucx serve, name its region with --region NAME", e);
      }
      throw e;
    }
  }

  /**
   * The proofs of the secret, when the server challenges or this side has a secret (a server that
   * does not ask cannot prove it is the one meant), then READY's payload.
   */
  private byte[] admitted(byte[] secret, String target) throws IOException {
    BootstrapWire.Frame f = next(target);
    if (f.type() == BootstrapWire.Type.CHALLENGE) {
      if (secret == null) {
        throw new BootstrapException(
            Refusal.UNAUTHORIZED,
            target
                + ": the bench server asks for a shared secret and none was given (--secret-file"
                + " FILE or FIUCX_SECRET)");
      }
      SecretProof.Answer answer = SecretProof.answer(secret, f.payload());
      BootstrapWire.write(out, BootstrapWire.Type.ANSWER, answer.payload());
      f = next(target);
      if (f.type() != BootstrapWire.Type.PROOF) {
        throw new IOException("expected PROOF from the bench target, got " + f.type());
      }
      try {
        answer.checkProof(f.payload(), "bench server");
      } catch (BootstrapException e) {
        throw new BootstrapException(e.refusal(), target + ": " + e.getMessage());
      }
      f = next(target);
    } else if (secret != null && f.type() == BootstrapWire.Type.READY) {
      throw new BootstrapException(
          Refusal.UNAUTHORIZED,
          target
              + ": the bench server asked for no shared secret, so it cannot prove it is the bench"
              + " server meant");
    }
    if (f.type() != BootstrapWire.Type.READY) {
      throw new IOException("expected READY from the bench target, got " + f.type());
    }
    return f.payload();
  }

  /** The server's next frame; its ERROR frame as an exception naming the target. */
  private BootstrapWire.Frame next(String target) throws IOException {
    BootstrapWire.Frame f = BootstrapWire.read(in);
    if (f == null) {
      throw new IOException(target + " closed the connection before READY");
    }
    if (f.type() == BootstrapWire.Type.ERROR) {
      BootstrapException e =
          Frames.peerError(new dev.fiucx.bootstrap.Frame(Frames.ERROR, f.payload()));
      throw new IOException(target + " refused: " + e.getMessage(), e);
    }
    return f;
  }

  /** The target domain's address, for the address vector. */
  @Override
  public byte[] address() {
    return ready.address().clone();
  }

  @Override
  public long key() {
    return ready.key();
  }

  @Override
  public long regionLength() {
    return ready.length();
  }

  @Override
  public boolean exclusive() {
    return true;
  }

  /** The target starts progressing (a spinning target begins to use its core). */
  @Override
  public void start() throws IOException {
    BootstrapWire.write(out, BootstrapWire.Type.START);
    BootstrapWire.expect(in, BootstrapWire.Type.STARTED);
  }

  /** The target stops progressing and hands over its region's bytes. */
  @Override
  public byte[] stop() throws IOException {
    BootstrapWire.write(out, BootstrapWire.Type.STOP);
    return BootstrapWire.expect(in, BootstrapWire.Type.REGION);
  }

  /** The target zeroes its region; only while no operation is in flight. */
  @Override
  public void zero() throws IOException {
    BootstrapWire.write(out, BootstrapWire.Type.ZERO);
    BootstrapWire.expect(in, BootstrapWire.Type.OK);
  }

  /**
   * Has the target start ucx_perftest's server on its host for a round (between runs).
   *
   * @return the port it listens on
   * @throws BenchUsageException the target refused (it runs no ucx_perftest): the reason, naming
   *     the target
   */
  int startPerftestServer() throws IOException {
    BootstrapWire.write(out, BootstrapWire.Type.PERFTEST);
    BootstrapWire.Frame f = BootstrapWire.read(in);
    if (f == null) {
      throw new IOException(target + " closed the connection (expected PERFTEST_PORT)");
    }
    if (f.type() == BootstrapWire.Type.ERROR) {
      BootstrapException e =
          Frames.peerError(new dev.fiucx.bootstrap.Frame(Frames.ERROR, f.payload()));
      throw new BenchUsageException(target + " refused: " + e.getMessage());
    }
    if (f.type() != BootstrapWire.Type.PERFTEST_PORT) {
      throw new IOException("expected PERFTEST_PORT from the bench target, got " + f.type());
    }
    long port = BootstrapWire.u64(f.payload());
    if (port <= 0 || port > 65535) {
      throw new IOException(target + " sent ucx_perftest's port as " + port);
    }
    return (int) port;
  }

  /** The round's ucx_perftest client ended: the target reaps its server. */
  void perftestDone() throws IOException {
    BootstrapWire.write(out, BootstrapWire.Type.PERFTEST_DONE);
    BootstrapWire.expect(in, BootstrapWire.Type.OK);
  }

  /** Says BYE, so the target closes its domain and exits, and closes the connection. */
  @Override
  public void close() {
    try (socket) {
      BootstrapWire.write(out, BootstrapWire.Type.BYE);
    } catch (IOException e) {
      // the target is gone already; it exits on end of stream anyway
    }
  }
}
