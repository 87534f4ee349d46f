package dev.fiucx.spi;

import java.lang.foreign.MemorySegment;

/**
 * One connected peer: resolves the peer's keys and posts one-element atomics to its memory. Posting
 * returns {@link #DONE} when the operation completed at once (its result is in place), {@link
 * #PENDING} when {@link TransportCompletions#completed} will report it with the given token, or a
 * negative {@code fi_errno} when it could not be posted (nothing was sent).
 */
public interface TransportPeer extends AutoCloseable {
  /** A post's return: the operation completed at once, its result is in place. */
  int DONE = 0;

  /** A post's return: {@link TransportCompletions#completed} will report the operation. */
  int PENDING = 1;

  /**
   * The region behind {@code key} as last resolved, or null when this peer's key has not been
   * resolved yet. Allocation-free.
   *
   * @param key the target region's key
   * @return the region, or null
   */
  RemoteRegion cached(long key);

  /**
   * Asks the peer what {@code key} is, progressing until it answers, and caches the answer. Returns
   * 0, {@code -FI_EKEYREJECTED} when the peer knows no such key, or {@code -FI_ETIMEDOUT} / {@code
   * -FI_EIO} when the peer does not answer.
   *
   * @param key the target region's key
   * @return 0, or a negative {@code fi_errno}
   */
  int resolve(long key);

  /**
   * Posts {@code remote[offset] op= value} on a 4- or 8-byte word. {@code resultAddress} is the
   * native address that receives the old value, or 0 for no fetch. SWAP always fetches.
   *
   * @param op the operation
   * @param remote the region as {@link #resolve} or {@link #cached} gave it
   * @param offset the word's byte offset in the region
   * @param size 4 or 8
   * @param value the operand
   * @param resultAddress where the old value goes, or 0
   * @param token handed back to {@link TransportCompletions#completed} when the operation is
   *     pending
   * @return {@link #DONE}, {@link #PENDING}, or a negative {@code fi_errno}
   */
  int postAtomic(
      RemoteRegion remote,
      long offset,
      RemoteAtomicOp op,
      int size,
      long value,
      long resultAddress,
      long token);

  /**
   * Posts a compare-and-swap of a 4- or 8-byte word: stores {@code swap} when the word equals
   * {@code compare}; the old value lands at {@code resultAddress} (required).
   *
   * @param remote the region as {@link #resolve} or {@link #cached} gave it
   * @param offset the word's byte offset in the region
   * @param size 4 or 8
   * @param compare the value the word must hold
   * @param swap the value stored then
   * @param resultAddress where the old value goes
   * @param token handed back to {@link TransportCompletions#completed} when the operation is
   *     pending
   * @return {@link #DONE}, {@link #PENDING}, or a negative {@code fi_errno}
   */
  int postCompareSwap(
      RemoteRegion remote,
      long offset,
      int size,
      long compare,
      long swap,
      long resultAddress,
      long token);

  /**
   * Posts a read of {@code length} bytes at {@code remote[offset]} into native memory at {@code
   * localAddress}; it completes once the bytes have landed there. The remote lock reads an element
   * under its lock with it.
   *
   * @param remote the region as {@link #resolve} or {@link #cached} gave it
   * @param offset the first byte's offset in the region
   * @param length how many bytes
   * @param localAddress where they go
   * @param token handed back to {@link TransportCompletions#completed} when the operation is
   *     pending
   * @return {@link #DONE}, {@link #PENDING}, or a negative {@code fi_errno}
   */
  int postGet(RemoteRegion remote, long offset, int length, long localAddress, long token);

  /**
   * Posts a write of {@code length} bytes from native memory at {@code localAddress} (which must
   * stay unchanged until completion) to {@code remote[offset]}; it completes once the bytes are in
   * place at the peer, so that any operation posted after its completion, by anyone, sees them. The
   * remote lock writes an element back with it before releasing the lock.
   *
   * @param remote the region as {@link #resolve} or {@link #cached} gave it
   * @param offset the first byte's offset in the region
   * @param length how many bytes
   * @param localAddress where they come from
   * @param token handed back to {@link TransportCompletions#completed} when the operation is
   *     pending
   * @return {@link #DONE}, {@link #PENDING}, or a negative {@code fi_errno}
   */
  int postPut(RemoteRegion remote, long offset, int length, long localAddress, long token);

  /**
   * The bytes of {@code remote} mapped into this process, on which this CPU's loads and
   * compare-and-swaps are atomic with every operation this transport posts there (by anyone), so an
   * emulation engine may run an element on them in place; null when the region is not mapped, or
   * the connection failed (nothing may touch the peer's memory then). Allocation-free.
   *
   * @param remote the region as {@link #resolve} or {@link #cached} gave it
   * @return the mapped bytes, or null
   */
  default MemorySegment mapped(RemoteRegion remote) {
    return null;
  }

  /**
   * {@return whether the connection failed (peer died or unreachable); posts then fail with an
   * errno}
   */
  boolean failed();

  /**
   * Gives up on this peer: the engine calls it from progress when an operation to it outlived the
   * domain's operation timeout. From now on posts return {@code errno}, as after a failure, and
   * every operation in flight to the peer ends (its completion comes, with an error or with its
   * answer if that came first) without any request writing into a caller's buffer afterwards: a
   * transport whose requests hold such buffers cancels them (UCX: closes the endpoint by force).
   * Does nothing on a peer that failed or closed already. Never throws.
   *
   * @param errno the negative {@code fi_errno} later posts return
   * @param why what a failed post's error says, for logs
   */
  void abandon(int errno, String why);

  @Override
  void close();
}
