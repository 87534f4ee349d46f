package dev.fiucx.conformance.remote;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.fiucx.Connection;
import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.DomainAttr;
import dev.fiucx.EmulationCounts;
import dev.fiucx.Fabric;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.FiOp;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;

/**
 * An initiator that keeps working while faults are injected around it, and writes down what every
 * operation it started became ({@link FaultHistory}). One thread, one operation at a time, in turn
 * on the three elements of {@link MixedLoadProcess}'s layout, one per mechanism:
 *
 * <ul>
 *   <li>{@code add}: fetch SUM of 1 on the UINT64 at {@link MixedLoadProcess#NATIVE_OFFSET}
 *       (native);
 *   <li>{@code min}: fetch MIN on the INT64 at {@link MixedLoadProcess#CAS_OFFSET} (a CAS loop),
 *       with an operand no other operation of the run uses: {@link #minOperand};
 *   <li>{@code lock}: fetch SUM of (1, 2) on the DOUBLE_COMPLEX at {@link
 *       MixedLoadProcess#LOCK_OFFSET} (the remote lock).
 * </ul>
 *
 * <p>An operation refused by its call, or ended by an error entry, is recorded with its errno and
 * whether the entry said {@link CqErrEntry#uncertain}. After an error the process opens a new
 * domain and inserts the target again (what a user's retry loop does), pausing {@link
 * #RECONNECT_PAUSE_MS} between tries. An operation that has not ended after {@link
 * #OPERATION_BOUND_MS} is recorded as {@code lost}, and the process stops there: that is a hang.
 *
 * <p>The target is given by its address and key, or by name: a serve's {@code HOST:PORT} and the
 * region's name. By name, the process connects with {@link Fabric#connect} and takes the region's
 * key from the WELCOME, and after an error connects the same way again (a serve that is being
 * restarted refuses until the new one listens). Each operation's line names the target's
 * incarnation it was posted to: an epoch, 0 for the first WELCOME, incremented whenever a WELCOME's
 * region key differs from the last one seen (keys are random, so a restarted serve's differ), and
 * that key ({@link FaultHistory} has the line's format).
 *
 * <p>Besides the operations, the history says what the remote lock did: a line {@code takeover N}
 * for a {@code lock} operation during which this initiator took a lock over from a holder whose
 * lease ran out (N in all so far; written just before that operation's line), and at the end {@code
 * locks T R L}: locks taken over, elements restarted because their hold outlasted half a lease
 * before the put, and releases that found the lock taken over ({@link dev.fiucx.EmulationCounts}),
 * summed over every domain it opened.
 *
 * <p>Arguments: {@code transport (addressHex key | HOST:PORT region) millis initiatorIndex
 * historyFile [operationTimeoutMillis [lockLeaseMillis]]}. Runs for {@code millis}, then writes the
 * history and exits 0; exits 1 when an operation was lost or ended twice. The domain's operation
 * timeout ({@link DomainAttr#operationTimeout}) and lock lease ({@link DomainAttr#lockLease}) are
 * the defaults unless given.
 */
public final class FaultLoadProcess {
  /** The longest an operation may take before the process records it as lost. */
  public static final long OPERATION_BOUND_MS = 60_000;

  /**
   * The pause after each operation: at most about 5,000 a second, so that a history stays some
   * megabytes (shared memory would otherwise record millions a second).
   */
  public static final long PAUSE_NANOS = 200_000;

  /** The pause between reconnection tries. */
  public static final long RECONNECT_PAUSE_MS = 200;

  /** Where every {@code min} operand counts down from. */
  public static final long MIN_BASE = 1L << 60;

  private FaultLoadProcess() {}

  /**
   * {@return the operand of initiator {@code initiator}'s {@code k}th {@code min}: unique in a run
   * of at most 1000 initiators, and smaller for later operations}
   *
   * @param initiator the initiator's index, below 1000
   * @param k how many {@code min}s the initiator started before this one
   */
  public static long minOperand(int initiator, long k) {
    return MIN_BASE - (k * 1000 + initiator);
  }

  /**
   * Runs the load the arguments describe.
   *
   * @param args as the class comment says
   * @throws IOException when the history cannot be written
   */
  public static void main(String[] args) throws IOException {
    String transport = args[0];
    // HOST:PORT has a colon, an address in hex has none
    String serve = args[1].contains(":") ? args[1] : null;
    byte[] address = serve == null ? HexFormat.of().parseHex(args[1]) : null;
    String region = args[2];
    long key = serve == null ? Long.parseLong(args[2]) : 0;
    long millis = Long.parseLong(args[3]);
    int initiator = Integer.parseInt(args[4]);
    Path historyFile = Path.of(args[5]);
    Map<String, String> options = new HashMap<>();
    if (args.length > 6) {
      options.put(DomainAttr.OPERATION_TIMEOUT_OPTION, args[6]);
    }
    if (args.length > 7) {
      options.put(DomainAttr.LOCK_LEASE_OPTION, args[7]);
    }
    DomainAttr attr = new DomainAttr(transport, DomainAttr.Progress.AUTO, false, options);
    boolean lostOrTwice = false;
    // each line flushed as it is written: a killed initiator leaves every operation that ended
    try (PrintWriter history = new PrintWriter(Files.newBufferedWriter(historyFile), true);
        Arena arena = Arena.ofConfined()) {
      MemorySegment operand = arena.allocate(16, 16);
      MemorySegment result = arena.allocate(16, 16);
      CqEntry[] entries = {new CqEntry()};
      CqErrEntry error = new CqErrEntry();
      Initiator ini = null;
      long peer = -1;
      long end = System.currentTimeMillis() + millis;
      long mins = 0;
      long reconnects = 0;
      long epoch = 0;
      boolean welcomed = false;
      // the lock counts of the domains already closed (a domain's own start at 0)
      long[] closedLocks = new long[3];
      long takeoversSeen = 0;
      for (long n = 0; System.currentTimeMillis() < end; n++) {
        if (ini == null) {
          try {
            if (serve == null) {
              ini = new Initiator("ucx", attr);
              peer = ini.av.insert(address);
            } else {
              Connection c = Fabric.connect(serve, attr);
              ini = Initiator.over(c);
              peer = c.peer();
              long k = c.region(region).key();
              if (welcomed && k != key) {
                epoch++; // another incarnation of the target
              }
              key = k;
              welcomed = true;
            }
          } catch (FiException e) {
            if (ini != null) {
              ini.close();
              ini = null;
            }
            sleep(RECONNECT_PAUSE_MS);
            continue;
          }
        }
        String kind = KINDS[(int) (n % 3)];
        long minOperand = kind.equals("min") ? minOperand(initiator, mins++) : 0;
        switch (kind) {
          case "add" -> operand.set(JAVA_LONG, 0, 1);
          case "min" -> operand.set(JAVA_LONG, 0, minOperand);
          default -> {
            operand.set(JAVA_DOUBLE, 0, 1.0);
            operand.set(JAVA_DOUBLE, 8, 2.0);
          }
        }
        result.fill((byte) 0);
        Long context = n;
        long start = System.currentTimeMillis();
        int rc =
            ini.ep.fetchAtomic(
                operand,
                1,
                null,
                result,
                null,
                peer,
                OFFSETS.get(kind),
                key,
                TYPES.get(kind),
                kind.equals("min") ? FiOp.MIN : FiOp.SUM,
                context);
        String outcome;
        int errno = 0;
        if (rc < 0) {
          outcome = "fail"; // refused by its call: nothing was posted
          errno = -rc;
        } else {
          outcome = null;
          while (outcome == null) {
            int got = ini.cq.sread(entries, 1, 1000);
            if (got == 1) {
              if (entries[0].opContext != context) {
                lostOrTwice = true;
                outcome = "twice"; // a completion of an operation that had already ended
              } else {
                outcome = "ok";
              }
            } else if (got == -FiErrno.EAVAIL) {
              ini.cq.readErr(error);
              if (error.opContext != context) {
                lostOrTwice = true;
                outcome = "twice";
              } else {
                outcome = error.uncertain ? "uncertain" : "fail";
                errno = error.err;
              }
            } else if (System.currentTimeMillis() - start > OPERATION_BOUND_MS) {
              lostOrTwice = true;
              outcome = "lost";
            }
          }
        }
        long stop = System.currentTimeMillis();
        if (kind.equals("lock")) {
          // before the operation's line: a runner watching for it sees it first
          long takeovers = closedLocks[0] + ini.domain.emulationCounts().locksTakenOver();
          if (takeovers != takeoversSeen) {
            takeoversSeen = takeovers;
            history.printf("takeover %d%n", takeovers);
          }
        }
        history.printf(
            "%s %s %d %d %d %d %d %d %d %d%n",
            kind,
            outcome,
            errno,
            minOperand,
            kind.equals("lock")
                ? Double.doubleToRawLongBits(result.get(JAVA_DOUBLE, 0))
                : result.get(JAVA_LONG, 0),
            kind.equals("lock") ? Double.doubleToRawLongBits(result.get(JAVA_DOUBLE, 8)) : 0,
            start,
            stop,
            epoch,
            key);
        if (lostOrTwice) {
          break;
        }
        java.util.concurrent.locks.LockSupport.parkNanos(PAUSE_NANOS);
        if (!outcome.equals("ok")) {
          addLockCounts(closedLocks, ini);
          ini.close(); // start over with a new domain: what a user's retry does
          ini = null;
          reconnects++;
          sleep(RECONNECT_PAUSE_MS);
        }
      }
      history.printf("reconnects %d%n", reconnects);
      if (ini != null) {
        addLockCounts(closedLocks, ini);
        ini.close();
      }
      history.printf("locks %d %d %d%n", closedLocks[0], closedLocks[1], closedLocks[2]);
    }
    System.exit(lostOrTwice ? 1 : 0);
  }

  private static final String[] KINDS = {"add", "min", "lock"};

  private static final Map<String, Long> OFFSETS =
      Map.of(
          "add",
          MixedLoadProcess.NATIVE_OFFSET,
          "min",
          MixedLoadProcess.CAS_OFFSET,
          "lock",
          MixedLoadProcess.LOCK_OFFSET);

  private static final Map<String, FiDatatype> TYPES =
      Map.of("add", FiDatatype.UINT64, "min", FiDatatype.INT64, "lock", FiDatatype.DOUBLE_COMPLEX);

  /** Adds a domain's takeovers, restarts and lost locks to {@code counts}, before it closes. */
  private static void addLockCounts(long[] counts, Initiator ini) {
    EmulationCounts c = ini.domain.emulationCounts();
    counts[0] += c.locksTakenOver();
    counts[1] += c.lockRestarts();
    counts[2] += c.locksLost();
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
