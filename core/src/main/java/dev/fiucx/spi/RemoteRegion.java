package dev.fiucx.spi;

/**
 * A peer's exposed region as the initiator resolved it: where it is, how long, what it allows. The
 * transport-specific handle (a UCX rkey) lives in the implementation.
 */
public interface RemoteRegion {
  /** {@return the region's first byte as a virtual address at the peer} */
  long base();

  /** {@return length in bytes} */
  long length();

  /** {@return {@code FI_REMOTE_READ | FI_REMOTE_WRITE} as granted by the peer} */
  long access();

  /** {@return true once the peer closed the region; posting to it is then refused} */
  boolean revoked();

  /**
   * The transport's word for how atomics reach this region, e.g. {@code ucp} (through the library)
   * or {@code mapped} (CPU atomics on the region mapped into this process).
   *
   * @return the path's name
   */
  String path();
}
