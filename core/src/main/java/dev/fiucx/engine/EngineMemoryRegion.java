package dev.fiucx.engine;

import dev.fiucx.MemoryRegion;
import dev.fiucx.spi.ExposedRegion;
import java.lang.foreign.MemorySegment;

/** {@code fi_mr}: memory a transport exposes under its key; closing it revokes the key. */
final class EngineMemoryRegion implements MemoryRegion {
  private final ExposedRegion exposed;

  EngineMemoryRegion(ExposedRegion exposed) {
    this.exposed = exposed;
  }

  @Override
  public long key() {
    return exposed.key();
  }

  @Override
  public MemorySegment segment() {
    return exposed.segment();
  }

  @Override
  public long access() {
    return exposed.access();
  }

  @Override
  public long baseAddress() {
    return exposed.segment().address();
  }

  @Override
  public void close() {
    exposed.close();
  }
}
