package dev.fiucx.engine;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import dev.fiucx.spi.ExposedRegion;
import dev.fiucx.spi.RemoteAtomicOp;
import dev.fiucx.spi.RemoteRegion;
import dev.fiucx.spi.Transport;
import dev.fiucx.spi.TransportCompletions;
import dev.fiucx.spi.TransportPeer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A transport to this process's own memory, for engine tests without UCX: every atomic is applied
 * at once under a lock, reported PENDING, and completed by the next {@link #progress}, which can be
 * told to throw.
 */
final class LoopbackTransport implements Transport {
  private final TransportCompletions completions;
  private final Arena arena = Arena.ofShared();
  private final Map<Long, ExposedRegion> regions = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<Long> done = new ConcurrentLinkedQueue<>();
  private long nextKey = 1;
  private final AtomicInteger keysResolved = new AtomicInteger();

  /** Thrown by the next progress call, once. */
  final AtomicReference<RuntimeException> throwOnce = new AtomicReference<>();

  /** Thrown by the next postAtomic, once: an engine or transport failure inside a call. */
  final AtomicReference<RuntimeException> throwOnPost = new AtomicReference<>();

  /** Progress calls made by threads whose name starts with {@code fiucx-progress}. */
  final AtomicInteger progressThreadCalls = new AtomicInteger();

  LoopbackTransport(TransportCompletions completions) {
    this.completions = completions;
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
    return expose(arena.allocate((size + 7) & ~7L, 8), access);
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
    int events = 0;
    for (Long token; (token = done.poll()) != null; events++) {
      completions.completed(token, 0);
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

  private record Remote(MemorySegment segment, long access) implements RemoteRegion {
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

    @Override
    public String path() {
      return "loopback";
    }
  }

  private final class Peer implements TransportPeer {
    private final Map<Long, RemoteRegion> cache = new ConcurrentHashMap<>();

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
      cache.put(key, new Remote(r.segment(), r.access()));
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
      MemorySegment target = ((Remote) remote).segment();
      synchronized (LoopbackTransport.this) {
        long old = load(target, offset, size);
        long next =
            switch (op) {
              case ADD -> old + value;
              case SWAP -> value;
              case AND -> old & value;
              case OR -> old | value;
              case XOR -> old ^ value;
              case CSWAP -> throw new IllegalArgumentException("CSWAP goes to postCompareSwap");
            };
        store(target, offset, size, next);
        if (resultAddress != 0) {
          store(at(resultAddress), 0, size, old);
        }
      }
      done.add(token);
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
      MemorySegment target = ((Remote) remote).segment();
      synchronized (LoopbackTransport.this) {
        long old = load(target, offset, size);
        if (old == (size == 8 ? compare : compare & 0xFFFFFFFFL)) {
          store(target, offset, size, swap);
        }
        store(at(resultAddress), 0, size, old);
      }
      done.add(token);
      return PENDING;
    }

    @Override
    public int postGet(
        RemoteRegion remote, long offset, int length, long localAddress, long token) {
      MemorySegment.copy(((Remote) remote).segment(), offset, at(localAddress), 0, length);
      done.add(token);
      return PENDING;
    }

    @Override
    public int postPut(
        RemoteRegion remote, long offset, int length, long localAddress, long token) {
      MemorySegment.copy(at(localAddress), 0, ((Remote) remote).segment(), offset, length);
      done.add(token);
      return PENDING;
    }

    @Override
    public boolean failed() {
      return false;
    }

    @Override
    public void close() {}
  }

  @SuppressWarnings("restricted") // the engine hands this transport native addresses it owns
  private static MemorySegment at(long address) {
    return MemorySegment.ofAddress(address).reinterpret(32);
  }

  private static long load(MemorySegment s, long offset, int size) {
    return size == 8
        ? s.get(JAVA_LONG_UNALIGNED, offset)
        : s.get(JAVA_INT_UNALIGNED, offset) & 0xFFFFFFFFL;
  }

  private static void store(MemorySegment s, long offset, int size, long v) {
    if (size == 8) {
      s.set(JAVA_LONG_UNALIGNED, offset, v);
    } else {
      s.set(JAVA_INT_UNALIGNED, offset, (int) v);
    }
  }
}
