package dev.fiucx.emulation;

import dev.fiucx.FiFlags;
import dev.fiucx.spi.RemoteRegion;
import java.lang.foreign.MemorySegment;

/**
 * A peer's region played by a segment of this process, readable and writable, for the tests of the
 * emulation that stand in for a transport: its base is the segment's address, and a test revokes it
 * by setting {@link #revoked}.
 */
final class SegmentRegion implements RemoteRegion {
  final MemorySegment segment;
  boolean revoked;

  SegmentRegion(MemorySegment segment) {
    this.segment = segment;
  }

  @Override
  public long base() {
    return segment.address();
  }

  @Override
  public long length() {
    return segment.byteSize();
  }

  @Override
  public long access() {
    return FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE;
  }

  @Override
  public boolean revoked() {
    return revoked;
  }

  @Override
  public String path() {
    return "segment";
  }
}
