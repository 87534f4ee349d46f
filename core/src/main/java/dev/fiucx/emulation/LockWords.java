package dev.fiucx.emulation;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/**
 * The lock region of a domain, as every peer reads it: {@link #STRIPES} 8-byte lock words, and an
 * element's stripe chosen by its virtual address at the target (so two keys over the same bytes
 * share a lock). A word holds the generation in its high half and the owner in its low half; owner
 * 0 means free. Taking a stripe moves it to the next generation, so a waiter that sees the same
 * word for a whole lease knows it is the same holding.
 */
public final class LockWords {
  /** Lock words per domain: 32 KiB, few enough collisions for any count of elements in flight. */
  public static final int STRIPES = 4096;

  /** Bytes of a lock region. */
  public static final long REGION_BYTES = STRIPES * 8L;

  private static final VarHandle WORDS = JAVA_LONG.varHandle();

  private LockWords() {}

  /** The stripe of the element at target virtual address {@code address}. */
  public static int stripe(long address) {
    return (int) (((address >>> 3) * 0x9E37_79B9_7F4A_7C15L) >>> (64 - 12));
  }

  /** The byte offset of a stripe's word in the lock region. */
  public static long offset(int stripe) {
    return stripe * 8L;
  }

  /** A domain's owner id, from its transport's instance id: never 0. */
  public static int ownerOf(long instanceId) {
    int owner = (int) (instanceId ^ (instanceId >>> 32));
    return owner == 0 ? 1 : owner;
  }

  public static boolean isFree(long word) {
    return (int) word == 0;
  }

  public static int owner(long word) {
    return (int) word;
  }

  /** The word after {@code owner} takes the stripe from {@code word}: the next generation. */
  public static long taken(long word, int owner) {
    return ((word & 0xFFFF_FFFF_0000_0000L) + (1L << 32)) | (owner & 0xFFFF_FFFFL);
  }

  /** The free word a holder leaves behind: the same generation, no owner. */
  public static long released(long heldWord) {
    return heldWord & 0xFFFF_FFFF_0000_0000L;
  }

  /**
   * At the target: frees every stripe of {@code region} held by {@code owner}, with the CPU's
   * compare-and-swap, which is atomic against the peers' UCX atomics on these words (CPU atomics on
   * shared memory; UCX applies a TCP peer's atomics in this process with CPU atomics as well).
   * Returns how many it freed.
   */
  public static int reclaim(MemorySegment region, int owner) {
    int freed = 0;
    for (int s = 0; s < STRIPES; s++) {
      long at = offset(s);
      long word = (long) WORDS.getVolatile(region, at);
      while (!isFree(word) && owner(word) == owner) {
        long next = released(taken(word, owner)); // next generation, free
        if (WORDS.compareAndSet(region, at, word, next)) {
          freed++;
          break;
        }
        word = (long) WORDS.getVolatile(region, at);
      }
    }
    return freed;
  }
}
