package dev.fiucx.conformance.suite;

import dev.fiucx.AddressVector;
import dev.fiucx.CompletionQueue;
import dev.fiucx.Counter;
import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.Endpoint;
import dev.fiucx.Fabric;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.conformance.remote.LocalTarget;
import dev.fiucx.conformance.remote.RemoteTarget;
import dev.fiucx.conformance.remote.Target;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * What the checks run on: a target exposing one region (in this process or another), and an
 * initiator domain with a completion queue, a read and a write counter, and an endpoint bound to
 * all three. The checks set and read the target's memory directly, never through the provider under
 * test.
 */
final class Rig implements AutoCloseable {
  /** The target region: room for the largest call plus one element, spread over two iovs. */
  static final int REGION_BYTES = 80 * 1024;

  /**
   * The local buffers: the largest call the suite makes. libfabric's providers take 4096 bytes
   * (sockets, fiucx) to 16288 bytes (tcp;ofi_rxm), plus one element for the count limit.
   */
  static final int BUFFER_BYTES = 32 * 1024;

  /** Time a check waits for one completion before it calls the operation lost. */
  static final long WAIT_MILLIS = 10_000;

  final SuiteConfig config;
  final Target target;
  final Domain domain;
  final CompletionQueue cq;
  final Counter reads;
  final Counter writes;
  final AddressVector av;
  final Endpoint ep;
  final long peer;
  final long key;
  final Arena arena = Arena.ofShared();

  /** Local buffers, reused call after call: a call is over before the next one starts. */
  private final MemorySegment operands = arena.allocate(BUFFER_BYTES, 16);

  private final MemorySegment compares = arena.allocate(BUFFER_BYTES, 16);
  private final MemorySegment results = arena.allocate(BUFFER_BYTES, 16);
  private final CqEntry[] entries = {new CqEntry()};

  Rig(SuiteConfig config) {
    this.config = config;
    target =
        config.targetInOtherProcess()
            ? new RemoteTarget(
                config.provider(), config.transport(), REGION_BYTES, false, false, List.of())
            : new LocalTarget(config.provider(), config.transport(), REGION_BYTES);
    domain = Fabric.openDomain(config.provider(), initiatorAttr(config));
    cq = domain.openCompletionQueue(1024);
    reads = domain.openCounter();
    writes = domain.openCounter();
    av = domain.openAddressVector();
    ep = domain.openEndpoint();
    ep.bind(av);
    ep.bind(cq, FiFlags.TRANSMIT);
    ep.bind(reads, FiFlags.READ);
    ep.bind(writes, FiFlags.WRITE);
    ep.enable();
    peer = av.insert(target.address());
    key = target.key();
  }

  /** The initiator progresses when it reads its completion queue: the cheapest for an initiator. */
  static DomainAttr initiatorAttr(SuiteConfig config) {
    return new DomainAttr(config.transport(), DomainAttr.Progress.MANUAL, false, config.options());
  }

  /** The operand buffer holding {@code bytes}. */
  MemorySegment operand(byte[] bytes) {
    return filled(operands, bytes);
  }

  /** The compare buffer holding {@code bytes}. */
  MemorySegment compare(byte[] bytes) {
    return filled(compares, bytes);
  }

  /** The result buffer, {@code bytes} long, every byte {@code fill}. */
  MemorySegment result(int bytes, byte fill) {
    return results.asSlice(0, bytes).fill(fill);
  }

  private static MemorySegment filled(MemorySegment buffer, byte[] bytes) {
    MemorySegment s = buffer.asSlice(0, bytes.length);
    MemorySegment.copy(bytes, 0, s, ValueLayout.JAVA_BYTE, 0, bytes.length);
    return s;
  }

  /**
   * Waits for the next completion and checks it: null when it carries {@code context} and {@code
   * flags}, otherwise what was wrong.
   */
  String awaitCompletion(Object context, long flags) {
    return awaitCompletion(cq, context, flags);
  }

  String awaitCompletion(CompletionQueue queue, Object context, long flags) {
    int n = queue.sread(entries, 1, WAIT_MILLIS);
    if (n == -FiErrno.EAVAIL) {
      CqErrEntry e = new CqErrEntry();
      queue.readErr(e);
      return "error entry " + e;
    }
    if (n != 1) {
      return "no completion within " + WAIT_MILLIS + " ms: " + FiErrno.errorString(n);
    }
    if (entries[0].opContext != context) {
      return "completion carries context " + entries[0].opContext + ", expected " + context;
    }
    if (entries[0].flags != flags) {
      return "completion flags 0x"
          + Long.toHexString(entries[0].flags)
          + ", expected 0x"
          + Long.toHexString(flags);
    }
    return null;
  }

  /** Null when the completion queue holds nothing, otherwise what it holds. */
  String expectNoCompletion(CompletionQueue queue) {
    int n = queue.read(entries, 1);
    if (n == -FiErrno.EAGAIN) {
      return null;
    }
    return n == 1
        ? "unexpected completion with context " + entries[0].opContext
        : "unexpected completion queue state " + FiErrno.errorString(n);
  }

  /** Waits until {@code counter} reaches {@code value}; null or what went wrong. */
  static String awaitCount(Counter counter, long value, String name) {
    int rc = counter.waitFor(value, WAIT_MILLIS);
    if (rc != 0) {
      return name
          + " counter at "
          + counter.read()
          + " (errors "
          + counter.readErr()
          + "), expected "
          + value
          + ": "
          + FiErrno.errorString(rc);
    }
    return counter.read() == value
        ? null
        : name + " counter at " + counter.read() + ", expected " + value;
  }

  @Override
  public void close() {
    ep.close();
    av.close();
    domain.close();
    target.close();
    arena.close();
  }
}
