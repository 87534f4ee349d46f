package dev.fiucx;

import java.lang.foreign.MemorySegment;

/**
 * Memory that peers may target with atomics: libfabric's {@code struct fid_mr} ({@code fi_mr_reg},
 * or memory the provider allocated). Its {@link #key()} is an unguessable 64-bit value that the
 * initiator passes as {@code key}; closing the region revokes the key.
 *
 * <p><b>Threads.</b> Any thread may call its methods. The memory itself is shared with the peers:
 * their atomics change it at any time, so read or write it with atomic accesses while it is
 * exposed.
 *
 * <p><b>Errors.</b> {@link #segment} and {@link #baseAddress} throw {@link IllegalStateException}
 * after {@link #close}; {@link #key} and {@link #access} never throw.
 */
public interface MemoryRegion extends AutoCloseable {
  /** {@return {@code fi_mr_key}} */
  long key();

  /**
   * The local memory: 8-byte aligned, its size padded to a multiple of 8. Throws {@link
   * IllegalStateException} after {@link #close}, as does a segment of allocated memory obtained
   * before.
   *
   * @return the local memory
   */
  MemorySegment segment();

  /** {@return {@code FiFlags.REMOTE_READ} and/or {@code FiFlags.REMOTE_WRITE}} */
  long access();

  /**
   * The region's virtual address in this process: what an initiator whose domain uses virtual
   * addressing passes as {@code addr} for byte 0. Addressing is the initiator's choice, made by its
   * own {@code DomainAttr}: an initiator with offset addressing passes 0 for the same byte.
   *
   * @return the virtual address of byte 0
   */
  long baseAddress();

  @Override
  void close();
}
