package dev.fiucx.perf.bench;

import dev.fiucx.AddressVector;
import dev.fiucx.CompletionQueue;
import dev.fiucx.CqEntry;
import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.Endpoint;
import dev.fiucx.Fabric;
import dev.fiucx.FiFlags;
import dev.fiucx.MemoryRegion;
import dev.fiucx.bootstrap.BootstrapException;
import dev.fiucx.bootstrap.Frames;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.ValueLayout;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The target side of bench: one domain, one region that UCX allocates (so peers on shared memory
 * get CPU atomics), one client. It tells the client where the region is, progresses while the
 * client runs, hands out the region's bytes after each run, and exits when the client says BYE or
 * disconnects, or on SIGTERM (or, for a target bench started itself, when its parent goes away).
 *
 * <p>By default it progresses in a loop of its own on a manual-progress domain, as ucx_perftest's
 * server does, so software atomics (tcp) are served at once; between runs it blocks and costs no
 * CPU, which matters when ucx_perftest runs in between on the same cores.
 */
final class BenchServer {
  /** Region sizes beyond this are refused: a runaway request once filled /dev/shm. */
  static final long MAX_REGION_BYTES = 64L << 20;

  /** Progress calls between two looks at the command queue while a run is on. */
  private static final int SPINS_PER_CHECK = 256;

  private final String transport;
  private final boolean spin;
  private final PrintStream log;
  private final BlockingQueue<BootstrapWire.Frame> commands = new LinkedBlockingQueue<>();
  private final CountDownLatch closed = new CountDownLatch(1);
  private volatile boolean stopping;
  private volatile ServerSocket listener;

  /**
   * @param spin progress in a loop of our own (manual progress); otherwise the domain's automatic
   *     progress thread serves the peers
   * @param log where the server says what it does (stderr; stdout carries the listening line)
   */
  BenchServer(String transport, boolean spin, PrintStream log) {
    this.transport = transport;
    this.spin = spin;
    this.log = log;
  }

  /**
   * Serves one client on {@code socket}'s port, after printing {@code listening on HOST:PORT} to
   * {@code announce}. Returns 0 when the client ended cleanly, 1 otherwise.
   */
  int serve(ServerSocket socket, PrintStream announce) {
    this.listener = socket;
    Thread hook = new Thread(this::stopAndWait, "fiucx-bench-server-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    DomainAttr.Progress progress = spin ? DomainAttr.Progress.MANUAL : DomainAttr.Progress.AUTO;
    try (Domain domain =
            Fabric.openDomain("ucx", new DomainAttr(transport, progress, false, Map.of()));
        AddressVector av = domain.openAddressVector();
        Endpoint ep = domain.openEndpoint();
        CompletionQueue cq = domain.openCompletionQueue(16)) {
      ep.bind(av); // the engine wants one on every endpoint; peers reach this one, not back
      ep.bind(cq, FiFlags.TRANSMIT);
      ep.enable();
      announce.println(
          "listening on " + socket.getInetAddress().getHostAddress() + ":" + socket.getLocalPort());
      announce.flush();
      try (Socket client = socket.accept()) {
        client.setTcpNoDelay(true);
        log.println("fiucx bench server: client " + client.getRemoteSocketAddress());
        return session(client, domain, ep, cq);
      }
    } catch (IOException e) {
      if (!stopping) {
        log.println("fiucx bench server: " + e.getMessage());
      }
      return stopping ? 0 : 1;
    } finally {
      closed.countDown();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // the JVM is shutting down: the hook is running or ran
      }
    }
  }

  /** Stops the server from another thread (SIGTERM, parent gone) and waits for it to close. */
  void stopAndWait() {
    stopping = true;
    commands.offer(new BootstrapWire.Frame(BootstrapWire.Type.BYE, new byte[0]));
    try {
      ServerSocket s = listener;
      if (s != null) {
        s.close();
      }
      closed.await(5, TimeUnit.SECONDS);
    } catch (IOException e) {
      // closing only wakes accept
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private int session(Socket client, Domain domain, Endpoint ep, CompletionQueue cq)
      throws IOException {
    DataInputStream in = new DataInputStream(new BufferedInputStream(client.getInputStream()));
    DataOutputStream out = new DataOutputStream(new BufferedOutputStream(client.getOutputStream()));
    long wanted;
    try {
      wanted = BootstrapWire.u64(BootstrapWire.expect(in, BootstrapWire.Type.HELLO));
    } catch (BootstrapException e) {
      // a serve's initiator, or a stranger: tell it why before closing
      Frames.writeError(out, e.refusal(), e.getMessage());
      throw e;
    }
    if (wanted <= 0 || wanted > MAX_REGION_BYTES) {
      BootstrapWire.writeError(
          out, "region of " + wanted + " bytes refused (at most " + MAX_REGION_BYTES + ")");
      return 1;
    }
    try (MemoryRegion mr =
        domain.allocateMemory(wanted, FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE)) {
      BootstrapWire.write(
          out,
          BootstrapWire.Type.READY,
          new BootstrapWire.Ready(ep.name(), mr.key(), wanted).encode());
      startReader(in);
      CqEntry[] entries = {new CqEntry()};
      while (true) {
        BootstrapWire.Frame f = take();
        switch (f.type()) {
          case START -> {
            BootstrapWire.write(out, BootstrapWire.Type.STARTED);
            if (spin) {
              progressUntilCommand(cq, entries);
            }
          }
          case STOP ->
              BootstrapWire.write(
                  out,
                  BootstrapWire.Type.REGION,
                  mr.segment().asSlice(0, wanted).toArray(ValueLayout.JAVA_BYTE));
          case ZERO -> {
            mr.segment().fill((byte) 0);
            BootstrapWire.write(out, BootstrapWire.Type.OK);
          }
          case BYE -> {
            log.println("fiucx bench server: done");
            return 0;
          }
          default -> {
            BootstrapWire.writeError(out, "unexpected " + f.type());
            return 1;
          }
        }
      }
    }
  }

  /**
   * Reads the client's commands on a thread of its own, so the progress loop only looks at a queue;
   * end of stream or a broken connection reads as BYE.
   */
  private void startReader(DataInputStream in) {
    Thread.ofPlatform()
        .daemon()
        .name("fiucx-bench-server-reader")
        .start(
            () -> {
              try {
                BootstrapWire.Frame f;
                while ((f = BootstrapWire.read(in)) != null) {
                  commands.add(f);
                  if (f.type() == BootstrapWire.Type.BYE) {
                    return;
                  }
                }
              } catch (IOException e) {
                if (!stopping) {
                  log.println("fiucx bench server: connection: " + e.getMessage());
                }
              }
              commands.add(new BootstrapWire.Frame(BootstrapWire.Type.BYE, new byte[0]));
            });
  }

  private BootstrapWire.Frame take() {
    try {
      return commands.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new BootstrapWire.Frame(BootstrapWire.Type.BYE, new byte[0]);
    }
  }

  /** Progresses (a CQ read does, under manual progress) until the client sends its next command. */
  private void progressUntilCommand(CompletionQueue cq, CqEntry[] entries) {
    while (commands.isEmpty()) {
      for (int i = 0; i < SPINS_PER_CHECK; i++) {
        cq.read(entries, 1);
      }
    }
  }
}
