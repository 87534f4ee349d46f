package dev.fiucx.spi;

import java.lang.foreign.MemorySegment;

/**
 * What fiucx's engine needs from a transport, one per domain: addresses, exposed memory, remote
 * keys, one-element atomics and progress. Set-up calls throw {@link dev.fiucx.FiException}; the
 * posting calls of {@link TransportPeer} return negative {@code fi_errno} codes. The engine checks
 * every bound, alignment, key and access right before it posts, so a transport checks nothing.
 *
 * <p>A transport is driven by one thread at a time unless it was opened thread-safe: completions
 * are delivered to the {@link TransportCompletions} given at open, from inside {@link #progress}.
 */
public interface Transport extends AutoCloseable {
  /** This domain's address, for peers' address vectors ({@code fi_getname}). */
  byte[] address();

  /**
   * A random id of this domain, the same one the peers whose keys it resolves know it by; the
   * remote lock derives its owner id from it.
   */
  long instanceId();

  /**
   * Names who to tell, with the initiator's {@link #instanceId}, when an initiator that resolved
   * keys here is found dead (its connection failed), so that its remote locks are reclaimed at
   * once. Called from inside {@link #progress}. A transport that cannot detect dead peers (UCX 1.13
   * over shared memory) never calls it; leases cover that case.
   */
  void onInitiatorFailure(java.util.function.LongConsumer listener);

  /** Connects to the domain whose {@link #address} this is. */
  TransportPeer connect(byte[] peerAddress);

  /**
   * Exposes new memory allocated by the transport, zeroed, at least 8-byte aligned and padded to a
   * multiple of 8 bytes. Allocated memory may take a faster path than registered memory.
   *
   * @param access {@code FI_REMOTE_READ | FI_REMOTE_WRITE} as the peers may use it
   */
  ExposedRegion allocate(long size, long access);

  /** Exposes the caller's native memory; it must be 8-byte aligned with a size multiple of 8. */
  ExposedRegion register(MemorySegment segment, long access);

  /**
   * Makes what progress can be made now: local completions, and at the target the software atomics
   * of peers. Returns the number of events processed.
   */
  int progress();

  /** Human-readable facts for {@code info}: library version, transports in use, atomic mode. */
  java.util.Map<String, String> describe();

  @Override
  void close();
}
