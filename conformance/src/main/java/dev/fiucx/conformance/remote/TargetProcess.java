package dev.fiucx.conformance.remote;

import dev.fiucx.FiFlags;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * The target side of a two-process test: a serve in test mode ({@link TestModeServe}) on a free
 * loopback port. Its first line on stdout is a serve's, {@code fiucx serve: listening on
 * 127.0.0.1:PORT}; the parent then connects with the bootstrap ({@link RemoteTarget}). It runs
 * until its standard input ends (the parent closed it, or died), or until SIGTERM: then, as a
 * user's serve does, it closes its bootstrap, its region and its domain before it exits.
 *
 * <p>Arguments: {@code provider transport length allocate|register read-only|read-write [tcp|stdio
 * [bind [offset:hex]]]}, transport {@code -} for the provider's default. With {@code stdio} the
 * process relays its standard input and output to its own bootstrap, for a parent that cannot reach
 * its loopback (a target in another network namespace): the same bootstrap session, carried by a
 * pipe. {@code bind} is the bootstrap's {@code HOST:PORT} ({@code -}: loopback, a free port), for
 * initiators that connect by name; {@code offset:hex} are bytes written into the region before the
 * bootstrap listens.
 */
public final class TargetProcess {
  /** The start of the first line, as {@code fiucx serve} prints it. */
  static final String LISTENING = "fiucx serve: listening on ";

  private TargetProcess() {}

  /**
   * Serves the target the arguments describe until its parent goes.
   *
   * @param args as the class comment says
   * @throws Exception when the target cannot be served
   */
  public static void main(String[] args) throws Exception {
    String provider = args[0];
    String transport = args[1].equals("-") ? null : args[1];
    long length = Long.parseLong(args[2]);
    boolean register = args[3].equals("register");
    long access =
        args.length > 4 && args[4].equals("read-only")
            ? FiFlags.REMOTE_READ
            : FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE;
    boolean relay = args.length > 5 && args[5].equals("stdio");
    InetSocketAddress bind = new InetSocketAddress("127.0.0.1", 0);
    if (args.length > 6 && !args[6].equals("-")) {
      int colon = args[6].lastIndexOf(':');
      bind =
          new InetSocketAddress(
              args[6].substring(0, colon), Integer.parseInt(args[6].substring(colon + 1)));
    }
    long presetOffset = 0;
    byte[] preset = new byte[0];
    if (args.length > 7) {
      int colon = args[7].indexOf(':');
      presetOffset = Long.parseLong(args[7].substring(0, colon));
      preset = HexFormat.of().parseHex(args[7].substring(colon + 1));
    }
    OutputStream stdout = new FileOutputStream(FileDescriptor.out);
    // stdout carries the listening line (and the relayed bootstrap): whatever else prints goes to
    // stderr, where UCX logs too (UCX_LOG_FILE=stderr)
    System.setOut(System.err);
    try (TestModeServe serve =
        new TestModeServe(
            provider, transport, length, register, access, bind, presetOffset, preset)) {
      // SIGTERM: a clean stop, as a serve's (closing twice does nothing)
      Runtime.getRuntime().addShutdownHook(new Thread(serve::close, "fiucx-target-stop"));
      InetSocketAddress at = serve.address();
      stdout.write(
          (LISTENING + at.getAddress().getHostAddress() + ":" + at.getPort() + "\n")
              .getBytes(StandardCharsets.UTF_8));
      stdout.flush();
      if (relay) {
        relay(at, System.in, stdout);
      } else {
        System.in.transferTo(OutputStream.nullOutputStream());
      }
    }
  }

  /**
   * Carries the bootstrap between stdin/stdout and a connection to this process's own bootstrap,
   * until stdin ends.
   */
  private static void relay(InetSocketAddress at, InputStream in, OutputStream out)
      throws IOException, InterruptedException {
    try (Socket s = new Socket(at.getAddress(), at.getPort())) {
      s.setTcpNoDelay(true);
      Thread back =
          Thread.ofPlatform()
              .daemon()
              .name("fiucx-target-relay")
              .start(
                  () -> {
                    try {
                      copy(s.getInputStream(), out);
                    } catch (IOException e) {
                      // the connection closed: the parent is leaving
                    }
                  });
      copy(in, s.getOutputStream());
      s.shutdownOutput();
      back.join(10_000);
    }
  }

  /** Copies and flushes as bytes arrive (a frame must not wait in a buffer for the next). */
  private static void copy(InputStream from, OutputStream to) throws IOException {
    byte[] buf = new byte[64 << 10];
    int n;
    while ((n = from.read(buf)) >= 0) {
      to.write(buf, 0, n);
      to.flush();
    }
  }
}
