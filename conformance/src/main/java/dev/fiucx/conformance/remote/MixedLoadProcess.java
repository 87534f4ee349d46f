package dev.fiucx.conformance.remote;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.fiucx.FiDatatype;
import dev.fiucx.FiException;
import dev.fiucx.FiOp;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * An initiator process for load tests: {@code threads} threads, each with its own domain and
 * endpoint, each doing {@code n} fetching ops in turn on three elements of one target region, one
 * by each mechanism, and recording every fetched value as a ticket:
 *
 * <ul>
 *   <li>{@link #NATIVE_OFFSET}: fetch SUM of 1 on a UINT64 (one UCX or CPU atomic): the ticket is
 *       the value fetched;
 *   <li>{@link #CAS_OFFSET}: fetch SUM of 1.0 on a DOUBLE (a compare-and-swap loop): exact for
 *       integers below 2^53, so the ticket is the double fetched;
 *   <li>{@link #LOCK_OFFSET}: fetch SUM of (1, 2) on a DOUBLE_COMPLEX (under the remote lock): the
 *       ticket is the real part, and the imaginary part fetched must be twice it (a torn element
 *       breaks that).
 * </ul>
 *
 * <p>Arguments: {@code provider transport addressHex key n threads outPrefix}. Writes {@code
 * outPrefix.native}, {@code .cas} and {@code .lock}: every ticket of every thread, 8 bytes each,
 * big-endian, and prints one line per thread, {@code SLOTS <describe's ucx.request_slots>}, as its
 * domain saw them at the end. Exits 1 on any failed call, error completion or torn element.
 */
public final class MixedLoadProcess {
  /** The byte offset of the element the native op hits. */
  public static final long NATIVE_OFFSET = 0;

  /** The byte offset of the element the CAS loop hits. */
  public static final long CAS_OFFSET = 8;

  /** The byte offset of the element the remote lock guards. */
  public static final long LOCK_OFFSET = 16;

  private static final String[] MECHANISMS = {"native", "CAS loop", "remote lock"};

  /** Bytes of the target region the three elements take. */
  public static final long REGION_BYTES = 32;

  private MixedLoadProcess() {}

  /**
   * Runs the mixed load the arguments describe.
   *
   * @param args as the class comment says
   * @throws Exception when the load cannot run
   */
  public static void main(String[] args) throws Exception {
    String provider = args[0];
    String transport = args[1];
    byte[] address = HexFormat.of().parseHex(args[2]);
    long key = Long.parseLong(args[3]);
    int n = Integer.parseInt(args[4]);
    int threads = Integer.parseInt(args[5]);
    Path prefix = Path.of(args[6]);
    List<Tickets> all = new ArrayList<>();
    List<Thread> running = new ArrayList<>();
    List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    for (int t = 0; t < threads; t++) {
      Tickets tickets = new Tickets(n);
      all.add(tickets);
      Thread thread =
          Thread.ofPlatform()
              .name("load-" + t)
              .start(
                  () -> {
                    try {
                      run(provider, transport, address, key, n, tickets);
                    } catch (Throwable e) {
                      failures.add(e);
                    }
                  });
      running.add(thread);
    }
    for (Thread thread : running) {
      thread.join();
    }
    if (!failures.isEmpty()) {
      failures.forEach(Throwable::printStackTrace);
      System.exit(1);
    }
    write(prefix, ".native", all, t -> t.natives, t -> t.nativeCount);
    write(prefix, ".cas", all, t -> t.cas, t -> t.casCount);
    write(prefix, ".lock", all, t -> t.lock, t -> t.lockCount);
  }

  /** One thread's tickets by mechanism. */
  private static final class Tickets {
    final long[] natives;
    final long[] cas;
    final long[] lock;
    int nativeCount;
    int casCount;
    int lockCount;

    Tickets(int n) {
      natives = new long[n / 3 + 1];
      cas = new long[n / 3 + 1];
      lock = new long[n / 3 + 1];
    }
  }

  /**
   * {@return how many of {@code n} ops in turn fall on mechanism {@code k} (0 native, 1 CAS, 2
   * lock)}
   *
   * @param n how many ops
   * @param k the mechanism: 0 native, 1 CAS, 2 lock
   */
  public static int share(int n, int k) {
    return n / 3 + (n % 3 > k ? 1 : 0);
  }

  private static void run(
      String provider, String transport, byte[] address, long key, int n, Tickets tickets) {
    // the buffers outlive the initiator: when an op fails (say, no completion in time) it may still
    // be in flight, and its result is written until closing the endpoint has ended it; freeing the
    // buffers first let a late DOUBLE_COMPLEX result land in freed memory and corrupt the heap
    try (Arena arena = Arena.ofConfined();
        Initiator ini = new Initiator(provider, Initiator.manual(transport))) {
      long peer = ini.av.insert(address);
      MemorySegment one = arena.allocate(8, 8).fill((byte) 0);
      one.set(JAVA_LONG, 0, 1);
      MemorySegment oneDouble = arena.allocate(8, 8);
      oneDouble.set(JAVA_DOUBLE, 0, 1.0);
      MemorySegment oneTwo = arena.allocate(16, 16);
      oneTwo.set(JAVA_DOUBLE, 0, 1.0);
      oneTwo.set(JAVA_DOUBLE, 8, 2.0);
      MemorySegment result = arena.allocate(16, 16);
      for (int i = 0; i < n; i++) {
        int k = i % 3;
        int rc =
            switch (k) {
              case 0 ->
                  ini.ep.fetchAtomic(
                      one,
                      1,
                      null,
                      result,
                      null,
                      peer,
                      NATIVE_OFFSET,
                      key,
                      FiDatatype.UINT64,
                      FiOp.SUM,
                      null);
              case 1 ->
                  ini.ep.fetchAtomic(
                      oneDouble,
                      1,
                      null,
                      result,
                      null,
                      peer,
                      CAS_OFFSET,
                      key,
                      FiDatatype.DOUBLE,
                      FiOp.SUM,
                      null);
              default ->
                  ini.ep.fetchAtomic(
                      oneTwo,
                      1,
                      null,
                      result,
                      null,
                      peer,
                      LOCK_OFFSET,
                      key,
                      FiDatatype.DOUBLE_COMPLEX,
                      FiOp.SUM,
                      null);
            };
        if (rc < 0) {
          throw new FiException(rc, "op " + i + " of " + n);
        }
        try {
          ini.awaitCompletion();
        } catch (FiException e) {
          throw new FiException(e.errno(), "op " + i + " of " + n + " (" + MECHANISMS[k] + ")", e);
        }
        switch (k) {
          case 0 -> tickets.natives[tickets.nativeCount++] = result.get(JAVA_LONG, 0);
          case 1 -> tickets.cas[tickets.casCount++] = ticket(result.get(JAVA_DOUBLE, 0));
          default -> {
            double re = result.get(JAVA_DOUBLE, 0);
            double im = result.get(JAVA_DOUBLE, 8);
            if (im != 2 * re) {
              throw new IllegalStateException("torn DOUBLE_COMPLEX fetched: " + re + ", " + im);
            }
            tickets.lock[tickets.lockCount++] = ticket(re);
          }
        }
      }
      System.out.println("SLOTS " + ini.domain.describe().get("ucx.request_slots"));
    }
  }

  private static long ticket(double d) {
    long t = (long) d;
    if (t != d) {
      throw new IllegalStateException("not a whole ticket: " + d);
    }
    return t;
  }

  private static void write(
      Path prefix,
      String suffix,
      List<Tickets> all,
      java.util.function.Function<Tickets, long[]> values,
      java.util.function.ToIntFunction<Tickets> count)
      throws IOException {
    Path file = prefix.resolveSibling(prefix.getFileName() + suffix);
    try (DataOutputStream out =
        new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file)))) {
      for (Tickets t : all) {
        long[] v = values.apply(t);
        for (int i = 0; i < count.applyAsInt(t); i++) {
          out.writeLong(v[i]);
        }
      }
    }
  }
}
