package dev.fiucx.ucx;

import dev.fiucx.spi.ExposedRegion;
import dev.fiucx.spi.LockWordRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.Set;
import org.openucx.jucx.ucp.UcpMemory;

/**
 * Local memory mapped through UCX ({@code ucp_mem_map}) and published under a key.
 *
 * <p>Revocation: closing unpublishes the key (later resolves are rejected), sends REVOKE to every
 * (transport, peer) that resolved it, and unmaps only when each one has acknowledged after flushing
 * its endpoint, has released its peer, has failed, or the control timeout has passed. So no
 * operation that a peer had in flight lands on unmapped memory. {@link #beginRevoke} and {@link
 * #revokeDone} let a caller drive this without blocking; {@link #close} blocks, progressing this
 * transport only (the peers must progress their own).
 *
 * <p>Lifetime: memory this transport allocated is reached through a segment of its own shared
 * arena, closed before the memory is unmapped, so the segment and every slice of it throw {@link
 * IllegalStateException} after close instead of touching unmapped memory. Registered memory is the
 * user's: its segment stays theirs.
 */
final class UcxExposedRegion implements ExposedRegion {
  /** A user of the key: which transport instance, which of its peers. */
  record Resolver(long initiatorId, int initiatorPeer) {}

  private enum State {
    OPEN,
    REVOKING,
    CLOSED
  }

  private final UcxTransport transport;
  private final long key;
  private final UcpMemory memory;
  private final MemorySegment segment;

  /** The arena of {@link #segment} for allocated memory, else null. */
  private final Arena scope;

  private final long access;
  private final byte[] packedRkey;
  private final Set<Resolver> resolvers = new HashSet<>();
  private final Set<Resolver> awaitingAck = new HashSet<>();
  private State state = State.OPEN;
  private long deadline;

  UcxExposedRegion(
      UcxTransport transport,
      long key,
      UcpMemory memory,
      MemorySegment segment,
      Arena scope,
      long access) {
    this.transport = transport;
    this.key = key;
    this.memory = memory;
    this.segment = segment;
    this.scope = scope;
    this.access = access;
    var buffer = memory.getRemoteKeyBuffer();
    this.packedRkey = new byte[buffer.remaining()];
    buffer.get(packedRkey);
  }

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

  byte[] packedRkey() {
    return packedRkey.clone();
  }

  /** Records a user of the key; false once revoking started (the key is then unknown). */
  synchronized boolean addResolver(Resolver r) {
    if (state != State.OPEN) {
      return false;
    }
    resolvers.add(r);
    return true;
  }

  /** A peer closed or acknowledged: it no longer uses the key. */
  synchronized void forget(Resolver r) {
    resolvers.remove(r);
    awaitingAck.remove(r);
  }

  /** The back endpoint to an initiator failed: none of its peers will acknowledge. */
  synchronized void forgetInitiator(long initiatorId) {
    resolvers.removeIf(r -> r.initiatorId() == initiatorId);
    awaitingAck.removeIf(r -> r.initiatorId() == initiatorId);
  }

  /** Unpublishes the key and tells its users; idempotent. */
  void beginRevoke() {
    Set<Resolver> toTell;
    synchronized (this) {
      if (state != State.OPEN) {
        return;
      }
      state = State.REVOKING;
      deadline = System.nanoTime() + transport.controlTimeoutNanos();
      awaitingAck.addAll(resolvers);
      toTell = Set.copyOf(resolvers);
    }
    transport.regions().unpublish(key);
    for (Resolver r : toTell) {
      transport.control().initiators().sendRevoke(r, key, () -> forget(r));
    }
  }

  /**
   * Whether the revoke has finished; when every user acknowledged (or the timeout passed) this
   * unmaps the memory and returns true from then on.
   */
  boolean revokeDone() {
    synchronized (this) {
      if (state == State.CLOSED) {
        return true;
      }
      if (state == State.OPEN || (!awaitingAck.isEmpty() && System.nanoTime() - deadline < 0)) {
        return false;
      }
      state = State.CLOSED;
      resolvers.clear();
      awaitingAck.clear();
    }
    if (scope != null && !closeScope()) {
      transport.regions().closed(this);
      return true; // still reachable through a segment: leaked rather than unmapped under a reader
    }
    memory.deregister();
    transport.regions().closed(this);
    return true;
  }

  /**
   * Closes the segment's arena; false when it cannot be closed because a native call holds it
   * (counted and logged; the memory is then never unmapped).
   */
  private boolean closeScope() {
    for (int attempt = 0; ; attempt++) {
      try {
        scope.close();
        return true;
      } catch (IllegalStateException held) {
        if (!scope.scope().isAlive()) {
          return true;
        }
        if (attempt == 100) {
          transport.errors().caught("closing allocated region " + this + " (memory leaked)", held);
          return false;
        }
        java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
      }
    }
  }

  /** Revokes and unmaps, progressing this transport until the users answered or time ran out. */
  @Override
  public void close() {
    beginRevoke();
    while (!revokeDone()) {
      transport.progressWhileClosing();
    }
  }

  synchronized boolean isClosed() {
    return state == State.CLOSED;
  }

  @Override
  public String toString() {
    // the lock region's key stays out of anything printed: no user call may name it
    return "UcxExposedRegion[key=%s, address=0x%x, length=%d]"
        .formatted(
            LockWordRegion.isMarked(access) ? "(lock words)" : "%016x".formatted(key),
            segment.address(),
            segment.byteSize());
  }
}
