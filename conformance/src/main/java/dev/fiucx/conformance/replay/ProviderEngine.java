package dev.fiucx.conformance.replay;

import dev.fiucx.AtomicFamily;
import dev.fiucx.Endpoint;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.conformance.remote.Initiator;
import dev.fiucx.conformance.remote.LocalTarget;
import dev.fiucx.conformance.remote.RemoteTarget;
import dev.fiucx.conformance.remote.Target;
import dev.fiucx.conformance.vectors.VectorCase;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * Replays cases through a real provider: the target memory lives in a second process ({@link
 * RemoteTarget}), this process is the initiator and calls fi_atomic, fi_fetch_atomic or
 * fi_compare_atomic, waits for the completion and reads the target's memory back.
 */
public final class ProviderEngine implements ReplayEngine {
  /** Room for the largest call: 4096 bytes of elements. */
  private static final long REGION = 4096;

  private final String provider;
  private final Target target;
  private final Initiator initiator;
  private final long peer;
  private final Arena arena = Arena.ofShared();

  /**
   * An engine that replays on a provider: an initiator domain and a target.
   *
   * @param provider the provider's name, e.g. {@code ucx}
   * @param transport the provider's transport name (e.g. {@code shm}, {@code tcp}, or {@code
   *     shm-ucp}: see {@link Initiator#manual}), or null
   * @param targetProcess keep the target in a second process (else a second domain in this one)
   */
  public ProviderEngine(String provider, String transport, boolean targetProcess) {
    this.provider = provider;
    this.target =
        targetProcess
            ? new RemoteTarget(
                provider, Initiator.transportOf(transport), REGION, false, false, List.of())
            : new LocalTarget(provider, Initiator.transportOf(transport), REGION);
    this.initiator = new Initiator(provider, Initiator.manual(transport));
    this.peer = initiator.av.insert(target.address());
  }

  @Override
  public String name() {
    return provider;
  }

  @Override
  public Outcome run(VectorCase c) {
    Endpoint ep = initiator.ep;
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
          initiator.post(
              c.family(),
              c.op(),
              c.datatype(),
              c.count(),
              operand,
              compare,
              result,
              peer,
              0,
              target.key(),
              context);
      if (rc < 0) {
        return Outcome.error("the call returned " + FiErrno.errorString(rc));
      }
      try {
        if (initiator.awaitCompletion() != context) {
          return Outcome.error("a completion with another context");
        }
      } catch (FiException e) {
        return Outcome.error(e.getMessage());
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
    initiator.close();
    target.close();
    arena.close();
  }
}
