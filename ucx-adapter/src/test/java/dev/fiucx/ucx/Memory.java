package dev.fiucx.ucx;

import dev.fiucx.FiFlags;
import dev.fiucx.spi.ExposedRegion;
import java.lang.foreign.Arena;

/** The two kinds of exposed memory, which UCX treats differently on shared memory. */
enum Memory {
  /** ucp_mem_map with allocate: shm lanes can run CPU atomics on it. */
  ALLOCATED,
  /** The caller's memory, registered: UCX runs software atomics, executed by the target. */
  REGISTERED;

  static final long RW = FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE;

  ExposedRegion expose(UcxTransport target, Arena arena, long size) {
    return this == ALLOCATED
        ? target.allocate(size, RW)
        : target.register(arena.allocate(size, 8), RW);
  }
}
