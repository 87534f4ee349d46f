package dev.fiucx.engine;

import dev.fiucx.MemoryRegion;
import dev.fiucx.spi.ExposedRegion;
import java.lang.foreign.MemorySegment;

/**
 * {@code fi_mr}: memory a transport exposes under its key; closing it revokes the key. After close
 * its segment is refused: allocated memory is unmapped by then (its segment's scope is closed too),
 * and registered memory is the user's again, to reach through their own segment.
 */
final class EngineMemoryRegion implements MemoryRegion {
  private final ExposedRegion exposed;
  private volatile boolean closed;

  EngineMemoryRegion(ExposedRegion exposed) {
    this.exposed = exposed;
  }

  @Override
  public long key() {
    return exposed.key();
  }

  @Override
  public MemorySegment segment() {
    checkOpen();
    return exposed.segment();
  }

  @Override
  public long access() {
    return exposed.access();
  }

  @Override
  public long baseAddress() {
    checkOpen();
    return exposed.segment().address();
  }

  @Override
  public void close() {
    closed = true;
    exposed.close();
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException(
          "memory region 0x" + Long.toHexString(exposed.key()) + " is closed");
    }
  }
}
