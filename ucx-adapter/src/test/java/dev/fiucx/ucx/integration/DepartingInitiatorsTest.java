package dev.fiucx.ucx.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import dev.fiucx.conformance.remote.Initiator;
import dev.fiucx.conformance.remote.JavaCommand;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A long-lived shared-memory target lets go of what it held for initiators that came and went: the
 * initiator's RELEASE tells it, and for an initiator that was killed, the target's look at the
 * initiator's process (learnt from its RESOLVE), or UCX, whose control worker's endpoints (tcp)
 * have peer-failure handling.
 */
@RequiresProvider("ucx")
class DepartingInitiatorsTest {
  private static final int INITIATORS = 1000;
  private static final int WARM_UP = 100;

  /**
   * What the target's native memory outside its JVM may grow by per initiator after the warm-up:
   * nothing is held per departed initiator, and this is the noise of a native heap over a minute
   * (looks spread over about +-3 MB even trimmed, with a rare 9 MB one: the medians of five looks
   * at each end are compared). With the control channel on the data worker (sm,self, as "shm" was
   * before the control worker) UCX keeps an endpoint per departed initiator, with its mapping of
   * the initiator's FIFO: 16-20 KiB each measured this way (23-40 KiB in plain RSS, which the JIT's
   * arenas make noisy). What freed it: the control channel on a UCX worker of its own, on tcp with
   * peer-failure handling, whose endpoints the target may close by force ({@code ControlWorker}).
   */
  private static final long OUTSIDE_JVM_BOUND_KIB_PER_INITIATOR = 6;

  /** The default shared-memory list: data on sm,self, control on a tcp worker of its own. */
  private static final String SHM = "shm";

  /** How often (in initiators) the target's memory is looked at after the warm-up. */
  private static final int LOOK_EVERY = 50;

  @Test
  void aSharedMemoryTargetHoldsNothingForInitiatorsThatClosed() throws Exception {
    try (ServingTarget target = ServingTarget.startTracked(SHM, false, 64);
        Arena arena = Arena.ofConfined()) {
      MemorySegment one = arena.allocate(8, 8);
      one.set(ValueLayout.JAVA_LONG, 0, 1);
      MemorySegment result = arena.allocate(8, 8);
      List<Long> outside = new ArrayList<>();
      long mappingsAfterWarmUp = 0;
      long filesAfterWarmUp = 0;
      long t0 = System.nanoTime();
      for (int i = 0; i <= INITIATORS; i++) {
        if (i >= WARM_UP && i % LOOK_EVERY == 0) {
          outside.add(target.residentOutsideJvmKib());
        }
        if (i == WARM_UP) { // after the first jcmd: the JVM's attach listener has its socket
          mappingsAfterWarmUp = sharedMemoryMappings(target.pid());
          filesAfterWarmUp = target.openFiles();
        }
        if (i == INITIATORS) {
          break;
        }
        // a domain of its own: its own UCX worker and instance, as a new initiator process has
        try (Initiator ini = new Initiator("ucx", Initiator.manual(SHM))) {
          long peer = ini.av.insert(target.address);
          assertEquals(
              0,
              ini.ep.fetchAtomic(
                  one,
                  1,
                  null,
                  result,
                  null,
                  peer,
                  0,
                  target.key,
                  FiDatatype.UINT64,
                  FiOp.SUM,
                  null));
          ini.awaitCompletion();
          assertEquals(i, result.get(ValueLayout.JAVA_LONG, 0));
          assertEquals("1", target.fact("ucx.initiators_served"));
          if (i == 0) {
            assertLanesSplit(ini.domain.describe());
          }
        }
        // the RELEASE is sent before the initiator closes; the target reads it in its progress
        awaitServed(target, "0");
        assertEquals("0", target.fact("ucx.initiator_endpoints"));
      }
      long millis = (System.nanoTime() - t0) / 1_000_000;
      assertEquals(
          INITIATORS, ByteBuffer.wrap(target.get(0, 8)).order(ByteOrder.LITTLE_ENDIAN).getLong());
      int n = outside.size();
      long growth = median(outside.subList(n - 5, n)) - median(outside.subList(0, 5));
      long mappings = sharedMemoryMappings(target.pid()) - mappingsAfterWarmUp;
      long files = target.openFiles() - filesAfterWarmUp;
      System.err.printf(
          "%d initiators came and went in %d ms; after %d, the target's memory outside its JVM"
              + " grew by %d KiB (%.1f KiB per initiator; every %d: %s), its UCX shared-memory"
              + " mappings by %d, its open files by %d; %s%n",
          INITIATORS,
          millis,
          WARM_UP,
          growth,
          growth / (double) (INITIATORS - WARM_UP),
          LOOK_EVERY,
          outside,
          mappings,
          files,
          target.fact("ucx.initiator_claims"));
      // exact: a departed initiator's endpoint kept by UCX held 3 mappings of its FIFO, and a
      // control endpoint kept would hold its tcp socket
      assertEquals(0, mappings, "UCX shared-memory mappings left for departed initiators");
      assertEquals(0, files, "files (sockets) left open for departed initiators");
      assertTrue(
          growth < OUTSIDE_JVM_BOUND_KIB_PER_INITIATOR * (INITIATORS - WARM_UP),
          "the target's memory outside its JVM grew by "
              + growth
              + " KiB over "
              + (INITIATORS - WARM_UP)
              + " initiators: "
              + outside);
    }
  }

  /**
   * The data endpoint is on shared memory only (its atomics on sysv/posix, nothing on tcp: the data
   * path is what it was), the control endpoint on tcp (the control worker's).
   */
  private static void assertLanesSplit(java.util.Map<String, String> facts) {
    String data = null;
    String control = null;
    for (var e : facts.entrySet()) {
      if (e.getKey().endsWith(".control_lanes") && !e.getValue().startsWith("none")) {
        control = e.getValue();
        data = facts.get(e.getKey().replace(".control_lanes", ".lanes"));
      }
    }
    assertTrue(control != null, "no peer with a control endpoint of its own: " + facts);
    assertTrue(control.contains("tcp/") && !control.contains("memory"), control);
    assertTrue(data.contains("amo") && !data.contains("tcp/"), data);
    // UCX 1.18 and later name the lane's segment size before its kinds ("seg N")
    assertTrue(
        data.matches(".*(sysv|posix)/memory\\S* md\\[\\d+\\] -> \\S+( seg \\d+)? amo.*"), data);
  }

  @Test
  void aSharedMemoryTargetLetsGoOfInitiatorsThatWereKilled() throws Exception {
    try (ServingTarget target = ServingTarget.start("shm", false, 64)) {
      List<Process> initiators = new ArrayList<>();
      try {
        for (int i = 0; i < 3; i++) {
          ProcessBuilder b =
              new ProcessBuilder(
                      JavaCommand.of(
                          List.of(),
                          InitiatorProcess.class,
                          "shm",
                          HexFormat.of().formatHex(target.address),
                          Long.toString(target.key)))
                  .redirectError(ProcessBuilder.Redirect.INHERIT);
          b.environment().put("UCX_LOG_FILE", "stderr");
          Process p = b.start();
          initiators.add(p);
          String line =
              new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))
                  .readLine();
          assertEquals("DONE", line);
        }
        assertEquals("3", target.fact("ucx.initiators_served"));
        for (Process p : initiators) {
          Killed.kill(p);
        }
        long killed = System.nanoTime();
        awaitServed(target, "0");
        long millis = (System.nanoTime() - killed) / 1_000_000;
        assertTrue(millis < 5_000, "the target let go after " + millis + " ms");
        assertEquals(3, ByteBuffer.wrap(target.get(0, 8)).order(ByteOrder.LITTLE_ENDIAN).getLong());
      } finally {
        for (Process p : initiators) {
          Killed.kill(p);
        }
      }
    }
  }

  private static long median(List<Long> looks) {
    List<Long> sorted = looks.stream().sorted().toList();
    return sorted.get(sorted.size() / 2);
  }

  /** How many UCX shared-memory segments (FIFOs, regions) a process has mapped. */
  private static long sharedMemoryMappings(long pid) throws java.io.IOException {
    return java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/" + pid + "/maps"))
        .stream()
        .filter(l -> l.contains("ucx_shm") || l.contains("SYSV"))
        .count();
  }

  /** Waits (5 s at most) until the target serves {@code count} initiators. */
  private static void awaitServed(ServingTarget target, String count) throws Exception {
    long deadline = System.nanoTime() + 5_000_000_000L;
    String served;
    while (!(served = target.fact("ucx.initiators_served")).equals(count)) {
      assertTrue(System.nanoTime() - deadline < 0, "the target still serves " + served);
      Thread.sleep(1);
    }
  }

  /** Killing a process this test started, and removing what UCX left of it in /dev/shm. */
  private static final class Killed {
    static void kill(Process p) throws Exception {
      if (!p.isAlive()) {
        return;
      }
      var leftovers = ServingTarget.shmFiles(p.pid());
      leftovers.removeAll(ServingTarget.shmFiles(ProcessHandle.current().pid()));
      p.destroyForcibly();
      assertTrue(p.waitFor(10, TimeUnit.SECONDS));
      for (String f : leftovers) {
        java.nio.file.Files.deleteIfExists(java.nio.file.Path.of(f));
      }
    }
  }
}
