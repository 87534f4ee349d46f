package dev.fiucx.validation;

import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.spi.RemoteRegion;

/**
 * The checks a remote range passes before the transport sees it. UCX checks nothing (an address
 * outside a region crashes the initiator or the target, or corrupts the target's memory), so these
 * are the only guard: key, access, bounds, alignment, in that order.
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
    if (offset < 0 || bytes < 0 || bytes > region.length() - offset) {
      return -FiErrno.EFAULT;
    }
    return ((region.base() + offset) & (alignment - 1)) == 0 ? 0 : -FiErrno.EINVAL;
  }

  /** The remote access an operation needs: reads for fetching, writes unless it only reads. */
  public static long accessFor(boolean fetches, boolean onlyReads) {
    long access = onlyReads ? 0 : FiFlags.REMOTE_WRITE;
    return fetches ? access | FiFlags.REMOTE_READ : access;
  }
}
