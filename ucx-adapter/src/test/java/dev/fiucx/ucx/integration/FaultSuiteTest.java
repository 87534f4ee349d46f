package dev.fiucx.ucx.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.fiucx.DomainAttr;
import dev.fiucx.conformance.remote.FaultHistory;
import dev.fiucx.conformance.remote.FaultLoadProcess;
import dev.fiucx.conformance.remote.JavaCommand;
import dev.fiucx.conformance.remote.MixedLoadProcess;
import dev.fiucx.conformance.remote.NetworkNamespaces;
import dev.fiucx.conformance.remote.RemoteTarget;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short fault suite: two hosts (network namespaces joined by veth), a target in one, two
 * initiators in the other doing fetch-adds (native), fetch MINs (a CAS loop) and DOUBLE_COMPLEX
 * fetch SUMs (the remote lock) over tcp, each recording what every operation became. Each fault is
 * injected once, for a few seconds; then {@link FaultHistory} checks the histories against the
 * target's final bytes: every operation ended exactly once, every element's value is one that the
 * applied and uncertain operations allow, no lock element is torn, and the initiators worked again
 * after the fault. The long form, every fault repeated, is {@code fiucx soak --faults}.
 */
@RequiresProvider("ucx")
class FaultSuiteTest {
  private static final int INITIATORS = 2;

  /** After a fault ends, the initiators must work again within this (measured: see the notes). */
  private static final long RECOVERY_BOUND_MS = 20_000;

  @TempDir Path dir;

  /** One run: a fault injected {@code faultAtMs} after the initiators start, for its duration. */
  private interface Fault {
    /** Injects the fault and ends it; returns when it ended (System.currentTimeMillis). */
    long inject(NetworkNamespaces hosts, RemoteTarget target, List<Process> initiators)
        throws Exception;
  }

  @Test
  void aPartitionBothWaysForOneSecond() throws Exception {
    run(
        "partition both ways 1 s",
        (hosts, target, initiators) -> {
          hosts.partition(true);
          Thread.sleep(1_000);
          hosts.heal();
          return System.currentTimeMillis();
        },
        -1);
  }

  @Test
  void aPartitionOneWayForOneSecond() throws Exception {
    run(
        "partition one way 1 s",
        (hosts, target, initiators) -> {
          hosts.partition(false);
          Thread.sleep(1_000);
          hosts.heal();
          return System.currentTimeMillis();
        },
        -1);
  }

  @Test
  void theTargetPausedForFiveSeconds() throws Exception {
    run(
        "target SIGSTOP 5 s",
        (hosts, target, initiators) -> {
          signal("STOP", target.pid());
          Thread.sleep(5_000);
          signal("CONT", target.pid());
          return System.currentTimeMillis();
        },
        -1);
  }

  @Test
  void oneInitiatorKilledMidRun() throws Exception {
    run(
        "initiator SIGKILL",
        (hosts, target, initiators) -> {
          initiators.get(1).destroyForcibly().waitFor(10, TimeUnit.SECONDS);
          return System.currentTimeMillis();
        },
        1);
  }

  @Test
  void linkFlappingEvery200MsForThreeSeconds() throws Exception {
    run(
        "link flapping 3 s",
        (hosts, target, initiators) -> {
          for (int i = 0; i < 15; i++) {
            hosts.link(i % 2 == 1);
            Thread.sleep(200);
          }
          hosts.link(true);
          return System.currentTimeMillis();
        },
        -1);
  }

  @Test
  void probeLongPartition() throws Exception {
    long d = Long.getLong("probe.ms", 15_000);
    run(
        "partition both ways " + d,
        (hosts, target, initiators) -> {
          hosts.partition(true);
          Thread.sleep(d);
          hosts.heal();
          return System.currentTimeMillis();
        },
        -1,
        d + 12_000,
        Long.getLong("probe.timeout", 5_000));
  }

  @Test
  void probeLongStop() throws Exception {
    long d = Long.getLong("probe.ms", 15_000);
    run(
        "target SIGSTOP " + d,
        (hosts, target, initiators) -> {
          signal("STOP", target.pid());
          Thread.sleep(d);
          signal("CONT", target.pid());
          return System.currentTimeMillis();
        },
        -1,
        d + 12_000);
  }

  private void run(String name, Fault fault, int killed) throws Exception {
    run(name, fault, killed, 9_000);
  }

  private void run(String name, Fault fault, int killed, long runMillis) throws Exception {
    run(name, fault, killed, runMillis, DomainAttr.DEFAULT_OPERATION_TIMEOUT.toMillis());
  }

  private void run(String name, Fault fault, int killed, long runMillis, long operationTimeoutMs)
      throws Exception {
    assumeTrue(NetworkNamespaces.available(), "needs root and iproute2 to create namespaces");
    Set<String> shmBefore = RemoteTarget.shmFiles(ProcessHandle.current().pid());
    try (NetworkNamespaces hosts = new NetworkNamespaces();
        RemoteTarget target =
            new RemoteTarget(
                "ucx", "tcp", MixedLoadProcess.REGION_BYTES, false, false, hosts.prefix(1))) {
      long minStart = Long.MAX_VALUE;
      target.set(MixedLoadProcess.CAS_OFFSET, le(minStart));
      List<Process> initiators = new ArrayList<>();
      List<Path> histories = new ArrayList<>();
      for (int i = 0; i < INITIATORS; i++) {
        Path history = dir.resolve("history-" + i);
        histories.add(history);
        initiators.add(
            JavaCommand.inheritingIo(
                    JavaCommand.of(
                        hosts.prefix(0),
                        FaultLoadProcess.class,
                        "tcp",
                        HexFormat.of().formatHex(target.address()),
                        Long.toString(target.key()),
                        Long.toString(runMillis),
                        Integer.toString(i),
                        history.toString(),
                        Long.toString(operationTimeoutMs)))
                .start());
      }
      Thread.sleep(3_000); // the initiators' JVMs start and work for a while
      long healed = fault.inject(hosts, target, initiators);
      for (Process p : initiators) {
        if (!p.waitFor(
            runMillis + FaultLoadProcess.OPERATION_BOUND_MS + 30_000, TimeUnit.MILLISECONDS)) {
          initiators.forEach(Process::destroyForcibly);
          throw new AssertionError(name + ": an initiator did not end");
        }
      }
      FaultHistory history = new FaultHistory();
      for (int i = 0; i < INITIATORS; i++) {
        if (i != killed) {
          assertEquals(0, initiators.get(i).exitValue(), name + ": initiator " + i + "'s exit");
        }
        history.add(histories.get(i), i == killed);
      }
      byte[] bytes = target.get(0, (int) MixedLoadProcess.REGION_BYTES);
      List<String> broken = history.violations(bytes, minStart);
      long recovery = history.recoveryMillis(healed);
      System.err.printf(
          "FaultSuiteTest: %s: %d operations, %d ok, %d failed, %d uncertain, %d reconnects,"
              + " longest %d ms, working again %d ms after the fault ended%n",
          name,
          history.operations(),
          history.count("ok"),
          history.count("fail"),
          history.count("uncertain"),
          history.reconnects(),
          history.longestMillis(),
          recovery);
      assertEquals(List.of(), broken, name);
      assertTrue(
          recovery >= 0 && recovery <= RECOVERY_BOUND_MS,
          name + ": working again " + recovery + " ms after the fault ended");
      assertTrue(history.count("ok") > 0, name);
    }
    Set<String> shmAfter = RemoteTarget.shmFiles(ProcessHandle.current().pid());
    assertEquals(shmBefore, shmAfter, name + ": this process's /dev/shm files");
  }

  private static byte[] le(long v) {
    return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array();
  }

  private static void signal(String sig, long pid) throws Exception {
    Process p = new ProcessBuilder("kill", "-" + sig, Long.toString(pid)).start();
    assertTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0, "kill -" + sig);
  }
}
