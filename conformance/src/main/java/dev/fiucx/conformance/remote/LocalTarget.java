package dev.fiucx.conformance.remote;

import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import dev.fiucx.FiFlags;
import dev.fiucx.MemoryRegion;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;

/** A target domain in this process, with its own progress thread: the one-process variant. */
public final class LocalTarget implements Target {
  private final Domain domain;
  private final MemoryRegion region;
  private final byte[] address;

  /**
   * Opens the target domain and allocates its region.
   *
   * @param provider the provider's name, e.g. {@code ucx}
   * @param transport the provider's transport name, or null for its default
   * @param length the region's length in bytes
   */
  public LocalTarget(String provider, String transport, long length) {
    domain =
        Fabric.openDomain(
            provider, new DomainAttr(transport, DomainAttr.Progress.AUTO, false, Map.of()));
    region = domain.allocateMemory(length, FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE);
    address = domain.openEndpoint().name();
  }

  @Override
  public byte[] address() {
    return address;
  }

  @Override
  public long key() {
    return region.key();
  }

  @Override
  public void set(long offset, byte[] bytes) {
    MemorySegment.copy(MemorySegment.ofArray(bytes), 0, region.segment(), offset, bytes.length);
  }

  @Override
  public byte[] get(long offset, int n) {
    return region.segment().asSlice(offset, n).toArray(ValueLayout.JAVA_BYTE);
  }

  @Override
  public void closeRegion() {
    region.close();
  }

  @Override
  public void close() {
    domain.close();
  }
}
