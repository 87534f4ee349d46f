package dev.fiucx.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.spi.TransportPeer;

/**
 * Two transports in one JVM, each connected to the other, driven from the test thread: every wait
 * progresses both workers, the way two processes would each progress their own.
 */
final class TransportPair implements AutoCloseable {
  static final long TIMEOUT_NANOS = 5_000_000_000L;

  final RecordingCompletions completionsA = new RecordingCompletions();
  final RecordingCompletions completionsB = new RecordingCompletions();
  final UcxTransport a;
  final UcxTransport b;
  final UcxPeer aToB;
  final UcxPeer bToA;
  private long nextToken = 1;

  TransportPair(UcxOptions options) {
    this(options, null);
  }

  /** Both on UCX_PROTO_ENABLE={@code protoEnable}, or on the series' choice where null. */
  TransportPair(UcxOptions options, String protoEnable) {
    a = new UcxTransport(completionsA, options, AtomicRequests.DEFAULT_SLOTS, protoEnable);
    b = new UcxTransport(completionsB, options, AtomicRequests.DEFAULT_SLOTS, protoEnable);
    aToB = (UcxPeer) a.connect(b.address());
    bToA = (UcxPeer) b.connect(a.address());
  }

  /**
   * A pair on {@code transports}; {@code "shm-ucp"} is shared memory with the direct path off, so
   * every atomic goes through UCX even where the peer's region could be mapped.
   */
  static TransportPair of(String transports) {
    boolean ucpOnly = transports.endsWith("-ucp");
    return new TransportPair(
        UcxOptions.defaults()
            .withTransports(ucpOnly ? transports.substring(0, transports.length() - 4) : transports)
            .withDirectPath(!ucpOnly));
  }

  long token() {
    return nextToken++;
  }

  void progressBoth() {
    a.progress();
    b.progress();
  }

  /** The final status of an operation A posted: 0 or a negative fi_errno. */
  int complete(int posted, long token) {
    if (posted == TransportPeer.DONE) {
      return 0;
    }
    if (posted < 0) {
      return posted;
    }
    assertEquals(TransportPeer.PENDING, posted);
    long deadline = System.nanoTime() + TIMEOUT_NANOS;
    Integer status;
    while ((status = completionsA.status(token)) == null) {
      assertTrue(System.nanoTime() - deadline < 0, "no completion for token " + token);
      progressBoth();
    }
    return status;
  }

  /** Flushes A's endpoint to B, so that B's memory holds the result of every earlier post. */
  void flush() {
    long t = token();
    assertEquals(0, complete(aToB.postFlush(t), t));
  }

  /** Resolves a key of B at A without blocking either side. */
  int resolve(long key) {
    UcxPeer.PendingResolve p = aToB.startResolve(key);
    long deadline = System.nanoTime() + TIMEOUT_NANOS;
    while (!p.done) {
      assertTrue(System.nanoTime() - deadline < 0, "no answer to resolve");
      progressBoth();
    }
    return p.status;
  }

  /** Revokes a region of B, progressing both until it is unmapped. */
  void revoke(UcxExposedRegion region) {
    region.beginRevoke();
    long deadline = System.nanoTime() + TIMEOUT_NANOS;
    while (!region.revokeDone()) {
      assertTrue(System.nanoTime() - deadline < 0, "revoke did not finish");
      progressBoth();
    }
  }

  /**
   * Closes both at once, B on a helper thread: closing flushes endpoints and waits for revoke
   * acknowledgements, which needs the other side to progress, as a peer process would. Each
   * single-threaded transport is still driven by one thread only.
   */
  @Override
  public void close() {
    closeBoth(a, b);
  }

  /** Closes {@code b} on a helper thread while the caller closes {@code a}. */
  static void closeBoth(UcxTransport a, UcxTransport b) {
    Thread closer = Thread.ofPlatform().start(b::close);
    a.close();
    try {
      closer.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /**
   * Runs {@code action} on the test thread while a helper thread progresses B, for the blocking
   * calls of the SPI (resolve, close of a region of A) that wait for the other side.
   */
  <T> T withBProgressing(java.util.function.Supplier<T> action) {
    var stop = new java.util.concurrent.atomic.AtomicBoolean();
    Thread progressor =
        Thread.ofPlatform()
            .start(
                () -> {
                  while (!stop.get()) {
                    b.progress();
                  }
                });
    try {
      return action.get();
    } finally {
      stop.set(true);
      try {
        progressor.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
