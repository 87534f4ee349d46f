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
      long endMillis) {}

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
        Long.parseLong(f[7]));
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
   * {@return how long after {@code healMillis} the slowest live initiator's first operation that
   * started after it ended ok, in milliseconds; -1 when one never did}
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
              .filter(o -> o.outcome().equals("ok") && o.startMillis() >= healMillis)
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
   * Checks every rule of the class comment against the target's element bytes.
   *
   * @param target the target region's first {@link MixedLoadProcess#REGION_BYTES} bytes at the end
   * @param minStart the {@code min} element's value before the run
   * @return what broke, one line each; empty when every rule holds
   */
  public List<String> violations(byte[] target, long minStart) {
    List<String> broken = new ArrayList<>();
    ByteBuffer b = ByteBuffer.wrap(target).order(ByteOrder.LITTLE_ENDIAN);
    long count = b.getLong((int) MixedLoadProcess.NATIVE_OFFSET);
    long min = b.getLong((int) MixedLoadProcess.CAS_OFFSET);
    double re = b.getDouble((int) MixedLoadProcess.LOCK_OFFSET);
    double im = b.getDouble((int) MixedLoadProcess.LOCK_OFFSET + 8);
    long inFlightAtKill = killed.stream().filter(k -> k).count();
    broken.addAll(unended());
    bounds(broken, "add", count, inFlightAtKill);
    Set<Long> tickets = new HashSet<>();
    for (Operation o : ofKind("add", "ok")) {
      if (!tickets.add(o.fetched()) || o.fetched() >= count) {
        broken.add("add: fetched " + o.fetched() + " twice or beyond the count " + count);
      }
    }
    long okMin = ofKind("min", "ok").stream().mapToLong(Operation::operand).min().orElse(minStart);
    if (min > okMin) {
      broken.add("min: " + min + " is above an applied operand " + okMin);
    }
    boolean known =
        min == minStart
            || ofKind("min", "ok").stream().anyMatch(o -> o.operand() == min)
            || ofKind("min", "uncertain").stream().anyMatch(o -> o.operand() == min)
            || inFlightAtKill > 0;
    if (!known) {
      broken.add("min: " + min + " is no operand of the run");
    }
    if (im != 2 * re || re != Math.rint(re)) {
      broken.add("lock: the element (" + re + ", " + im + ") is torn");
    }
    bounds(broken, "lock", (long) re, inFlightAtKill);
    Set<Double> lockTickets = new HashSet<>();
    for (Operation o : ofKind("lock", "ok")) {
      double fre = Double.longBitsToDouble(o.fetched());
      double fim = Double.longBitsToDouble(o.fetchedHigh());
      if (fim != 2 * fre || !lockTickets.add(fre) || fre >= re) {
        broken.add("lock: fetched (" + fre + ", " + fim + "): torn, twice or beyond " + re);
      }
    }
    return broken;
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

  private void bounds(List<String> broken, String kind, long value, long inFlightAtKill) {
    long ok = ofKind(kind, "ok").size();
    long uncertain = ofKind(kind, "uncertain").size() + inFlightAtKill;
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

  private List<Operation> ofKind(String kind, String outcome) {
    return initiators.stream()
        .flatMap(List::stream)
        .filter(o -> o.kind().equals(kind) && o.outcome().equals(outcome))
        .toList();
  }
}
