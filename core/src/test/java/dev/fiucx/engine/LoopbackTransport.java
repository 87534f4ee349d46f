package dev.fiucx.engine;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import dev.fiucx.spi.ExposedRegion;
import dev.fiucx.spi.MappedWords;
import dev.fiucx.spi.RemoteAtomicOp;
import dev.fiucx.spi.RemoteRegion;
import dev.fiucx.spi.Transport;
import dev.fiucx.spi.TransportCompletions;
import dev.fiucx.spi.TransportPeer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A transport to this process's own memory, for engine tests without UCX: every atomic is applied
 * at once with this CPU's atomics ({@link MappedWords}), reported PENDING, and completed by the
 * next {@link #progress}, which can be told to throw. Opened {@code mapped}, it also hands its
 * regions out as mapped into this process, as a shared-memory transport does, so that the engine
 * may run one-element calls on them in place. Told to {@link #holdUntilProgress}, it carries out
 * what was posted only at the next progress, newest first: nothing orders a transport's operations
 * unless the engine waits for their completions. Told to {@link #holdUntilReleased}, it keeps what
 * was posted until the test {@link #releaseHeld releases} it: a slow operation whose end the test
 * decides. Its peers can be told they {@link #peersFailed failed}. A peer {@link
 * TransportPeer#abandon abandoned} ends what it keeps with the errno, carrying none of it out.
 */
final class LoopbackTransport implements Transport {
  private final TransportCompletions completions;
  private final Arena arena = Arena.ofShared();
  private final Map<Long, ExposedRegion> regions = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<Long> done = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedDeque<Runnable> held = new ConcurrentLinkedDeque<>();

  /** What {@link #holdUntilReleased} keeps: progress never takes it. */
  private final ConcurrentLinkedQueue<Kept> kept = new ConcurrentLinkedQueue<>();

  /** A post kept until released: its token, and what carrying it out does. */
  private record Kept(long token, Runnable op) {}

  /** Tokens to complete with an error at the next progress: [token, status]. */
  private final ConcurrentLinkedQueue<long[]> failedTokens = new ConcurrentLinkedQueue<>();

  private final boolean mapped;
  private long nextKey = 1;
  private final AtomicInteger keysResolved = new AtomicInteger();

  /** While set, posts are carried out at the next progress, the newest first. */
  volatile boolean holdUntilProgress;

  /** While set, posts wait for {@link #releaseHeld}: progress neither carries out nor ends them. */
  volatile boolean holdUntilReleased;

  /** What every peer's {@link TransportPeer#failed} says. */
  volatile boolean peersFailed;

  /** Atomics, gets and puts posted, the self-test's included. */
  final AtomicLong posts = new AtomicLong();

  /** Thrown by the next progress call, once. */
  final AtomicReference<RuntimeException> throwOnce = new AtomicReference<>();

  /** Thrown by the next postAtomic, once: an engine or transport failure inside a call. */
  final AtomicReference<RuntimeException> throwOnPost = new AtomicReference<>();

  /** Progress calls made by threads whose name starts with {@code fiucx-progress}. */
  final AtomicInteger progressThreadCalls = new AtomicInteger();

  LoopbackTransport(TransportCompletions completions) {
    this(completions, false);
  }

  /**
   * @param mapped whether peers see the regions as mapped into this process ({@link
   *     TransportPeer#mapped})
   */
  LoopbackTransport(TransportCompletions completions, boolean mapped) {
    this.completions = completions;
    this.mapped = mapped;
  }

  @Override
  public byte[] address() {
    return new byte[] {1, 2, 3, 4};
  }

  @Override
  public long instanceId() {
    return 42;
  }

  @Override
  public void onInitiatorFailure(java.util.function.LongConsumer listener) {}

  @Override
  public TransportPeer connect(byte[] peerAddress) {
    return new Peer();
  }

  @Override
  public synchronized ExposedRegion allocate(long size, long access) {
    // page-aligned, as UCX allocates: an offset aligned for its element is an aligned address
    return expose(arena.allocate((size + 7) & ~7L, 4096), access);
  }

  @Override
  public synchronized ExposedRegion register(MemorySegment segment, long access) {
    return expose(segment, access);
  }

  private ExposedRegion expose(MemorySegment segment, long access) {
    long key = nextKey++;
    ExposedRegion r =
        new ExposedRegion() {
          @Override
          public long key() {
            return key;
          }

          @Override
          public MemorySegment segment() {
            return segment;
          }

          @Override
          public long access() {
            return access;
          }

          @Override
          public void close() {
            regions.remove(key);
          }
        };
    regions.put(key, r);
    return r;
  }

  @Override
  public int progress() {
    if (Thread.currentThread().getName().startsWith("fiucx-progress")) {
      progressThreadCalls.incrementAndGet();
    }
    RuntimeException e = throwOnce.getAndSet(null);
    if (e != null) {
      throw e;
    }
    for (Runnable op; (op = held.pollLast()) != null; ) {
      op.run();
    }
    int events = 0;
    for (Long token; (token = done.poll()) != null; events++) {
      completions.completed(token, 0);
    }
    for (long[] f; (f = failedTokens.poll()) != null; events++) {
      completions.completed(f[0], (int) f[1]);
    }
    return events;
  }

  @Override
  public long keysResolved() {
    return keysResolved.get();
  }

  /** None: a loopback peer keeps what it resolved (closing a region does not tell it). */
  @Override
  public long keysRevoked() {
    return 0;
  }

  @Override
  public Map<String, String> describe() {
    return Map.of("provider", "loopback");
  }

  @Override
  public void close() {
    arena.close();
  }

  /**
   * Carries out what {@link #holdUntilReleased} kept, the oldest first; their completions come with
   * the next progress. Returns how many.
   */
  int releaseHeld() {
    int n = 0;
    for (Kept k; (k = kept.poll()) != null; n++) {
      k.op().run();
      done.add(k.token());
    }
    return n;
  }

  /**
   * Carries out {@code op} now, at the next progress while {@link #holdUntilProgress}, or when
   * released while {@link #holdUntilReleased}; then completes {@code token}.
   */
  private void carryOut(long token, Runnable op) {
    posts.incrementAndGet();
    Runnable carried =
        () -> {
          op.run();
          done.add(token);
        };
    if (holdUntilReleased) {
      kept.add(new Kept(token, op));
    } else if (holdUntilProgress) {
      held.add(carried);
    } else {
      carried.run();
    }
  }

  private record Remote(MemorySegment segment, long access, String path) implements RemoteRegion {
    @Override
    public long base() {
      return segment.address();
    }

    @Override
    public long length() {
      return segment.byteSize();
    }

    @Override
    public boolean revoked() {
      return false;
    }
  }

  private final class Peer implements TransportPeer {
    private final Map<Long, RemoteRegion> cache = new ConcurrentHashMap<>();

    /** The errno posts return since this peer was abandoned, or 0. */
    private volatile int abandonedWith;

    @Override
    public RemoteRegion cached(long key) {
      return cache.get(key);
    }

    @Override
    public int resolve(long key) {
      ExposedRegion r = regions.get(key);
      if (r == null) {
        return -dev.fiucx.FiErrno.EKEYREJECTED;
      }
      cache.put(key, new Remote(r.segment(), r.access(), mapped ? "mapped" : "loopback"));
      keysResolved.incrementAndGet();
      return 0;
    }

    @Override
    public int postAtomic(
        RemoteRegion remote,
        long offset,
        RemoteAtomicOp op,
        int size,
        long value,
        long resultAddress,
        long token) {
      RuntimeException injected = throwOnPost.getAndSet(null);
      if (injected != null) {
        throw injected;
      }
      if (abandonedWith != 0) {
        return abandonedWith;
      }
      MemorySegment target = ((Remote) remote).segment();
      carryOut(
          token,
          () -> {
            long old = MappedWords.apply(target, offset, op, size, value);
            if (resultAddress != 0) {
              store(at(resultAddress), 0, size, old);
            }
          });
      return PENDING;
    }

    @Override
    public int postCompareSwap(
        RemoteRegion remote,
        long offset,
        int size,
        long compare,
        long swap,
        long resultAddress,
        long token) {
      RuntimeException injected = throwOnPost.getAndSet(null);
      if (injected != null) {
        throw injected;
      }
      if (abandonedWith != 0) {
        return abandonedWith;
      }
      MemorySegment target = ((Remote) remote).segment();
      carryOut(
          token,
          () ->
              store(
                  at(resultAddress),
                  0,
                  size,
                  MappedWords.compareSwap(target, offset, size, compare, swap)));
      return PENDING;
    }

    @Override
    public int postGet(
        RemoteRegion remote, long offset, int length, long localAddress, long token) {
      if (abandonedWith != 0) {
        return abandonedWith;
      }
      carryOut(
          token,
          () ->
              MemorySegment.copy(((Remote) remote).segment(), offset, at(localAddress), 0, length));
      return PENDING;
    }

    @Override
    public int postPut(
        RemoteRegion remote, long offset, int length, long localAddress, long token) {
      if (abandonedWith != 0) {
        return abandonedWith;
      }
      carryOut(
          token,
          () ->
              MemorySegment.copy(at(localAddress), 0, ((Remote) remote).segment(), offset, length));
      return PENDING;
    }

    @Override
    public MemorySegment mapped(RemoteRegion remote) {
      return mapped ? ((Remote) remote).segment() : null;
    }

    @Override
    public void abandon(int errno, String why) {
      if (abandonedWith != 0) {
        return;
      }
      abandonedWith = errno;
      for (Kept k; (k = kept.poll()) != null; ) {
        failedTokens.add(new long[] {k.token(), errno}); // never carried out
      }
    }

    @Override
    public boolean failed() {
      return peersFailed || abandonedWith != 0;
    }

    @Override
    public void close() {}
  }

  @SuppressWarnings("restricted") // the engine hands this transport native addresses it owns
  private static MemorySegment at(long address) {
    return MemorySegment.ofAddress(address).reinterpret(32);
  }

  private static void store(MemorySegment s, long offset, int size, long v) {
    if (size == 8) {
      s.set(JAVA_LONG_UNALIGNED, offset, v);
    } else {
      s.set(JAVA_INT_UNALIGNED, offset, (int) v);
    }
  }
}
