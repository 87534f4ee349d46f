package dev.fiucx.perf.bench;

import dev.fiucx.bootstrap.BootstrapException;
import dev.fiucx.bootstrap.Refusal;
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

  /** Connects, asks for a region of {@code regionBytes} and reads where it is. */
  TargetLink(String host, int port, long regionBytes) throws IOException {
    socket = new Socket();
    try {
      socket.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MS);
      socket.setTcpNoDelay(true);
      in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
      out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
      BootstrapWire.write(out, BootstrapWire.Type.HELLO, BootstrapWire.u64(regionBytes));
      ready = BootstrapWire.Ready.decode(BootstrapWire.expect(in, BootstrapWire.Type.READY));
    } catch (IOException e) {
      socket.close();
      if (e.getCause() instanceof BootstrapException b && b.refusal() == Refusal.UNEXPECTED) {
        throw new IOException(
            e.getMessage() + "; against a fiucx serve, name its region with --region NAME", e);
      }
      throw e;
    }
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
