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
 *
 * <p><b>Redo records.</b> After the words come {@link #STRIPES} records of {@link #RECORD_BYTES}
 * bytes, one per stripe: a tag ({@link #recordTag}: the held word of the turn that wrote it, 0 for
 * none), the element's virtual address at the target ({@link #recordAddress}), its size ({@link
 * #recordSize}) and its new bytes ({@link #recordValue}, up to {@link #RECORD_VALUE_BYTES}). Why:
 * an element wider than 8 bytes that its holder writes through a mapping of the target's memory
 * (the mapped path, and a shared-memory put, which is the initiator's own copy into the mapping) is
 * several stores, so a holder killed in the middle leaves it torn, and the next holder (after the
 * target's {@link #reclaim}, or a waiter's takeover once the lease ran out) would compute on a
 * value nobody wrote. So such a holder first writes its new bytes into its stripe's record and arms
 * it (the tag, with a release store), then copies the element, then clears the tag: once armed, the
 * write is committed. Whoever enters the stripe next on a mapped element finds a tag that is not
 * its own, and completes the dead holder's write from the record before it reads the element
 * ({@link LockRedo}). The target's reclaim need not look at the records: every later holder of the
 * element repairs it on entry. An element of 8 bytes or less never uses a record (one aligned store
 * cannot tear), and neither does a write the target process makes itself (a put over TCP or RC to
 * registered or allocated memory arrives whole).
 */
public final class LockWords {
  /** Lock words per domain: 32 KiB, few enough collisions for any count of elements in flight. */
  public static final int STRIPES = 4096;

  /** Bytes of one stripe's redo record: tag, address, size, 8 bytes spare, and the value. */
  public static final int RECORD_BYTES = 64;

  /** The widest value a redo record holds: the widest element, LONG_DOUBLE_COMPLEX. */
  public static final int RECORD_VALUE_BYTES = 32;

  /** Where the redo records start: after the words. */
  private static final long RECORDS = STRIPES * 8L;

  /** Bytes of a lock region: the words, then the redo records (288 KiB). */
  public static final long REGION_BYTES = RECORDS + (long) STRIPES * RECORD_BYTES;

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

  /**
   * The byte offset of a stripe's redo record tag in the lock region: the held word of the turn
   * that armed the record, 0 when none is armed. Records are 64-byte aligned in the region.
   */
  public static long recordTag(int stripe) {
    return RECORDS + (long) stripe * RECORD_BYTES;
  }

  /** The byte offset of a redo record's element address (the element's target virtual address). */
  public static long recordAddress(int stripe) {
    return recordTag(stripe) + 8;
  }

  /** The byte offset of a redo record's element size in bytes. */
  public static long recordSize(int stripe) {
    return recordTag(stripe) + 16;
  }

  /** The byte offset of a redo record's value: the element's new bytes, 16-byte aligned. */
  public static long recordValue(int stripe) {
    return recordTag(stripe) + 32;
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
   * Where the target writes the value of a redo record that a dead holder left armed ({@link
   * #reclaim}): this process's memory, within a region open for remote writes.
   */
  @FunctionalInterface
  public interface RedoTarget {
    /**
     * Writes {@code size} bytes of {@code from} at {@code fromOffset} to virtual address {@code
     * address} when they lie within a region of this process open for remote writes.
     *
     * @return whether it wrote them
     */
    boolean write(long address, MemorySegment from, long fromOffset, int size);
  }

  /**
   * At the target: ends the turn of every stripe of {@code region} that {@code owner} is inside,
   * with the CPU's compare-and-swap, which is atomic against the peers' UCX atomics on these words
   * (CPU atomics on shared memory; UCX applies a TCP peer's atomics in this process with CPU
   * atomics as well). Tickets the owner still waits with are not known here: each is skipped by the
   * waiters after it once its turn stays unclaimed.
   *
   * <p>A redo record the owner armed in a turn it is still inside (it died mid-write) is completed
   * first, into {@code memory}, before the turn ends: every later holder then finds the whole new
   * value, including one that does not map the target and could not complete the record itself
   * ({@link LockRedo}). Nobody else is inside meanwhile. A record whose element lies outside {@code
   * memory} stays armed for a mapped holder of that element.
   *
   * @param region the lock region
   * @param owner the dead owner
   * @param memory where an armed record's value goes
   * @param counters where completed writes are counted
   * @return how many turns it ended
   */
  public static int reclaim(
      MemorySegment region, int owner, RedoTarget memory, EmulationCounters counters) {
    int freed = 0;
    for (int s = 0; s < STRIPES; s++) {
      long at = offset(s);
      long word = (long) WORDS.getVolatile(region, at);
      if (owner(word) == owner && LockRedo.reclaimed(region, s, word, memory)) {
        counters.writeRedone();
      }
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
