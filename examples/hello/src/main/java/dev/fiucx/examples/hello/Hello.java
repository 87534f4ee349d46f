package dev.fiucx.examples.hello;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.fiucx.ConnectedEndpoint;
import dev.fiucx.Connection;
import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.DomainAttr;
import dev.fiucx.Endpoint;
import dev.fiucx.Fabric;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.FiOp;
import dev.fiucx.Ioc;
import dev.fiucx.PeerRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Three remote atomics on a region of a running {@code fiucx serve}, through fiucx's public API
 * only: a fetch-add, a compare-swap and a vector sum on {@code FI_UINT64} words. Each word is first
 * set with {@code FI_ATOMIC_WRITE}, so the expected values are exact whatever the region held
 * before, and read back with {@code FI_ATOMIC_READ}.
 *
 * <p>{@code java --enable-native-access=ALL-UNNAMED -cp ... dev.fiucx.examples.hello.Hello
 * HOST:PORT [REGION]}: exit status 0 when every value is the expected one, 1 when one is not or a
 * call fails, 2 on bad arguments.
 */
public final class Hello {
  /** The words the three calls use, from the region's byte 0. */
  static final int WORDS = 6;

  /** How long one call may take to complete. */
  static final long COMPLETION_TIMEOUT_MILLIS = 10_000;

  private final ConnectedEndpoint ep;
  private final PeerRegion region;
  private final Arena arena;
  private final CqEntry[] entries = {new CqEntry()};

  Hello(ConnectedEndpoint ep, PeerRegion region, Arena arena) {
    this.ep = ep;
    this.region = region;
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
    // one connection per JVM; each thread takes an endpoint of its own (here: one thread)
    try (Connection c = Fabric.connect(target, DomainAttr.defaults());
        ConnectedEndpoint ep = c.openEndpoint(16);
        Arena arena = Arena.ofConfined()) {
      PeerRegion region = c.region(regionName);
      if (region.length() < WORDS * 8L) {
        throw new FiException(
            FiErrno.EINVAL, "region " + regionName + " has " + region.length() + " bytes, not 48");
      }
      System.out.println(
          "hello: fiucx "
              + Fabric.version()
              + ", connected to "
              + target
              + ", region "
              + regionName);
      right = new Hello(ep, region, arena).run();
    } catch (FiException e) {
      System.err.println("hello: " + e.getMessage());
      System.exit(1);
      return;
    }
    System.exit(right ? 0 : 1);
  }

  /** The three calls; true when every value they fetched and left is the expected one. */
  boolean run() {
    Endpoint e = ep.endpoint();
    long peer = ep.peer();
    long key = region.key();
    long base = region.address();
    write(base, 40, 7, 1, 2, 3, 4);

    // fetch-add: word 0 holds 40, add 2, fetch what it held
    MemorySegment fetched = arena.allocate(JAVA_LONG);
    await(
        e.fetchAtomic(
            words(2), 1, null, fetched, null, peer, base, key, FiDatatype.UINT64, FiOp.SUM, null),
        "fetch-add");
    boolean right = check("fetch-add 2", fetched.get(JAVA_LONG, 0), 40);

    // compare-swap: word 1 holds 7; compare with 7, swap in 99, fetch what it held
    await(
        e.compareAtomic(
            words(99),
            1,
            null,
            words(7),
            null,
            fetched,
            null,
            peer,
            base + 8,
            key,
            FiDatatype.UINT64,
            FiOp.CSWAP,
            null),
        "compare-swap");
    right &= check("compare-swap 7 -> 99", fetched.get(JAVA_LONG, 0), 7);

    // vector sum: words 2..5 hold 1, 2, 3, 4; add two iov entries laid end to end, {10, 20} and
    // {30, 40}, in one call
    Ioc[] iov = {new Ioc(words(10, 20), 2), new Ioc(words(30, 40), 2)};
    await(
        e.atomicv(iov, null, 2, peer, base + 16, key, FiDatatype.UINT64, FiOp.SUM, null),
        "vector sum");

    long[] now = read(base);
    right &= check("after fetch-add", now[0], 42);
    right &= check("after compare-swap", now[1], 99);
    for (int i = 0; i < 4; i++) {
      right &= check("after vector sum, word " + (2 + i), now[2 + i], 11L * (i + 1));
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

  /** Sets the region's first words, one {@code FI_ATOMIC_WRITE} per word. */
  private void write(long base, long... values) {
    for (int i = 0; i < values.length; i++) {
      await(
          ep.endpoint()
              .atomic(
                  words(values[i]),
                  1,
                  null,
                  ep.peer(),
                  base + 8L * i,
                  region.key(),
                  FiDatatype.UINT64,
                  FiOp.ATOMIC_WRITE,
                  null),
          "write of word " + i);
    }
  }

  /** The region's first {@link #WORDS} words, read with one {@code FI_ATOMIC_READ}. */
  private long[] read(long base) {
    MemorySegment result = arena.allocate(JAVA_LONG, WORDS);
    await(
        ep.endpoint()
            .fetchAtomic(
                null,
                WORDS,
                null,
                result,
                null,
                ep.peer(),
                base,
                region.key(),
                FiDatatype.UINT64,
                FiOp.ATOMIC_READ,
                null),
        "read");
    long[] words = result.toArray(JAVA_LONG);
    System.out.println("  read back: " + Arrays.toString(words));
    return words;
  }

  private MemorySegment words(long... values) {
    return arena.allocateFrom(JAVA_LONG, values);
  }

  /** Waits for the completion of a call that returned {@code rc}; throws when it failed. */
  private void await(int rc, String what) {
    if (rc < 0) {
      throw new FiException(rc, what + " returned " + rc);
    }
    int n = ep.cq().sread(entries, 1, COMPLETION_TIMEOUT_MILLIS);
    if (n == -FiErrno.EAVAIL) {
      CqErrEntry error = new CqErrEntry();
      ep.cq().readErr(error);
      throw new FiException(-error.err, what + " ended in error: " + error);
    }
    if (n != 1) {
      throw new FiException(
          n < 0 ? n : -FiErrno.ETIMEDOUT,
          what + ": no completion within " + COMPLETION_TIMEOUT_MILLIS + " ms");
    }
  }
}
