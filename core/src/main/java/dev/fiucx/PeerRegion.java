package dev.fiucx;

import java.util.regex.Pattern;

/**
 * A named region of a peer, as a {@link Server} serves it and a {@link Connection} hands it out:
 * everything an initiator passes to fi_atomic to reach it.
 *
 * @param name the name it is served under: 1 to 64 of {@code A-Z a-z 0-9 . _ -}
 * @param address the {@code addr} argument of its byte 0 (0 with offset addressing, the target's
 *     virtual address otherwise); element {@code i} of a type of {@code size} bytes is at {@code
 *     address + i * size}
 * @param key the {@code key} argument
 * @param length its length in bytes
 * @param access {@link FiFlags#REMOTE_READ} and/or {@link FiFlags#REMOTE_WRITE}
 */
public record PeerRegion(String name, long address, long key, long length, long access) {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

  /** The most bytes a region name has. */
  public static final int MAX_NAME_BYTES = 64;

  /** Checks the name (at most {@link #MAX_NAME_BYTES} of {@link #NAME_RULE}). */
  public PeerRegion {
    if (!validName(name)) {
      throw new FiException(FiErrno.EINVAL, "bad region name " + quoted(name) + ": " + NAME_RULE);
    }
  }

  /** What a region name may be, in words. */
  public static final String NAME_RULE = "1 to 64 of A-Z a-z 0-9 . _ -";

  /**
   * {@return whether {@code name} may name a region}
   *
   * @param name the name to check
   */
  public static boolean validName(String name) {
    return name != null && NAME.matcher(name).matches();
  }

  private static String quoted(String s) {
    return s == null ? "null" : "'" + s + "'";
  }
}
