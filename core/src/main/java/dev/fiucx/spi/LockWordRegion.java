package dev.fiucx.spi;

/**
 * The region of lock words the engine exposes in every domain (through {@link Transport#allocate})
 * for its remote lock, as a provider sees it: an ordinary region whose access carries {@link
 * #ACCESS_MARK}. A transport hands that access to the peers unchanged, so that an initiator that
 * resolves the key learns from the target itself that no user call may reach it; a provider keeps
 * the key of such a region out of anything it prints.
 */
public final class LockWordRegion {
  /**
   * The provider-specific access bit (libfabric leaves bits 56-63 to providers) that marks the
   * lock-word region.
   */
  public static final long ACCESS_MARK = 1L << 62;

  private LockWordRegion() {}

  /**
   * {@return whether a region with this access is the engine's lock-word region}
   *
   * @param access the region's access, as exposed or as a peer granted it
   */
  public static boolean isMarked(long access) {
    return (access & ACCESS_MARK) != 0;
  }
}
