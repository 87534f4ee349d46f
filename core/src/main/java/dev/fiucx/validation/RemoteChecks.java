package dev.fiucx.validation;

import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.spi.RemoteRegion;

/**
 * The rules a remote range passes before the transport sees it. UCX checks nothing (an address
 * outside a region crashes the initiator or the target, or corrupts the target's memory), so these
 * are the only guard: key, access, bounds, alignment, in that order. {@link #inBounds} and {@link
 * #aligned} are the bound and alignment rules over plain values, for a caller that keeps a region's
 * base and length (the one-element route).
 */
public final class RemoteChecks {
  private RemoteChecks() {}

  /**
   * @param offset the range's first byte as an offset into the region
   * @param bytes the range's length
   * @param alignment what the element's address must be a multiple of
   * @param access {@code FI_REMOTE_READ} and/or {@code FI_REMOTE_WRITE} as the operation needs
   * @return 0; {@code -FI_EKEYREJECTED} for a revoked key; {@code -FI_EACCES} when the region does
   *     not grant the access; {@code -FI_EFAULT} when the range leaves the region; {@code
   *     -FI_EINVAL} when the address is misaligned
   */
  public static int range(
      RemoteRegion region, long offset, long bytes, int alignment, long access) {
    if (region.revoked()) {
      return -FiErrno.EKEYREJECTED;
    }
    if ((region.access() & access) != access) {
      return -FiErrno.EACCES;
    }
    if (!inBounds(offset, bytes, region.length())) {
      return -FiErrno.EFAULT;
    }
    return aligned(region.base() + offset, alignment) ? 0 : -FiErrno.EINVAL;
  }

  /** Whether {@code bytes} from {@code offset} lie inside a region of {@code length} bytes. */
  public static boolean inBounds(long offset, long bytes, long length) {
    return offset >= 0 && bytes >= 0 && bytes <= length - offset;
  }

  /** Whether {@code address} is a multiple of {@code alignment} (a power of two). */
  public static boolean aligned(long address, int alignment) {
    return (address & (alignment - 1)) == 0;
  }

  /** The remote access an operation needs: reads for fetching, writes unless it only reads. */
  public static long accessFor(boolean fetches, boolean onlyReads) {
    long access = onlyReads ? 0 : FiFlags.REMOTE_WRITE;
    return fetches ? access | FiFlags.REMOTE_READ : access;
  }
}
