package dev.fiucx.spi;

import java.lang.foreign.MemorySegment;

/**
 * Local memory a transport exposes to peers under an unguessable 64-bit key. Closing it revokes the
 * key: peers that resolved it are told, and later operations on it fail.
 */
public interface ExposedRegion extends AutoCloseable {
  /** {@return the key peers use} */
  long key();

  /** {@return the exposed bytes (for allocated memory, the transport's allocation)} */
  MemorySegment segment();

  /** {@return {@code FI_REMOTE_READ} and/or {@code FI_REMOTE_WRITE}} */
  long access();

  @Override
  void close();
}
