package dev.fiucx.emulation;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.fiucx.FiFlags;
import dev.fiucx.spi.LockWordRegion;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/**
 * The lock region of a domain, as every peer reads it: {@link #STRIPES} 8-byte lock words, and an
 * element's stripe chosen by its virtual address at the target (so two keys over the same bytes
 * share a lock).
 *
 * <p>A word is a ticket lock with its holder's name: bits 63..48 the next ticket, bits 47..32 the
 * ticket now served, bits 31..0 the owner inside (0: nobody). Tickets are handed out by one
 * fetch-add of {@link #TICKET}, which touches the next-ticket half only. Every change of the served
 * ticket or the owner is a compare-and-swap of the whole word: entering (owner 0 to mine, while my
 * ticket is served), releasing (my ticket and owner to the next ticket and owner 0), and skipping a
 * stuck turn (the same, by a waiter). So two of them can never both succeed from one (served,
 * owner) state, which is what keeps two holders out at once (see {@link RemoteLock}).
 *
 * <p>A free stripe with nobody waiting has next == served and owner 0; the uncontended take is one
 * compare-and-swap from that word to the next ticket with this owner inside. Tickets count modulo
 * 2^16, so at most 32,767 elements may wait on one stripe at a time.
 */
public final class LockWords {
  /** Lock words per domain: 32 KiB, few enough collisions for any count of elements in flight. */
  public static final int STRIPES = 4096;

  /** Bytes of a lock region. */
  public static final long REGION_BYTES = STRIPES * 8L;

  /**
   * The access bit the lock region carries, so that any initiator that resolves its key learns from
   * the target itself that it is no region for user calls: they refuse it as an unknown key. It is
   * SPI ({@link LockWordRegion}) because providers carry it and recognise the region by it.
   */
  public static final long REGION_MARK = LockWordRegion.ACCESS_MARK;

  /** The access the lock region is exposed with. */
  public static final long REGION_ACCESS = FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE | REGION_MARK;

  /** What a fetch-add adds to take the next ticket (a carry out of bit 63 is lost: modulo 2^16). */
  public static final long TICKET = 1L << 48;

  private static final long OWNER_BITS = 0xFFFF_FFFFL;
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

  /** A word from its three parts. */
  public static long word(int next, int serving, int owner) {
    return ((long) (next & 0xFFFF) << 48)
        | ((long) (serving & 0xFFFF) << 32)
        | (owner & OWNER_BITS);
  }

  /** The next ticket to hand out. */
  public static int next(long word) {
    return (int) (word >>> 48);
  }

  /** The ticket served now: its holder is inside, or may enter. */
  public static int serving(long word) {
    return (int) (word >>> 32) & 0xFFFF;
  }

  /** The owner inside, 0 for nobody. */
  public static int owner(long word) {
    return (int) word;
  }

  /** Nobody inside and nobody waiting: one compare-and-swap takes it ({@link #taken}). */
  public static boolean isFree(long word) {
    return (int) word == 0 && next(word) == serving(word);
  }

  /** The served ticket and the owner: what must stay unchanged for a lease before a skip. */
  static long head(long word) {
    return word & 0x0000_FFFF_FFFF_FFFFL;
  }

  /**
   * Turns before {@code ticket}'s: 0 when it is served now, negative when its turn has passed
   * (skipped while its holder did not come).
   */
  static int ahead(int ticket, long word) {
    return (short) (ticket - serving(word));
  }

  /** The word after {@code owner} takes the free {@code word} with one compare-and-swap. */
  public static long taken(long freeWord, int owner) {
    return entered(freeWord + TICKET, owner);
  }

  /** The word after {@code owner} enters on the ticket {@code word} serves. */
  static long entered(long word, int owner) {
    return (word & ~OWNER_BITS) | (owner & OWNER_BITS);
  }

  /**
   * The word after the turn {@code word} serves ends: the next ticket served, nobody inside (a
   * release, a skipped stuck turn, a reclaimed dead holder's).
   */
  public static long released(long word) {
    return word(next(word), serving(word) + 1, 0);
  }

  /**
   * At the target: ends the turn of every stripe of {@code region} that {@code owner} is inside,
   * with the CPU's compare-and-swap, which is atomic against the peers' UCX atomics on these words
   * (CPU atomics on shared memory; UCX applies a TCP peer's atomics in this process with CPU
   * atomics as well). Tickets the owner still waits with are not known here: each is skipped by the
   * waiters after it once its turn stays unclaimed. Returns how many turns it ended.
   */
  public static int reclaim(MemorySegment region, int owner) {
    int freed = 0;
    for (int s = 0; s < STRIPES; s++) {
      long at = offset(s);
      long word = (long) WORDS.getVolatile(region, at);
      while (owner(word) == owner) { // owner is never 0
        if (WORDS.compareAndSet(region, at, word, released(word))) {
          freed++;
          break;
        }
        word = (long) WORDS.getVolatile(region, at); // a ticket was taken meanwhile
      }
    }
    return freed;
  }
}
