package dev.fiucx.bootstrap;

import dev.fiucx.BootstrapSecurity;
import dev.fiucx.ServeListener;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * The target's side of the bootstrap: accepts on a daemon thread, gives each connection a virtual
 * thread of its own, answers HELLO with the {@link Welcome} and then keeps the connection until the
 * initiator says BYE or goes away, so the listener hears of departures as well as arrivals.
 *
 * <p>Nothing a peer sends can stop or block the server: every field has a limit, a frame that
 * breaks one is answered with an ERROR frame naming the {@link Refusal} and the connection is
 * closed, and a peer that starts a frame (or connects and never says HELLO) and does not finish it
 * within the frame timeout is dropped as {@link Refusal#STALLED}. An initiator that said HELLO may
 * stay silent as long as it likes. Refusals are logged at WARNING on the {@code
 * dev.fiucx.bootstrap} logger.
 *
 * <p>With a shared secret ({@link BootstrapSecurity}) the HELLO is answered with a CHALLENGE, and
 * only a right ANSWER gets the server's PROOF and the WELCOME ({@link SecretProof}); a wrong or
 * missing answer is refused as {@link Refusal#UNAUTHORIZED} before anything of the domain leaves.
 * With TLS every connection is a TLS connection, its handshake within the frame timeout; a failed
 * handshake is reported to the listener as refused.
 *
 * <p>A protocol built on the bootstrap (the conformance module's test-mode target) passes {@link
 * Requests} to answer its own frames (types from {@link Frames#FIRST_APPLICATION_TYPE}) on a
 * connection that said HELLO; without it, as on every user's serve, such a frame is refused as
 * {@link Refusal#UNEXPECTED}.
 */
public final class BootstrapServer implements AutoCloseable {
  static final System.Logger LOG = System.getLogger("dev.fiucx.bootstrap");

  /** The bootstrap's own frames are small: a WELCOME of 256 regions is some 25 KiB. */
  static final int MAX_PAYLOAD = 64 << 10;

  /**
   * Answers a protocol's own frames after the WELCOME, one at a time per connection, on the
   * connection's thread.
   */
  public interface Requests {
    /**
     * The reply to {@code request} (a type from {@link Frames#FIRST_APPLICATION_TYPE}).
     *
     * @throws BootstrapException to refuse it: the connection gets an ERROR frame and is closed
     */
    Frame answer(Frame request) throws BootstrapException;
  }

  private volatile Welcome welcome;
  private volatile byte[] welcomePayload;
  private final Requests requests;
  private final byte[] secret;
  private final ServeListener listener;
  private final int frameTimeoutMillis;
  private final int maxConnections;
  private final ServerSocket socket;
  private final Set<Session> sessions = ConcurrentHashMap.newKeySet();
  private final Thread acceptor;
  private volatile boolean closing;

  /**
   * Binds and starts accepting.
   *
   * @param bind the address and port to listen on (port 0 picks one; see {@link #port})
   * @param frameTimeout how long a peer may take to say HELLO, and to finish any frame it started
   * @param maxConnections connections served at once; one more is refused with {@link
   *     Refusal#TOO_MANY}
   */
  public BootstrapServer(
      InetSocketAddress bind,
      Welcome welcome,
      ServeListener listener,
      Duration frameTimeout,
      int maxConnections)
      throws IOException {
    this(bind, welcome, listener, frameTimeout, maxConnections, null, BootstrapSecurity.none());
  }

  /**
   * Binds and starts accepting, answering a protocol's own frames with {@code requests} (null:
   * refused, as on a user's serve).
   */
  public BootstrapServer(
      InetSocketAddress bind,
      Welcome welcome,
      ServeListener listener,
      Duration frameTimeout,
      int maxConnections,
      Requests requests)
      throws IOException {
    this(bind, welcome, listener, frameTimeout, maxConnections, requests, BootstrapSecurity.none());
  }

  /**
   * Binds and starts accepting, with the shared secret and TLS of {@code security} (its insecure
   * bind is the caller's to check).
   */
  public BootstrapServer(
      InetSocketAddress bind,
      Welcome welcome,
      ServeListener listener,
      Duration frameTimeout,
      int maxConnections,
      Requests requests,
      BootstrapSecurity security)
      throws IOException {
    this.secret = security.secret();
    this.requests = requests;
    this.welcome = welcome;
    this.welcomePayload = welcome.encode();
    this.listener = listener == null ? new ServeListener() {} : listener;
    this.frameTimeoutMillis = Math.clamp(frameTimeout.toMillis(), 1, Integer.MAX_VALUE);
    this.maxConnections = maxConnections;
    socket =
        security.tls() == null
            ? new ServerSocket()
            : security.tls().getServerSocketFactory().createServerSocket();
    try {
      socket.setReuseAddress(true);
      socket.bind(bind, 64);
    } catch (IOException e) {
      socket.close();
      throw e;
    }
    acceptor = Thread.ofPlatform().daemon().name("fiucx-bootstrap-accept").start(this::accept);
  }

  /** The address it listens on. */
  public InetSocketAddress address() {
    return (InetSocketAddress) socket.getLocalSocketAddress();
  }

  public int port() {
    return socket.getLocalPort();
  }

  public Welcome welcome() {
    return welcome;
  }

  /** What initiators that say HELLO from now on are told (a region was closed or renewed). */
  public void welcome(Welcome changed) {
    welcomePayload = changed.encode();
    welcome = changed;
  }

  /** Initiators connected now (said HELLO and have not left). */
  public int connections() {
    return (int) sessions.stream().filter(s -> s.client != null).count();
  }

  private void accept() {
    while (!closing) {
      Socket s;
      try {
        s = socket.accept();
      } catch (IOException e) {
        if (closing || socket.isClosed()) {
          return;
        }
        // out of file descriptors, say: keep serving those connected, try again shortly
        LOG.log(Level.WARNING, "bootstrap accept failed: " + e.getMessage());
        sleepQuietly(50);
        continue;
      }
      Session session = new Session(s);
      if (sessions.size() >= maxConnections) {
        session.refuse(
            new BootstrapException(
                Refusal.TOO_MANY, "the server serves " + maxConnections + " connections at most"));
        continue;
      }
      sessions.add(session);
      try {
        Thread.ofVirtual().name("fiucx-bootstrap-" + session.peer).start(session::run);
      } catch (RuntimeException | Error e) {
        sessions.remove(session);
        session.closeQuietly();
        LOG.log(Level.WARNING, "bootstrap session for " + session.peer + " did not start", e);
      }
    }
  }

  /**
   * Stops accepting, tells every connected initiator BYE and closes its connection; waits up to a
   * second for the sessions to end.
   */
  @Override
  public void close() {
    if (closing) {
      return;
    }
    closing = true;
    try {
      socket.close();
    } catch (IOException e) {
      // closing the listening socket only wakes accept
    }
    for (Session s : sessions) {
      s.goodbye();
    }
    try {
      acceptor.join(1000);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
      while (!sessions.isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** One connection: HELLO, WELCOME, then waiting for BYE or the end. */
  private final class Session {
    final Socket s;
    final String peer;
    volatile String client;
    private DataOutputStream out;

    /** Whether this connection's TLS handshake finished (always false without TLS). */
    private volatile boolean handshaken;

    Session(Socket s) {
      this.s = s;
      this.peer = hostPort((InetSocketAddress) s.getRemoteSocketAddress());
      if (s instanceof javax.net.ssl.SSLSocket tls) {
        tls.addHandshakeCompletedListener(event -> handshaken = true);
      }
    }

    /**
     * Whether a connection that ended before its HELLO failed in its TLS handshake: the JDK does
     * not always say so with an SSLException (a peer that closes after reading our alert ends it as
     * a plain end of stream or reset), yet for the listener it is a refusal all the same.
     */
    private boolean tlsFailed() {
      return s instanceof javax.net.ssl.SSLSocket && !handshaken;
    }

    private void refusedTls(String why) {
      LOG.log(Level.WARNING, "bootstrap: refused " + peer + ": TLS: " + why);
      notify(() -> listener.refused(peer, "TLS: " + why));
    }

    void run() {
      String why = "connection closed";
      try {
        s.setTcpNoDelay(true);
        s.setSoTimeout(frameTimeoutMillis);
        DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
        synchronized (this) {
          out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream()));
        }
        Frame hello = readFrame(in, "HELLO");
        if (hello == null) {
          if (tlsFailed()) {
            refusedTls("the peer left during the handshake");
          }
          return; // connected and left without a word: nothing to tell
        }
        if (hello.type() != Frames.HELLO) {
          throw unexpected(hello, "HELLO");
        }
        String c = Hello.decode(hello.payload());
        if (secret != null) {
          authenticate(in);
        }
        synchronized (this) {
          Frames.write(out, Frames.WELCOME, welcomePayload);
        }
        client = c.isEmpty() ? "an initiator" : c;
        notify(() -> listener.connected(peer, client));
        while (true) {
          Frame f = readFrame(in, null);
          if (f == null) {
            break;
          }
          if (f.type() == Frames.BYE) {
            why = "said BYE";
            break;
          }
          if (requests == null || f.type() < Frames.FIRST_APPLICATION_TYPE) {
            throw unexpected(f, "BYE");
          }
          Frame reply = requests.answer(f);
          synchronized (this) {
            Frames.write(out, reply.type(), reply.payload());
          }
        }
      } catch (BootstrapException e) {
        why = "refused: " + e.getMessage();
        refuse(e);
      } catch (SSLException e) {
        if (client == null) {
          // no frame can be sent over a failed handshake: the peer's TLS stack told it already
          refusedTls(e.getMessage());
        } else {
          why = "connection lost: TLS: " + e.getMessage();
        }
      } catch (IOException e) {
        if (client == null && !closing && tlsFailed()) {
          refusedTls(e.getMessage());
        }
        why = closing ? "server shutting down" : "connection lost: " + e.getMessage();
      } finally {
        sessions.remove(this);
        closeQuietly();
        String c = client;
        if (c != null) {
          String w = closing && why.equals("connection closed") ? "server shutting down" : why;
          notify(() -> listener.departed(peer, c, w));
        }
      }
    }

    /**
     * CHALLENGE with a fresh nonce; the ANSWER must prove the secret over it (so an answer recorded
     * on another connection is wrong here); then PROOF. Every wait counts against the frame
     * timeout.
     */
    private void authenticate(DataInputStream in) throws IOException {
      byte[] challenge = SecretProof.challenge();
      synchronized (this) {
        Frames.write(out, Frames.CHALLENGE, challenge);
      }
      Frame answer = readFrame(in, "ANSWER");
      if (answer == null) {
        throw new BootstrapException(
            Refusal.UNAUTHORIZED, "closed the connection instead of answering the challenge");
      }
      if (answer.type() != Frames.ANSWER) {
        throw unexpected(answer, "ANSWER");
      }
      byte[] proof = SecretProof.checkAnswer(secret, challenge, answer.payload());
      synchronized (this) {
        Frames.write(out, Frames.PROOF, proof);
      }
    }

    /**
     * The next frame, or null at the end of the stream. Until the WELCOME ({@code expected} names
     * the frame awaited) every wait counts against the frame timeout; afterwards ({@code expected}
     * null) only the wait inside a frame does (an initiator may stay silent).
     */
    private Frame readFrame(DataInputStream in, String expected) throws IOException {
      int first;
      while (true) {
        try {
          first = in.read();
          break;
        } catch (SocketTimeoutException e) {
          if (expected != null) {
            throw new BootstrapException(
                Refusal.STALLED, "no " + expected + " within " + frameTimeoutMillis + " ms");
          }
        }
      }
      if (first < 0) {
        return null;
      }
      try {
        // any type is read, so another protocol's frame (bench's) is told it came to a serve
        Frame f = Frames.readRest(first, in, MAX_PAYLOAD, 0xffff);
        if (f.type() > Frames.PROOF && f.type() < Frames.FIRST_APPLICATION_TYPE) {
          throw new BootstrapException(Refusal.BAD_TYPE, "unknown frame type " + f.type());
        }
        return f;
      } catch (SocketTimeoutException e) {
        throw new BootstrapException(
            Refusal.STALLED, "a frame not finished within " + frameTimeoutMillis + " ms");
      }
    }

    private BootstrapException unexpected(Frame f, String expected) {
      return new BootstrapException(
          Refusal.UNEXPECTED,
          "frame type "
              + f.type()
              + " where "
              + expected
              + " was expected (this is a fiucx serve)");
    }

    /** Answers with an ERROR frame (best effort), logs, tells the listener, closes. */
    void refuse(BootstrapException e) {
      LOG.log(
          Level.WARNING, "bootstrap: refused " + peer + ": " + e.refusal() + ": " + e.getMessage());
      try {
        synchronized (this) {
          if (out == null) {
            out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream()));
          }
          Frames.writeError(out, e.refusal(), e.getMessage());
        }
        // the peer may still be sending: stop reading, so closing sends FIN after the ERROR
        s.shutdownOutput();
      } catch (IOException ignored) {
        // the peer is gone already; closing is all that is left
      }
      notify(() -> listener.refused(peer, e.refusal() + ": " + e.getMessage()));
      closeQuietly();
    }

    /** The server is closing: BYE, then the socket closes (which ends run's read). */
    void goodbye() {
      try {
        synchronized (this) {
          if (out != null && client != null) {
            s.setSoTimeout(200);
            Frames.write(out, Frames.BYE, new byte[0]);
          }
        }
      } catch (IOException | RuntimeException e) {
        // a peer that does not read cannot block the shutdown: the socket closes anyway
      }
      closeQuietly();
    }

    void closeQuietly() {
      try {
        s.close();
      } catch (IOException e) {
        // nothing left to do for this connection
      }
    }

    private void notify(Runnable call) {
      try {
        call.run();
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "bootstrap: the serve listener threw", e);
      }
    }
  }

  static String hostPort(InetSocketAddress a) {
    if (a == null) {
      return "?";
    }
    String host = a.getAddress() == null ? a.getHostString() : a.getAddress().getHostAddress();
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + a.getPort();
  }
}
