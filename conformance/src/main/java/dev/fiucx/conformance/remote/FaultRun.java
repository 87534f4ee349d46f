package dev.fiucx.conformance.remote;

import dev.fiucx.DomainAttr;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * One fault injected into a running load, and what became of every operation: a target ({@link
 * RemoteTarget}), {@link #INITIATORS} initiator processes ({@link FaultLoadProcess}) and, over tcp,
 * two hosts (network namespaces joined by veth: the target in one, the initiators in the other;
 * over shm all run in this host). The initiators work for a while, the fault is injected and ended,
 * they work on; then {@link FaultHistory} checks their histories against the target's bytes. The
 * short fault suite runs each {@link Fault} once; {@code fiucx soak --faults} runs them in turn for
 * as long as asked. Needs root (namespaces, iptables, signals to other processes).
 */
public final class FaultRun {
  /** Initiator processes per run. */
  public static final int INITIATORS = 2;

  /** How long the initiators work before the fault. */
  private static final long BEFORE_MS = 3_000;

  /** How long they work after it, at least. */
  private static final long AFTER_MS = 6_000;

  /**
   * The longest an initiator that stayed connected may take, after a fault ended, to complete an
   * operation again. Measured: at most 6.2 s (after a 60 s partition, tcp's retransmission back-off
   * and a reconnection); a 1 s fault, under 1 s.
   */
  public static final long RECOVERY_BOUND_MS = 20_000;

  /**
   * How much the target's resident memory may grow from the baseline (both initiators connected) to
   * the end of a run. A leak per operation or per reconnection (a region, an endpoint, a worker's
   * buffers: tens of KiB to MiBs each) over thousands of operations and several reconnections would
   * pass it; the JVM's own growth in a minute of this load stays far below it.
   */
  private static final long RSS_GROWTH_BOUND_KIB = 64 << 10;

  /** The operation timeout of the runs that test it: shorter than their partition. */
  private static final long SHORT_OPERATION_TIMEOUT_MS = 5_000;

  /** The lock lease of the runs that stop a holder: a stop caught late still outlasts it. */
  private static final long SHORT_LOCK_LEASE_MS = 2_000;

  /** The faults, each with the transport it runs over and how long it lasts. */
  public enum Fault {
    /** Host 0 drops what comes and goes over the link for 1 s (iptables DROP). */
    PARTITION_1S("tcp", "partition both ways 1 s", 1_000),
    /** Host 0 drops what comes in for 1 s; what it sends still arrives. */
    PARTITION_ONE_WAY_1S("tcp", "partition one way 1 s", 1_000),
    /** One way for 10 s. */
    PARTITION_ONE_WAY_10S("tcp", "partition one way 10 s", 10_000),
    /** One way for 60 s, past the default operation timeout. */
    PARTITION_ONE_WAY_60S("tcp", "partition one way 60 s", 60_000),
    /** Both ways for 10 s: within the operation timeout, so every operation waits it out. */
    PARTITION_10S("tcp", "partition both ways 10 s", 10_000),
    /**
     * Both ways for 12 s with a 5 s operation timeout: operations end uncertain, then reconnect.
     */
    PARTITION_PAST_TIMEOUT("tcp", "partition 12 s, timeout 5 s", 12_000),
    /** Both ways for 60 s, past the default operation timeout. */
    PARTITION_60S("tcp", "partition both ways 60 s", 60_000),
    /** The link goes down and up every 200 ms for 10 s. */
    LINK_FLAPPING("tcp", "link flapping 10 s", 10_000),
    /** The target stopped (SIGSTOP) for 5 s, then continued. */
    TARGET_PAUSE_5S("tcp", "target SIGSTOP 5 s", 5_000),
    /** The target stopped for 30 s: as long as the default operation timeout. */
    TARGET_PAUSE_30S("tcp", "target SIGSTOP 30 s", 30_000),
    /** One initiator stopped for 12 s, longer than a lock lease (10 s). */
    INITIATOR_PAUSE("tcp", "initiator SIGSTOP 12 s", 12_000),
    /**
     * One initiator stopped while it holds the DOUBLE_COMPLEX's lock ({@link HolderPause}), for 3 s
     * with a 2 s lease: the other takes the lock over, and the holder must not write late.
     */
    HOLDER_PAUSE("tcp", "lock holder SIGSTOP 3 s, lease 2 s", 3_000),
    /** One initiator killed (SIGKILL). */
    INITIATOR_KILL("tcp", "initiator SIGKILL", 0),
    /** The target killed: only that every operation ended once is checked. */
    TARGET_KILL("tcp", "target SIGKILL", 0),
    /**
     * The target's serve restarted under load, as {@code systemctl restart} does: SIGTERM, then a
     * new process on the same address with the same region (new keys); the initiators connect by
     * name and connect again. The 3 s are the time the restart is given in the run.
     */
    SERVE_RESTART("tcp", "serve restarted (SIGTERM, new process)", 3_000),
    /** Over shared memory, the target stopped for 5 s. */
    SHM_TARGET_PAUSE("shm", "shm: target SIGSTOP 5 s", 5_000),
    /** Over shared memory, one initiator stopped for 12 s. */
    SHM_INITIATOR_PAUSE("shm", "shm: initiator SIGSTOP 12 s", 12_000),
    /** Over shared memory, one initiator killed. */
    SHM_INITIATOR_KILL("shm", "shm: initiator SIGKILL", 0);

    private final String transport;
    private final String title;
    private final long millis;

    Fault(String transport, String title, long millis) {
      this.transport = transport;
      this.title = title;
      this.millis = millis;
    }

    /** {@return the fault in words, for tables} */
    public String title() {
      return title;
    }

    /** {@return the transport it runs over: tcp between namespaces, or shm in this host} */
    public String transport() {
      return transport;
    }

    private long operationTimeoutMs() {
      return this == PARTITION_PAST_TIMEOUT
          ? SHORT_OPERATION_TIMEOUT_MS
          : DomainAttr.DEFAULT_OPERATION_TIMEOUT.toMillis();
    }

    private long lockLeaseMs() {
      return this == HOLDER_PAUSE ? SHORT_LOCK_LEASE_MS : DomainAttr.DEFAULT_LOCK_LEASE.toMillis();
    }

    /** The initiator the fault kills, -1 for none, {@link #TARGET_KILLED} for the target. */
    private int killed() {
      return switch (this) {
        case INITIATOR_KILL, SHM_INITIATOR_KILL -> 1;
        case TARGET_KILL -> TARGET_KILLED;
        default -> -1;
      };
    }
  }

  /** The port the serve of {@link Fault#SERVE_RESTART} listens on, in the target's host. */
  private static final int SERVE_PORT = 7_100;

  /** What {@link Fault#killed} says when the target is killed. */
  private static final int TARGET_KILLED = Integer.MAX_VALUE;

  /**
   * What a run found.
   *
   * @param fault the fault injected
   * @param operations operations recorded
   * @param ok those that completed
   * @param failed those that ended in an error that certainly did not apply them
   * @param uncertain those that ended in an error that may have applied them
   * @param reconnects new domains the initiators opened after an error
   * @param incarnations the fewest target incarnations an initiator that was not killed posted
   *     operations to: 2 when the serve was restarted and it worked on the new one, else 1
   * @param longestMillis the longest any operation took
   * @param recoveryMillis how long after the fault ended every live initiator completed an
   *     operation again (0 when the target was killed)
   * @param targetRssGrowthKib how much the target's resident memory grew, baseline to end (0 when
   *     the target was killed)
   * @param violations what broke, one line each; empty when every check held
   */
  public record Result(
      Fault fault,
      long operations,
      long ok,
      long failed,
      long uncertain,
      long reconnects,
      int incarnations,
      long longestMillis,
      long recoveryMillis,
      long targetRssGrowthKib,
      List<String> violations) {}

  private FaultRun() {}

  /** {@return whether this process may run faults: root, with iproute2} */
  public static boolean available() {
    return NetworkNamespaces.available();
  }

  /**
   * Runs {@code fault} once.
   *
   * @param fault the fault
   * @param dir where the histories go
   * @return what the run found
   * @throws Exception when the run itself cannot be carried out (a process that would not start)
   */
  public static Result run(Fault fault, Path dir) throws Exception {
    boolean tcp = fault.transport().equals("tcp");
    // a stop aimed at a lock holder may take some tries before it lands
    long runMillis =
        BEFORE_MS
            + fault.millis
            + AFTER_MS
            + (fault == Fault.HOLDER_PAUSE ? HolderPause.AIM_MS : 0);
    Set<String> shmBefore = RemoteTarget.shmFiles(ProcessHandle.current().pid());
    List<String> violations = new ArrayList<>();
    FaultHistory history = new FaultHistory();
    long healed;
    long fdsBefore;
    long rssBefore;
    long rssGrowth = 0;
    boolean restart = fault == Fault.SERVE_RESTART;
    long minStart = Long.MAX_VALUE;
    try (NetworkNamespaces hosts = new NetworkNamespaces();
        // the MIN element starts at minStart, in every incarnation before it listens
        RemoteTarget target =
            new RemoteTarget(
                "ucx",
                fault.transport(),
                MixedLoadProcess.REGION_BYTES,
                tcp ? hosts.prefix(1) : List.of(),
                restart ? hosts.address(1) + ":" + SERVE_PORT : null,
                MixedLoadProcess.CAS_OFFSET,
                ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(minStart).array())) {
      // the region's key in each incarnation of the target
      List<Long> keys = new ArrayList<>(List.of(target.key()));
      List<Process> initiators = new ArrayList<>();
      List<Path> histories = new ArrayList<>();
      try {
        for (int i = 0; i < INITIATORS; i++) {
          Path file = Files.createTempFile(dir, "history-" + i + "-", ".txt");
          histories.add(file);
          initiators.add(
              JavaCommand.inheritingIo(
                      JavaCommand.of(
                          tcp ? hosts.prefix(0) : List.of(),
                          FaultLoadProcess.class,
                          fault.transport(),
                          // by name when the serve will be restarted, else by address and key
                          restart
                              ? hosts.address(1) + ":" + SERVE_PORT
                              : HexFormat.of().formatHex(target.address()),
                          restart ? TestModeServe.REGION : Long.toString(target.key()),
                          Long.toString(runMillis),
                          Integer.toString(i),
                          file.toString(),
                          Long.toString(fault.operationTimeoutMs()),
                          Long.toString(fault.lockLeaseMs())))
                  .start());
        }
        Thread.sleep(BEFORE_MS);
        // a slow start (a loaded host) must not let the fault find an initiator not yet working,
        // nor one miss the first incarnation of a restarted serve
        if (!awaitEpoch(histories, 0, RECOVERY_BOUND_MS)) {
          violations.add(
              "an initiator did not work on the target within "
                  + (BEFORE_MS + RECOVERY_BOUND_MS)
                  + " ms of its start");
        }
        // with both initiators connected: once they have gone, the target holds no more than this
        fdsBefore = openFiles(target.pid());
        rssBefore = residentKib(target.pid());
        if (restart) {
          if (!target.restart()) {
            violations.add("the serve did not exit within 10 s of SIGTERM; it was killed");
          }
          healed = System.currentTimeMillis(); // the new serve listens
          keys.add(target.key());
          // the new incarnation's baselines, with both initiators connected to it again
          awaitEpoch(histories, 1, RECOVERY_BOUND_MS);
          fdsBefore = openFiles(target.pid());
          rssBefore = residentKib(target.pid());
        } else {
          healed = inject(fault, hosts, target, initiators, histories);
          if (healed < 0) {
            violations.add(
                "no stop caught initiator 1 holding the lock in " + HolderPause.AIM_MS + " ms");
          }
        }
        for (int i = 0; i < INITIATORS; i++) {
          Process p = initiators.get(i);
          long bound = runMillis + FaultLoadProcess.OPERATION_BOUND_MS + 30_000;
          if (!p.waitFor(bound, TimeUnit.MILLISECONDS)) {
            violations.add("initiator " + i + " did not end within " + bound + " ms");
          } else if (i != fault.killed() && p.exitValue() != 0) {
            violations.add("initiator " + i + " exited with " + p.exitValue());
          }
        }
      } finally {
        initiators.forEach(Process::destroyForcibly);
      }
      for (int i = 0; i < INITIATORS; i++) {
        history.add(histories.get(i), i == fault.killed());
        Files.deleteIfExists(histories.get(i));
      }
      if (fault == Fault.HOLDER_PAUSE && healed >= 0) {
        if (history.lockTakeovers(0) == 0) {
          violations.add("initiator 0 never took the stopped holder's lock over");
        }
        if (history.lockHoldsOutlasted(1) == 0) {
          violations.add(
              "the stopped holder went on as if its hold had not outlasted the lease"
                  + " (no restart before its put, no release refused)");
        }
      }
      if (fault.killed() == TARGET_KILLED) {
        violations.addAll(history.unended());
      } else {
        // the target lets go of departed initiators' endpoints as it sees them leave
        long fdsAfter = openFiles(target.pid());
        for (long until = System.nanoTime() + 10_000_000_000L;
            fdsAfter > fdsBefore && System.nanoTime() - until < 0;
            fdsAfter = openFiles(target.pid())) {
          Thread.sleep(100);
        }
        if (fdsAfter > fdsBefore) {
          violations.add(
              "the target holds " + fdsAfter + " file descriptors, " + fdsBefore + " before");
        }
        rssGrowth = residentKib(target.pid()) - rssBefore;
        if (rssGrowth > RSS_GROWTH_BOUND_KIB) {
          violations.add(
              "the target's resident memory grew by " + rssGrowth + " KiB during the run");
        }
        violations.addAll(
            history.violations(target.get(0, (int) MixedLoadProcess.REGION_BYTES), minStart, keys));
      }
      if (restart && history.fewestIncarnations() < keys.size()) {
        violations.add(
            "an initiator posted to "
                + history.fewestIncarnations()
                + " of the target's "
                + keys.size()
                + " incarnations");
      }
    }
    long recovery = fault.killed() == TARGET_KILLED ? 0 : history.recoveryMillis(healed);
    if (recovery < 0 || recovery > RECOVERY_BOUND_MS) {
      violations.add(
          "an initiator that stayed connected "
              + (recovery < 0
                  ? "never completed an operation again"
                  : "took " + recovery + " ms to complete one again, past " + RECOVERY_BOUND_MS));
    }
    long longestAllowed = fault.operationTimeoutMs() + fault.millis + 2_000;
    if (history.longestMillis() > longestAllowed) {
      violations.add(
          "an operation took " + history.longestMillis() + " ms, past " + longestAllowed + " ms");
    }
    Set<String> shmAfter = RemoteTarget.shmFiles(ProcessHandle.current().pid());
    if (!shmAfter.equals(shmBefore)) {
      violations.add("this process's /dev/shm files changed: " + shmBefore + " -> " + shmAfter);
    }
    return new Result(
        fault,
        history.operations(),
        history.count("ok"),
        history.count("fail"),
        history.count("uncertain"),
        history.reconnects(),
        history.fewestIncarnations(),
        history.longestMillis(),
        recovery,
        rssGrowth,
        List.copyOf(violations));
  }

  /**
   * Injects the fault and ends it; returns when it ended (System.currentTimeMillis), -1 when a
   * pause aimed at a lock holder never caught one.
   */
  private static long inject(
      Fault fault,
      NetworkNamespaces hosts,
      RemoteTarget target,
      List<Process> initiators,
      List<Path> histories)
      throws IOException, InterruptedException {
    switch (fault) {
      case PARTITION_1S, PARTITION_10S, PARTITION_PAST_TIMEOUT, PARTITION_60S -> {
        hosts.partition(true);
        Thread.sleep(fault.millis);
        hosts.heal();
      }
      case PARTITION_ONE_WAY_1S, PARTITION_ONE_WAY_10S, PARTITION_ONE_WAY_60S -> {
        hosts.partition(false);
        Thread.sleep(fault.millis);
        hosts.heal();
      }
      case LINK_FLAPPING -> {
        for (long t = 0; t < fault.millis; t += 200) {
          hosts.link(t % 400 != 0);
          Thread.sleep(200);
        }
        hosts.link(true);
      }
      case TARGET_PAUSE_5S, TARGET_PAUSE_30S, SHM_TARGET_PAUSE -> pause(target.pid(), fault.millis);
      case INITIATOR_PAUSE, SHM_INITIATOR_PAUSE -> pause(initiators.get(1).pid(), fault.millis);
      case HOLDER_PAUSE -> {
        return HolderPause.aim(
            initiators.get(1),
            histories.get(1),
            histories.get(0),
            fault.lockLeaseMs(),
            fault.millis);
      }
      case INITIATOR_KILL, SHM_INITIATOR_KILL ->
          initiators.get(1).destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      case TARGET_KILL -> target.kill();
    }
    return System.currentTimeMillis();
  }

  /**
   * Waits until every history has an {@code ok} operation of {@code epoch}: every initiator works
   * on that incarnation of the target; at most {@code boundMs}. Returns whether they all did.
   */
  private static boolean awaitEpoch(List<Path> histories, int epoch, long boundMs)
      throws IOException, InterruptedException {
    long giveUp = System.currentTimeMillis() + boundMs;
    List<Path> waiting = new ArrayList<>(histories);
    while (!waiting.isEmpty() && System.currentTimeMillis() < giveUp) {
      for (var it = waiting.iterator(); it.hasNext(); ) {
        for (String line : Files.readAllLines(it.next())) {
          String[] f = line.split(" ");
          // a line being written may be cut short: only whole ones count
          if (f.length == 10 && f[1].equals("ok") && f[8].equals(Integer.toString(epoch))) {
            it.remove();
            break;
          }
        }
      }
      Thread.sleep(50);
    }
    return waiting.isEmpty();
  }

  /** A process's resident memory (VmRSS) in KiB, from /proc; -1 when it cannot be read. */
  private static long residentKib(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (IOException | NumberFormatException e) {
      // gone or unreadable: -1
    }
    return -1;
  }

  /** The file descriptors a process has open, from /proc; -1 when it cannot be read. */
  private static long openFiles(long pid) {
    try (var fds = Files.list(Path.of("/proc/" + pid + "/fd"))) {
      return fds.count();
    } catch (IOException e) {
      return -1;
    }
  }

  private static void pause(long pid, long millis) throws InterruptedException {
    signal("STOP", pid);
    try {
      Thread.sleep(millis);
    } finally {
      signal("CONT", pid);
    }
  }

  /** Sends {@code sig} to {@code pid} with kill(1). */
  static void signal(String sig, long pid) {
    try {
      Process p = new ProcessBuilder("kill", "-" + sig, Long.toString(pid)).start();
      if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new FiException(FiErrno.EIO, "kill -" + sig + " " + pid + " failed");
      }
    } catch (IOException e) {
      throw new FiException(FiErrno.EIO, "kill -" + sig + " " + pid, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new FiException(FiErrno.EINTR, "kill -" + sig + " " + pid, e);
    }
  }
}
