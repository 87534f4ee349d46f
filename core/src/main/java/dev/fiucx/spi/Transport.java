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
  /** {@return this domain's address, for peers' address vectors ({@code fi_getname})} */
  byte[] address();

  /**
   * A random id of this domain, the same one the peers whose keys it resolves know it by; the
   * remote lock derives its owner id from it.
   *
   * @return the id
   */
  long instanceId();

  /**
   * Names who to tell, with the initiator's {@link #instanceId}, when an initiator that resolved
   * keys here is found dead (its connection failed), so that its remote locks are reclaimed at
   * once. Called from inside {@link #progress} or {@link #checkPeers}. Where a transport can detect
   * neither (UCX 1.13 over shared memory, the initiator in another host or pid namespace), leases
   * cover that case.
   *
   * @param listener told the dead initiator's instance id
   */
  void onInitiatorFailure(java.util.function.LongConsumer listener);

  /**
   * {@return a connection to the domain whose {@link #address} this is}
   *
   * @param peerAddress the peer's {@link #address}
   */
  TransportPeer connect(byte[] peerAddress);

  /**
   * Connects to the domain whose {@link #address} this is, living in process {@code peerProcess}
   * (as its fiucx address says): a transport that cannot detect dead peers by itself watches that
   * process in {@link #checkPeers}.
   *
   * @param peerAddress the peer's {@link #address}
   * @param peerProcess the peer's process, as its address says
   * @return the connection
   */
  default TransportPeer connect(byte[] peerAddress, ProcessIdentity peerProcess) {
    return connect(peerAddress);
  }

  /**
   * Ends what peers that died left behind (initiators whose keys this domain serves, and targets
   * this domain connected to), where the transport found them dead by itself: operations to a dead
   * target complete with {@code -FI_ECONNRESET} and later posts are refused; what a dead initiator
   * held here is released and its remote locks are reclaimed ({@link #onInitiatorFailure}). The
   * engine calls it from its progress every few dozen rounds, never from a post, so it must be
   * cheap when nobody died: no allocation, no system call (look for deaths on a thread of the
   * transport's own). Returns the number of peers found dead.
   *
   * @return the peers found dead
   */
  default int checkPeers() {
    return 0;
  }

  /**
   * Exposes new memory allocated by the transport, zeroed, at least 8-byte aligned and padded to a
   * multiple of 8 bytes. Allocated memory may take a faster path than registered memory.
   *
   * @param access {@code FI_REMOTE_READ | FI_REMOTE_WRITE} as the peers may use it
   * @param size bytes
   * @return the region
   */
  ExposedRegion allocate(long size, long access);

  /**
   * {@return the caller's native memory, exposed; it must be 8-byte aligned with a size multiple of
   * 8}
   *
   * @param segment the memory
   * @param access {@code FI_REMOTE_READ | FI_REMOTE_WRITE} as the peers may use it
   */
  ExposedRegion register(MemorySegment segment, long access);

  /**
   * Makes what progress can be made now: local completions, and at the target the software atomics
   * of peers. Returns the number of events processed.
   *
   * @return the events processed
   */
  int progress();

  /**
   * Blocks the thread that progresses this transport until it may have something to progress (a
   * peer's message, a reply, a completion), {@link #interruptAwait} is called, or {@code
   * timeoutNanos} pass: a waiter that has nothing to do but wait gives its core to the threads that
   * have (on a machine with fewer cores than spinning threads, the target's and the peers' progress
   * are among them). Called only after {@link #progress} found nothing, by the thread that
   * progresses. Returns false when this transport cannot wait (the caller pauses by itself); a
   * transport may return early (true) whenever it likes, and must when events are pending.
   *
   * @param timeoutNanos the longest wait
   * @return whether it waited
   */
  default boolean awaitEvent(long timeoutNanos) {
    return false;
  }

  /** Ends an {@link #awaitEvent} of another thread early (any thread, any time). */
  default void interruptAwait() {}

  /**
   * {@return peers' keys this transport resolved, each one control round trip (metrics; any
   * thread)}
   */
  long keysResolved();

  /**
   * Keys this transport had resolved whose target revoked them (closed the region) and said so
   * (metrics; any thread).
   *
   * @return the keys revoked
   */
  long keysRevoked();

  /**
   * {@return human-readable facts for {@code info}: library version, transports in use, atomic
   * mode}
   */
  java.util.Map<String, String> describe();

  @Override
  void close();
}
