package dev.fiucx.conformance.remote;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The histories of a fault run's initiators ({@link FaultLoadProcess}), checked against the
 * target's final bytes, as Jepsen checks a history against a model. Every operation ended once,
 * {@code ok}, {@code fail} (certainly not applied) or {@code uncertain} (may have been applied);
 * then for each element:
 *
 * <ul>
 *   <li>{@code add} (fetch SUM of 1): the final count lies between the {@code ok} operations and
 *       those plus the {@code uncertain} ones, and the values the {@code ok} ones fetched are
 *       distinct and below it (each applied add saw its own count);
 *   <li>{@code min}: the final value is at most every {@code ok} operand, and is the starting value
 *       or some {@code ok} or {@code uncertain} operation's operand;
 *   <li>{@code lock} (fetch SUM of (1, 2) on a DOUBLE_COMPLEX): the same bounds on the real part,
 *       the imaginary part exactly twice the real one (no torn element), and every fetched value
 *       the same shape.
 * </ul>
 *
 * <p>An initiator that was killed may have had one operation in flight that it never recorded: it
 * counts as uncertain, on every element.
 *
 * <p>A history has a line per operation, {@code kind outcome errno operand fetched fetchedHigh
 * startMillis endMillis epoch key}: the element's kind ({@code add}, {@code min}, {@code lock}),
 * how it ended, the errno of an error, the {@code min}'s operand (else 0), the fetched value (a
 * {@code lock}'s as the raw bits of its two doubles, else {@code fetchedHigh} is 0), when it
 * started and ended (System.currentTimeMillis), and the target incarnation it was posted to: {@code
 * epoch} counts the distinct region keys the initiator was given before this one, and {@code key}
 * is the region's key it used. The other lines ({@code reconnects N}, the remote lock's {@code
 * takeover N} and {@code locks T R L}: {@link FaultLoadProcess}) are no operations.
 *
 * <p>When the target was restarted, each incarnation is a new process with a new region (zeros and
 * the starting values again) and new keys, so no operation moves from one to another and the
 * operations fall apart by epoch exactly. The epochs must agree with the incarnations' keys, in the
 * order they ran: the {@code epoch}th key for every operation tagged {@code epoch}, and never a
 * smaller epoch after a larger one. Operations to an incarnation that is gone are checked for what
 * needs no memory: each ended once, and the {@code ok} ones fetched distinct, untorn values; those
 * to the last incarnation for every rule above, against its memory.
 */
public final class FaultHistory {
  /** One recorded operation. */
  record Operation(
      String kind,
      String outcome,
      int errno,
      long operand,
      long fetched,
      long fetchedHigh,
      long startMillis,
      long endMillis,
      int epoch,
      long key) {}

  private final List<List<Operation>> initiators = new ArrayList<>();
  private final List<Boolean> killed = new ArrayList<>();

  /** Per initiator, its {@code locks} line: takeovers, restarts, lost locks (zeros if none). */
  private final List<long[]> lockCounts = new ArrayList<>();

  private long reconnects;

  /** An empty history: {@link #add} each initiator's. */
  public FaultHistory() {}

  /**
   * Adds one initiator's history.
   *
   * @param file what {@link FaultLoadProcess} wrote
   * @param wasKilled whether the initiator was killed (its last operation may be missing)
   * @throws IOException when the file cannot be read
   */
  public void add(Path file, boolean wasKilled) throws IOException {
    List<Operation> ops = new ArrayList<>();
    long[] locks = new long[3];
    for (String line : Files.readAllLines(file)) {
      String[] f = line.split(" ");
      switch (f[0]) {
        case "reconnects" -> reconnects += Long.parseLong(f[1]);
        case "takeover" -> {} // what the fault runner watches for while the run goes on
        case "locks" -> {
          for (int i = 0; i < locks.length; i++) {
            locks[i] = Long.parseLong(f[1 + i]);
          }
        }
        default -> ops.add(operation(f));
      }
    }
    initiators.add(ops);
    killed.add(wasKilled);
    lockCounts.add(locks);
  }

  private static Operation operation(String[] f) {
    return new Operation(
        f[0],
        f[1],
        Integer.parseInt(f[2]),
        Long.parseLong(f[3]),
        Long.parseLong(f[4]),
        Long.parseLong(f[5]),
        Long.parseLong(f[6]),
        Long.parseLong(f[7]),
        Integer.parseInt(f[8]),
        Long.parseLong(f[9]));
  }

  /**
   * {@return how many locks initiator {@code i} took over from a holder whose lease ran out}
   *
   * @param i the initiator's index, in the order of {@link #add}
   */
  public long lockTakeovers(int i) {
    return lockCounts.get(i)[0];
  }

  /**
   * {@return how many of initiator {@code i}'s lock elements found, as they went on, that their
   * hold had outlasted the lease: restarted before the put, or released a lock already taken over}
   *
   * @param i the initiator's index, in the order of {@link #add}
   */
  public long lockHoldsOutlasted(int i) {
    return lockCounts.get(i)[1] + lockCounts.get(i)[2];
  }

  /** {@return operations recorded, over every initiator} */
  public long operations() {
    return initiators.stream().mapToLong(List::size).sum();
  }

  /**
   * {@return operations recorded with {@code outcome}}
   *
   * @param outcome {@code ok}, {@code fail} or {@code uncertain}
   */
  public long count(String outcome) {
    return initiators.stream()
        .flatMap(List::stream)
        .filter(o -> o.outcome().equals(outcome))
        .count();
  }

  /** {@return the reconnections the initiators that ended on their own made} */
  public long reconnects() {
    return reconnects;
  }

  /** {@return the longest any operation took, start to end, in milliseconds} */
  public long longestMillis() {
    return initiators.stream()
        .flatMap(List::stream)
        .mapToLong(o -> o.endMillis() - o.startMillis())
        .max()
        .orElse(0);
  }

  /**
   * {@return how long after {@code healMillis} the slowest live initiator completed an operation
   * ok, in milliseconds; -1 when one never did} The operation may have started before: after a
   * flapping link tcp's retransmission back-off can hold the one in flight for seconds past the
   * fault, and its completion is the progress looked for.
   *
   * @param healMillis when the fault ended (System.currentTimeMillis)
   */
  public long recoveryMillis(long healMillis) {
    long worst = 0;
    for (int i = 0; i < initiators.size(); i++) {
      if (killed.get(i)) {
        continue;
      }
      long first =
          initiators.get(i).stream()
              .filter(o -> o.outcome().equals("ok") && o.endMillis() >= healMillis)
              .mapToLong(Operation::endMillis)
              .min()
              .orElse(-1);
      if (first < 0) {
        return -1;
      }
      worst = Math.max(worst, first - healMillis);
    }
    return worst;
  }

  /**
   * {@return the fewest target incarnations (epochs) any initiator that was not killed posted
   * operations to; 0 when none posted any}
   */
  public int fewestIncarnations() {
    int fewest = Integer.MAX_VALUE;
    for (int i = 0; i < initiators.size(); i++) {
      if (!killed.get(i)) {
        fewest =
            Math.min(
                fewest,
                (int) initiators.get(i).stream().mapToInt(Operation::epoch).distinct().count());
      }
    }
    return fewest == Integer.MAX_VALUE ? 0 : fewest;
  }

  /**
   * Checks every rule of the class comment against the last incarnation's element bytes.
   *
   * @param target the last incarnation's region's first {@link MixedLoadProcess#REGION_BYTES} bytes
   *     at the end
   * @param minStart the {@code min} element's value before the run (in every incarnation)
   * @param keys the region's key in each incarnation of the target, in the order they ran (one key
   *     when the target was not restarted)
   * @return what broke, one line each; empty when every rule holds
   */
  public List<String> violations(byte[] target, long minStart, List<Long> keys) {
    List<String> broken = new ArrayList<>();
    broken.addAll(unended());
    broken.addAll(epochViolations(keys));
    int last = keys.size() - 1;
    for (int epoch = 0; epoch < last; epoch++) {
      fetchedTickets(broken, epoch, Double.POSITIVE_INFINITY, Long.MAX_VALUE);
    }
    memoryViolations(broken, target, minStart, last);
    return broken;
  }

  /** The epoch tags that disagree with the incarnations' keys, or go back; one line each. */
  private List<String> epochViolations(List<Long> keys) {
    List<String> broken = new ArrayList<>();
    for (int i = 0; i < initiators.size(); i++) {
      int seen = 0;
      for (Operation o : initiators.get(i)) {
        if (o.epoch() < seen || o.epoch() >= keys.size() || keys.get(o.epoch()) != o.key()) {
          broken.add(
              "initiator "
                  + i
                  + ": epoch "
                  + o.epoch()
                  + " (after "
                  + seen
                  + ") does not match the incarnations' keys "
                  + keys
                  + ": "
                  + o);
          break; // one line per initiator: the rest follow from it
        }
        seen = o.epoch();
      }
    }
    return broken;
  }

  /**
   * Checks the values the {@code ok} adds and lock elements of {@code epoch} fetched: distinct,
   * below the element's final value ({@code lockBound}, {@code addBound}; unbounded for an
   * incarnation that is gone) and, for the lock, untorn.
   */
  private void fetchedTickets(List<String> broken, int epoch, double lockBound, long addBound) {
    Set<Long> tickets = new HashSet<>();
    for (Operation o : ofKind("add", "ok", epoch)) {
      if (!tickets.add(o.fetched()) || Long.compareUnsigned(o.fetched(), addBound) >= 0) {
        broken.add(
            "add: fetched "
                + o.fetched()
                + " twice or beyond the count "
                + addBound
                + " (epoch "
                + epoch
                + ")");
      }
    }
    Set<Double> lockTickets = new HashSet<>();
    for (Operation o : ofKind("lock", "ok", epoch)) {
      double fre = Double.longBitsToDouble(o.fetched());
      double fim = Double.longBitsToDouble(o.fetchedHigh());
      if (fim != 2 * fre || !lockTickets.add(fre) || fre >= lockBound) {
        broken.add(
            "lock: fetched ("
                + fre
                + ", "
                + fim
                + "): torn, twice or beyond "
                + lockBound
                + " (epoch "
                + epoch
                + ")");
      }
    }
  }

  /** The rules of the class comment for the operations of {@code epoch}, against its memory. */
  private void memoryViolations(List<String> broken, byte[] target, long minStart, int epoch) {
    ByteBuffer b = ByteBuffer.wrap(target).order(ByteOrder.LITTLE_ENDIAN);
    long count = b.getLong((int) MixedLoadProcess.NATIVE_OFFSET);
    long min = b.getLong((int) MixedLoadProcess.CAS_OFFSET);
    double re = b.getDouble((int) MixedLoadProcess.LOCK_OFFSET);
    double im = b.getDouble((int) MixedLoadProcess.LOCK_OFFSET + 8);
    long inFlightAtKill = killed.stream().filter(k -> k).count();
    bounds(broken, "add", count, inFlightAtKill, epoch);
    long okMin =
        ofKind("min", "ok", epoch).stream().mapToLong(Operation::operand).min().orElse(minStart);
    if (min > okMin) {
      broken.add("min: " + min + " is above an applied operand " + okMin);
    }
    boolean known =
        min == minStart
            || ofKind("min", "ok", epoch).stream().anyMatch(o -> o.operand() == min)
            || ofKind("min", "uncertain", epoch).stream().anyMatch(o -> o.operand() == min)
            || inFlightAtKill > 0;
    if (!known) {
      broken.add("min: " + min + " is no operand of the run");
    }
    if (im != 2 * re || re != Math.rint(re)) {
      broken.add("lock: the element (" + re + ", " + im + ") is torn");
    }
    bounds(broken, "lock", (long) re, inFlightAtKill, epoch);
    fetchedTickets(broken, epoch, re, count);
  }

  /**
   * {@return the operations that did not end exactly once as ok, fail or uncertain (lost, or a
   * completion that came twice), one line each; empty when all did}
   */
  public List<String> unended() {
    List<String> broken = new ArrayList<>();
    for (List<Operation> ops : initiators) {
      for (Operation o : ops) {
        if (!Set.of("ok", "fail", "uncertain").contains(o.outcome())) {
          broken.add("an operation ended as '" + o.outcome() + "': " + o);
        }
      }
    }
    return broken;
  }

  private void bounds(
      List<String> broken, String kind, long value, long inFlightAtKill, int epoch) {
    long ok = ofKind(kind, "ok", epoch).size();
    long uncertain = ofKind(kind, "uncertain", epoch).size() + inFlightAtKill;
    if (value < ok || value > ok + uncertain) {
      broken.add(
          kind
              + ": "
              + value
              + " applied, outside ["
              + ok
              + " ok, "
              + (ok + uncertain)
              + " ok or uncertain]");
    }
  }

  private List<Operation> ofKind(String kind, String outcome, int epoch) {
    return initiators.stream()
        .flatMap(List::stream)
        .filter(o -> o.kind().equals(kind) && o.outcome().equals(outcome) && o.epoch() == epoch)
        .toList();
  }
}
