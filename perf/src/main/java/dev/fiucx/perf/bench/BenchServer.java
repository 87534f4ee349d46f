package dev.fiucx.perf.bench;

import dev.fiucx.AddressVector;
import dev.fiucx.BootstrapSecurity;
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
import dev.fiucx.bootstrap.Refusal;
import dev.fiucx.bootstrap.SecretProof;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.ValueLayout;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
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
 * <p>With a shared secret, the client and the server prove they know it both ways (the bootstrap's
 * {@link SecretProof}) right after the client's HELLO, before any memory is allocated or anything
 * of the domain is sent. A client refused (wrong or no secret, a serve's initiator, one that
 * stalls) is told why and does not end the server: the next one may come.
 *
 * <p>By default it progresses in a loop of its own on a manual-progress domain, as ucx_perftest's
 * server does, so software atomics (tcp) are served at once; between runs it blocks and costs no
 * CPU, which matters when ucx_perftest runs in between on the same cores.
 *
 * <p>With {@code --perftest-server} ({@link #runPerftestServer}) it starts ucx_perftest's server
 * side on this host when the client asks for a round of it (PERFTEST), with its domain's UCX_TLS
 * and settings, answers with its port once it listens, and reaps it when the client says the round
 * ended (PERFTEST_DONE) or leaves. Without it such a request is refused with the reason, and the
 * session goes on.
 */
final class BenchServer {
  /** Region sizes beyond this are refused: a runaway request once filled /dev/shm. */
  static final long MAX_REGION_BYTES = 64L << 20;

  /** Progress calls between two looks at the command queue while a run is on. */
  private static final int SPINS_PER_CHECK = 256;

  /** How long a client may take from connecting to its READY: HELLO and the proofs. */
  static final int ADMIT_TIMEOUT_MS = 10_000;

  private final String transport;
  private final boolean spin;
  private final byte[] secret;
  private final boolean insecureBind;
  private final PrintStream log;
  private final BlockingQueue<BootstrapWire.Frame> commands = new LinkedBlockingQueue<>();
  private final CountDownLatch closed = new CountDownLatch(1);
  private volatile boolean stopping;
  private volatile ServerSocket listener;

  /** ucx_perftest to run the server side of rounds with, or null ({@code --perftest-server}). */
  private java.nio.file.Path perftest;

  /**
   * @param spin progress in a loop of our own (manual progress); otherwise the domain's automatic
   *     progress thread serves the peers
   * @param log where the server says what it does (stderr; stdout carries the listening line)
   * @param security the secret clients must prove (none: any client), and whether a bind beyond
   *     loopback was allowed without one (only for the log line; the caller checks the bind)
   */
  BenchServer(String transport, boolean spin, PrintStream log, BootstrapSecurity security) {
    this.transport = transport;
    this.spin = spin;
    this.log = log;
    this.secret = security.secret();
    this.insecureBind = security.insecureBind();
  }

  /** Runs ucx_perftest's server side (at {@code executable}) when the client asks for a round. */
  BenchServer runPerftestServer(java.nio.file.Path executable) {
    this.perftest = executable;
    return this;
  }

  /**
   * Serves one client on {@code socket}'s port (the first one admitted), after printing {@code
   * listening on HOST:PORT} to {@code announce}. Returns 0 when the client ended cleanly, 1
   * otherwise.
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
      log.println(
          "fiucx bench server: "
              + (secret != null
                  ? "clients must prove the shared secret"
                  : insecureBind
                      ? "no secret: the region's key to anyone who connects (--insecure)"
                      : "no secret: loopback only"));
      while (true) {
        try (Socket client = socket.accept()) {
          client.setTcpNoDelay(true);
          String peer = String.valueOf(client.getRemoteSocketAddress());
          DataInputStream in =
              new DataInputStream(new BufferedInputStream(client.getInputStream()));
          DataOutputStream out =
              new DataOutputStream(new BufferedOutputStream(client.getOutputStream()));
          long wanted;
          try {
            wanted = admit(client, in, out);
          } catch (BootstrapException e) {
            log.println("fiucx bench server: refused " + peer + ": " + e.getMessage());
            refuse(client, out, e);
            continue;
          } catch (IOException e) {
            log.println(
                "fiucx bench server: lost " + peer + " before its READY: " + e.getMessage());
            continue;
          }
          log.println("fiucx bench server: client " + peer);
          return session(in, out, wanted, domain, ep, cq);
        }
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

  /**
   * The client's HELLO, then the proofs of the secret both ways when there is one, all within
   * {@link #ADMIT_TIMEOUT_MS}: nothing of the domain leaves before.
   *
   * @return the region bytes the client wants
   * @throws BootstrapException the client is refused: told why, it is closed
   */
  private long admit(Socket client, DataInputStream in, DataOutputStream out) throws IOException {
    client.setSoTimeout(ADMIT_TIMEOUT_MS);
    try {
      BootstrapWire.Frame hello = BootstrapWire.read(in);
      if (hello == null) {
        throw new IOException("closed the connection without a HELLO");
      }
      if (hello.type() != BootstrapWire.Type.HELLO) {
        throw new BootstrapException(
            Refusal.UNEXPECTED, hello.type() + " where HELLO was expected");
      }
      long wanted = BootstrapWire.u64(hello.payload());
      if (secret != null) {
        byte[] challenge = SecretProof.challenge();
        BootstrapWire.write(out, BootstrapWire.Type.CHALLENGE, challenge);
        BootstrapWire.Frame answer = BootstrapWire.read(in);
        if (answer == null) {
          throw new BootstrapException(
              Refusal.UNAUTHORIZED, "closed the connection instead of answering the challenge");
        }
        if (answer.type() != BootstrapWire.Type.ANSWER) {
          throw new BootstrapException(
              Refusal.UNEXPECTED, answer.type() + " where ANSWER was expected");
        }
        byte[] proof = SecretProof.checkAnswer(secret, challenge, answer.payload());
        BootstrapWire.write(out, BootstrapWire.Type.PROOF, proof);
      }
      client.setSoTimeout(0);
      return wanted;
    } catch (SocketTimeoutException e) {
      throw new BootstrapException(
          Refusal.STALLED, "no HELLO and proof within " + ADMIT_TIMEOUT_MS + " ms");
    }
  }

  /** Tells a refused client why (best effort: it may be gone), so closing sends FIN after it. */
  private static void refuse(Socket client, DataOutputStream out, BootstrapException e) {
    try {
      Frames.writeError(out, e.refusal(), e.getMessage());
      client.shutdownOutput();
    } catch (IOException gone) {
      // nothing to tell a client that left; closing is all that is left
    }
  }

  private int session(
      DataInputStream in,
      DataOutputStream out,
      long wanted,
      Domain domain,
      Endpoint ep,
      CompletionQueue cq)
      throws IOException {
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
      PerftestRunner.Server[] rounds = {null};
      try {
        return commands(out, mr, wanted, domain, cq, entries, rounds);
      } finally {
        reap(rounds);
      }
    }
  }

  /** The client's commands until BYE (0) or one out of place (1). */
  private int commands(
      DataOutputStream out,
      MemoryRegion mr,
      long wanted,
      Domain domain,
      CompletionQueue cq,
      CqEntry[] entries,
      PerftestRunner.Server[] round)
      throws IOException {
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
        case PERFTEST -> {
          reap(round);
          String refused = perftestRefusal();
          if (refused != null) {
            log.println("fiucx bench server: refused a ucx_perftest round: " + refused);
            BootstrapWire.writeError(out, refused);
            break;
          }
          try {
            round[0] = perftestRunner(domain).startServer();
          } catch (IOException e) {
            log.println("fiucx bench server: ucx_perftest's server: " + e.getMessage());
            BootstrapWire.writeError(out, "ucx_perftest's server did not start: " + e.getMessage());
            break;
          }
          log.println(
              "fiucx bench server: ucx_perftest -p "
                  + round[0].port()
                  + " listening (UCX_TLS="
                  + domain.describe().getOrDefault("ucx.tls", "?")
                  + ")");
          BootstrapWire.write(
              out, BootstrapWire.Type.PERFTEST_PORT, BootstrapWire.u64(round[0].port()));
        }
        case PERFTEST_DONE -> {
          reap(round);
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

  /** Why a ucx_perftest round is refused, or null when this server runs them. */
  private String perftestRefusal() {
    if (perftest == null) {
      return "this bench --server runs no ucx_perftest (start it with --perftest-server to"
          + " compare with ucx_perftest from another host)";
    }
    return null;
  }

  /** ucx_perftest with this domain's UCX_TLS and settings, as bench's own rounds get. */
  private PerftestRunner perftestRunner(Domain domain) {
    Map<String, String> facts = domain.describe();
    return new PerftestRunner(
        perftest,
        facts.getOrDefault("ucx.tls", transport),
        PerftestRunner.ucxEnvironment(facts),
        log);
  }

  /** Reaps the round's ucx_perftest server, if one runs, and says how it ended. */
  private void reap(PerftestRunner.Server[] round) {
    if (round[0] != null) {
      int status = round[0].reap();
      log.println(
          "fiucx bench server: ucx_perftest -p "
              + round[0].port()
              + (status < 0 ? " ended (it had not exited)" : " exited with " + status));
      round[0] = null;
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
