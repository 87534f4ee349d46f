package dev.fiucx.engine;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.fiucx.AddressVector;
import dev.fiucx.CompletionQueue;
import dev.fiucx.Counter;
import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.DomainAttr;
import dev.fiucx.Endpoint;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.MemoryRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;

/**
 * An endpoint of an engine domain over {@link LoopbackTransport}, connected to its own domain, with
 * a read-write region, a second one and a read-only one to aim at, a completion queue and a read
 * and a write counter: what the engine's tests need to call every form of fi_atomic(3) without UCX
 * and read the target's bytes back.
 */
final class LoopbackRig implements AutoCloseable {
  static final long RW = FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE;

  /** The bytes of {@link #region} and {@link #second}. */
  static final int REGION = 4096;

  static final int READ_ONLY_REGION = 64;

  /** How the transport carries out what the engine posts. */
  enum Mode {
    /** Posted to the transport, completed by the next progress (manual progress). */
    POSTED,
    /**
     * Regions mapped into this process: a one-element call runs on the mapping in the call, and
     * repeated calls to one place take the endpoint's remembered route (manual progress).
     */
    MAPPED,
    /** Posted, carried out only at the next progress and the newest first (manual progress). */
    HELD,
    /** Posted, completed by the domain's progress thread. */
    AUTO
  }

  final Mode mode;
  final LoopbackTransport transport;
  final EngineDomain domain;
  final Arena arena = Arena.ofShared();
  final MemoryRegion region;
  final MemorySegment target;
  final MemoryRegion second;
  final MemoryRegion readOnly;
  final AddressVector av;
  final CompletionQueue cq;
  final Counter reads;
  final Counter writes;
  final Endpoint ep;
  final long peer;
  final long key;

  private final CqEntry[] entries = {new CqEntry(), new CqEntry()};

  /**
   * @param cqFlags how the completion queue is bound: {@code FI_TRANSMIT}, with or without {@code
   *     FI_SELECTIVE_COMPLETION}
   */
  LoopbackRig(Mode mode, long cqFlags) {
    this(mode, cqFlags, false);
  }

  LoopbackRig(Mode mode, long cqFlags, boolean virtualAddressing) {
    this(mode, cqFlags, virtualAddressing, Map.of());
  }

  /**
   * @param options domain options ({@link DomainAttr}'s), {@code operation_timeout_ms} say
   */
  LoopbackRig(Mode mode, long cqFlags, boolean virtualAddressing, Map<String, String> options) {
    this.mode = mode;
    LoopbackTransport[] opened = new LoopbackTransport[1];
    domain =
        new EngineDomain(
            "loopback",
            new DomainAttr(
                null,
                mode == Mode.AUTO ? DomainAttr.Progress.AUTO : DomainAttr.Progress.MANUAL,
                virtualAddressing,
                options),
            completions -> opened[0] = new LoopbackTransport(completions, mode == Mode.MAPPED));
    transport = opened[0];
    transport.holdUntilProgress = mode == Mode.HELD;
    region = domain.allocateMemory(REGION, RW);
    target = region.segment();
    second = domain.allocateMemory(REGION, RW);
    readOnly = domain.allocateMemory(READ_ONLY_REGION, FiFlags.REMOTE_READ);
    av = domain.openAddressVector();
    cq = domain.openCompletionQueue(64);
    reads = domain.openCounter();
    writes = domain.openCounter();
    ep = domain.openEndpoint();
    ep.bind(av);
    ep.bind(cq, cqFlags);
    ep.bind(reads, FiFlags.READ);
    ep.bind(writes, FiFlags.WRITE);
    ep.enable();
    peer = av.insert(ep.name());
    key = region.key();
  }

  MemorySegment longs(long... values) {
    MemorySegment s = arena.allocate(8L * Math.max(1, values.length), 16);
    for (int i = 0; i < values.length; i++) {
      s.setAtIndex(JAVA_LONG, i, values[i]);
    }
    return s;
  }

  MemorySegment ints(int... values) {
    MemorySegment s = arena.allocate(4L * Math.max(1, values.length), 16);
    for (int i = 0; i < values.length; i++) {
      s.setAtIndex(JAVA_INT, i, values[i]);
    }
    return s;
  }

  MemorySegment bytes(int... values) {
    MemorySegment s = arena.allocate(Math.max(1, values.length), 16);
    for (int i = 0; i < values.length; i++) {
      s.set(JAVA_BYTE, i, (byte) values[i]);
    }
    return s;
  }

  MemorySegment doubles(double... values) {
    MemorySegment s = arena.allocate(8L * Math.max(1, values.length), 16);
    for (int i = 0; i < values.length; i++) {
      s.setAtIndex(JAVA_DOUBLE, i, values[i]);
    }
    return s;
  }

  /** {@code bytes} of zeroed native memory, for results. */
  MemorySegment zeroed(long bytes) {
    return arena.allocate(bytes, 16);
  }

  /** The one completion that must come next (waiting up to 10 s); an error entry fails. */
  CqEntry completion() {
    int n = cq.sread(entries, 1, 10_000);
    if (n == -FiErrno.EAVAIL) {
      CqErrEntry e = new CqErrEntry();
      cq.readErr(e);
      fail("an error completion: " + e);
    }
    assertEquals(1, n, "one completion: " + FiErrno.errorString(n));
    CqEntry e = new CqEntry();
    e.opContext = entries[0].opContext;
    e.flags = entries[0].flags;
    e.len = entries[0].len;
    return e;
  }

  /** The next completion has {@code context} and {@code flags}. */
  void completes(Object context, long flags) {
    CqEntry e = completion();
    assertEquals(context, e.opContext, "the completion's context");
    assertEquals(flags, e.flags, "the completion's flags");
  }

  /** No completion is waiting, after progress has had its chance. */
  void noCompletion() {
    domain.progress();
    assertEquals(-FiErrno.EAGAIN, cq.read(entries, 2), "a completion nobody asked for");
  }

  /** Waits until the counter reaches {@code n} (an operation without a completion entry). */
  static void awaitCount(Counter counter, long n) {
    assertEquals(0, counter.waitFor(n, 10_000), "the counter reached " + n);
  }

  /** The 8-byte word at {@code offset} of the region. */
  long word(long offset) {
    return target.get(JAVA_LONG, offset);
  }

  /** A copy of a region's bytes. */
  static byte[] bytesOf(MemoryRegion mr) {
    return mr.segment().toArray(JAVA_BYTE);
  }

  @Override
  public void close() {
    domain.close();
    arena.close();
  }
}
