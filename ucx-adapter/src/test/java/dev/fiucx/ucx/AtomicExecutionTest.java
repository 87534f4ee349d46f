package dev.fiucx.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Who executes UCX's atomics, from the "atomics:" line of ucp_worker_print_info as UCX prints it:
 * shared memory here (UCX 1.13.1), none over tcp and over rxe (seen in the Soft-RoCE VM), a
 * ConnectX's rc_mlx5 lane (the form UCX prints for any transport with device atomics).
 */
class AtomicExecutionTest {
  private static final String SHM = "0:self/memory0, 1:sysv/memory, 2:posix/memory";
  private static final String CONNECTX = "0:self/memory0, 4:rc_mlx5/mlx5_0:1";

  @Test
  void theWorkersLanesSayWhoExecutes() {
    assertEquals(AtomicExecution.Kind.CPU, AtomicExecution.of(SHM).kind());
    assertEquals(AtomicExecution.Kind.SOFTWARE, AtomicExecution.of("").kind());
    AtomicExecution nic = AtomicExecution.of(CONNECTX);
    assertEquals(AtomicExecution.Kind.DEVICE, nic.kind());
    assertEquals(List.of("4:rc_mlx5/mlx5_0:1"), nic.deviceLanes());
    assertTrue(nic.describe().contains("4:rc_mlx5/mlx5_0:1"), nic.describe());
    assertEquals("rc_mlx5", AtomicExecution.transport("4:rc_mlx5/mlx5_0:1"));
  }

  @Test
  void deviceAtomicsMeetOnlyDeviceAtomics() {
    AtomicExecution cpu = AtomicExecution.of(SHM);
    AtomicExecution software = AtomicExecution.of("");
    AtomicExecution nic = AtomicExecution.of(CONNECTX);
    assertNull(cpu.mixingRefusal(false));
    assertNull(software.mixingRefusal(false));
    assertNull(nic.mixingRefusal(true));
    String cpuOnNic = cpu.mixingRefusal(true);
    assertNotNull(cpuOnNic);
    assertTrue(cpuOnNic.contains("CPU atomics"), cpuOnNic);
    assertTrue(software.mixingRefusal(true).contains("software atomics"));
    String nicOnCpu = nic.mixingRefusal(false);
    assertNotNull(nicOnCpu);
    assertTrue(nicOnCpu.contains("mlx5_0"), nicOnCpu);
  }

  @Test
  void aResolveReplyCarriesTheTargetsDeviceAtomics() {
    for (boolean device : new boolean[] {false, true}) {
      var sent =
          new ControlMessage.ResolveReply(7, 3, 11, true, device, 4096, 64, 3, new byte[] {1, 2});
      var got =
          (ControlMessage.ResolveReply)
              ControlMessage.decode(ControlMessage.AM_RESOLVE_REPLY, sent.encode());
      assertEquals(device, got.deviceAtomics());
      assertTrue(got.found());
      assertEquals(4096, got.base());
    }
    var notFound = new ControlMessage.ResolveReply(7, 3, 11, false, false, 0, 0, 0, new byte[0]);
    var got =
        (ControlMessage.ResolveReply)
            ControlMessage.decode(ControlMessage.AM_RESOLVE_REPLY, notFound.encode());
    assertEquals(false, got.found());
    assertEquals(false, got.deviceAtomics());
  }
}
