package dev.fiucx.conformance.replay;

import dev.fiucx.AddressVector;
import dev.fiucx.AtomicFamily;
import dev.fiucx.CompletionQueue;
import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.Endpoint;
import dev.fiucx.Fabric;
import dev.fiucx.FiErrno;
import dev.fiucx.conformance.remote.LocalTarget;
import dev.fiucx.conformance.remote.RemoteTarget;
import dev.fiucx.conformance.remote.Target;
import dev.fiucx.conformance.vectors.VectorCase;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Map;

/**
 * Replays cases through a real provider: the target memory lives in a second process ({@link
 * RemoteTarget}), this process is the initiator and calls fi_atomic, fi_fetch_atomic or
 * fi_compare_atomic, waits for the completion and reads the target's memory back.
 */
public final class ProviderEngine implements ReplayEngine {
  /** Room for the largest call: 4096 bytes of elements. */
  private static final long REGION = 4096;

  private static final long TIMEOUT_MILLIS = 10_000;

  private final String provider;
  private final Target target;
  private final Domain domain;
  private final Endpoint ep;
  private final CompletionQueue cq;
  private final AddressVector av;
  private final long peer;
  private final Arena arena = Arena.ofShared();
  private final CqEntry[] entries = {new CqEntry()};

  /**
   * @param transport the provider's transport name (e.g. {@code shm}, {@code tcp}), or null
   * @param targetProcess keep the target in a second process (else a second domain in this one)
   */
  public ProviderEngine(String provider, String transport, boolean targetProcess) {
    this.provider = provider;
    this.target =
        targetProcess
            ? new RemoteTarget(provider, transport, REGION, false, false, List.of())
            : new LocalTarget(provider, transport, REGION);
    this.domain =
        Fabric.openDomain(
            provider, new DomainAttr(transport, DomainAttr.Progress.MANUAL, false, Map.of()));
    this.cq = domain.openCompletionQueue(64);
    this.av = domain.openAddressVector();
    this.ep = domain.openEndpoint();
    ep.bind(av);
    ep.bind(cq, dev.fiucx.FiFlags.TRANSMIT);
    ep.enable();
    this.peer = av.insert(target.address());
  }

  @Override
  public String name() {
    return provider;
  }

  @Override
  public Outcome run(VectorCase c) {
    long valid =
        switch (c.family()) {
          case BASE -> ep.atomicValid(c.datatype(), c.op());
          case FETCH -> ep.fetchAtomicValid(c.datatype(), c.op());
          case COMPARE -> ep.compareAtomicValid(c.datatype(), c.op());
        };
    if (valid < 0) {
      return Outcome.unsupported(FiErrno.errorString((int) valid));
    }
    if (c.count() > valid) {
      return Outcome.unsupported("count " + c.count() + " above the provider's " + valid);
    }
    int bytes = c.count() * c.datatype().size();
    target.set(0, c.initialTarget());
    try (Arena call = Arena.ofConfined()) {
      MemorySegment operand = c.operand() == null ? null : copy(call, c.operand());
      MemorySegment compare = c.compare() == null ? null : copy(call, c.compare());
      MemorySegment result = call.allocate(Math.max(bytes, 1), 16);
      Object context = c.id();
      int rc =
          switch (c.family()) {
            case BASE ->
                ep.atomic(
                    operand, c.count(), null, peer, 0, target.key(), c.datatype(), c.op(), context);
            case FETCH ->
                ep.fetchAtomic(
                    operand,
                    c.count(),
                    null,
                    result,
                    null,
                    peer,
                    0,
                    target.key(),
                    c.datatype(),
                    c.op(),
                    context);
            case COMPARE ->
                ep.compareAtomic(
                    operand,
                    c.count(),
                    null,
                    compare,
                    null,
                    result,
                    null,
                    peer,
                    0,
                    target.key(),
                    c.datatype(),
                    c.op(),
                    context);
          };
      if (rc < 0) {
        return Outcome.error("the call returned " + FiErrno.errorString(rc));
      }
      int n = cq.sread(entries, 1, TIMEOUT_MILLIS);
      if (n == -FiErrno.EAVAIL) {
        CqErrEntry e = new CqErrEntry();
        cq.readErr(e);
        return Outcome.error("completed with error " + FiErrno.errorString(e.err));
      }
      if (n != 1 || entries[0].opContext != context) {
        return Outcome.error("no completion within " + TIMEOUT_MILLIS + " ms: " + n);
      }
      byte[] fetched =
          c.family() == AtomicFamily.BASE
              ? null
              : result.asSlice(0, bytes).toArray(ValueLayout.JAVA_BYTE);
      return Outcome.ran(target.get(0, bytes), fetched);
    }
  }

  private static MemorySegment copy(Arena arena, byte[] bytes) {
    MemorySegment s = arena.allocate(Math.max(bytes.length, 1), 16);
    MemorySegment.copy(MemorySegment.ofArray(bytes), 0, s, 0, bytes.length);
    return s;
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
