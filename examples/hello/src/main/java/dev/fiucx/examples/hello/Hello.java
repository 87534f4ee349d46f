package dev.fiucx.examples.hello;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.fiucx.AtomicRegion;
import dev.fiucx.Connection;
import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Three remote atomics on a region of a running {@code fiucx serve}, through fiucx's typed layer
 * ({@link AtomicRegion}): a fetch-add, a compare-swap and a vector fetch-add on {@code FI_UINT64}
 * words. The words are first set with one {@code FI_ATOMIC_WRITE}, so the expected values are exact
 * whatever the region held before, and read back with one {@code FI_ATOMIC_READ}. Each call blocks
 * until it is done and throws {@link FiException} when it fails.
 *
 * <p>{@code java --enable-native-access=ALL-UNNAMED -cp ... dev.fiucx.examples.hello.Hello
 * HOST:PORT [REGION]}: exit status 0 when every value is the expected one, 1 when one is not or a
 * call fails, 2 on bad arguments.
 */
public final class Hello {
  /** The words the three calls use, from the region's byte 0. */
  static final int WORDS = 6;

  private final AtomicRegion cells;
  private final Arena arena;

  Hello(AtomicRegion cells, Arena arena) {
    this.cells = cells;
    this.arena = arena;
  }

  public static void main(String[] args) {
    if (args.length < 1 || args.length > 2) {
      System.err.println("usage: Hello HOST:PORT [REGION]   (REGION: hello, at least 48 bytes)");
      System.exit(2);
    }
    String target = args[0];
    String regionName = args.length == 2 ? args[1] : "hello";
    boolean right;
    // one connection per JVM; each thread opens a region of its own (here: one thread)
    try (Connection c = Fabric.connect(target, DomainAttr.defaults());
        AtomicRegion cells = c.openAtomicRegion(regionName);
        Arena arena = Arena.ofConfined()) {
      if (cells.region().length() < WORDS * 8L) {
        throw new FiException(
            FiErrno.EINVAL,
            "region " + regionName + " has " + cells.region().length() + " bytes, not 48");
      }
      System.out.println(
          "hello: fiucx "
              + Fabric.version()
              + ", connected to "
              + target
              + ", region "
              + regionName);
      right = new Hello(cells, arena).run();
    } catch (FiException e) {
      System.err.println("hello: " + e.getMessage());
      System.exit(1);
      return;
    }
    System.exit(right ? 0 : 1);
  }

  /** The three calls; true when every value they fetched and left is the expected one. */
  boolean run() {
    cells.setLongs(0, words(40, 7, 1, 2, 3, 4), WORDS);

    // fetch-add: word 0 holds 40, add 2, fetch what it held
    boolean right = check("fetch-add 2", cells.fetchAddLong(0, 2), 40);

    // compare-swap: word 1 holds 7; compare with 7, swap in 99, fetch what it held
    right &= check("compare-swap 7 -> 99", cells.compareAndSwapLong(8, 7, 99), 7);

    // vector fetch-add: words 2..5 hold 1, 2, 3, 4; add 10, 20, 30, 40 in one call
    MemorySegment before = arena.allocate(JAVA_LONG, 4);
    cells.fetchAddLongs(16, words(10, 20, 30, 40), before, 4);
    for (int i = 0; i < 4; i++) {
      right &= check("vector fetch-add, word " + (2 + i), before.getAtIndex(JAVA_LONG, i), i + 1);
    }

    long[] now = read();
    right &= check("after fetch-add", now[0], 42);
    right &= check("after compare-swap", now[1], 99);
    for (int i = 0; i < 4; i++) {
      right &= check("after vector fetch-add, word " + (2 + i), now[2 + i], 11L * (i + 1));
    }
    System.out.println(right ? "hello: every value right" : "hello: WRONG values (see above)");
    return right;
  }

  private static boolean check(String what, long value, long expected) {
    boolean right = value == expected;
    System.out.println(
        "  "
            + what
            + ": "
            + Long.toUnsignedString(value)
            + (right ? "  ok" : "  WRONG, expected " + expected));
    return right;
  }

  /** The region's first {@link #WORDS} words, read with one {@code FI_ATOMIC_READ}. */
  private long[] read() {
    MemorySegment result = arena.allocate(JAVA_LONG, WORDS);
    cells.getLongs(0, result, WORDS);
    long[] words = result.toArray(JAVA_LONG);
    System.out.println("  read back: " + Arrays.toString(words));
    return words;
  }

  private MemorySegment words(long... values) {
    return arena.allocateFrom(JAVA_LONG, values);
  }
}
