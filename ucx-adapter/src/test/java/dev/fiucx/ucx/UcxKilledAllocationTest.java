package dev.fiucx.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.conformance.remote.JavaCommand;
import dev.fiucx.conformance.remote.ShmFiles;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A process killed (SIGKILL) while UCX allocates a big region for it: what does it leave in {@code
 * /dev/shm}? Over {@code sm,self} UCX allocates in SysV shared memory, removed with its last user:
 * nothing. Over {@code posix,self} UCX creates a {@code /dev/shm/ucx_shm_posix_*} file, writes it
 * whole to test that it can be backed, and unlinks it only then: a kill inside that window leaves
 * the file, and no live process maps it. The test removes such a file (as a launcher would) and
 * reports what it found.
 */
@RequiresUcx
class UcxKilledAllocationTest {
  private static final long SIZE = 256L << 20;

  @ParameterizedTest(name = "{0}, killed after {1} ms")
  @CsvSource({"'sm,self', 0, 0", "'sm,self', 40, 0", "'posix,self', 0, -1", "'posix,self', 40, -1"})
  void aKillMidAllocationLeavesNothingOnceCleanedUp(String tls, int delayMs, int expectedLeft)
      throws Exception {
    Set<String> before = ShmFiles.names();
    Process child =
        new ProcessBuilder(
                JavaCommand.of(List.of(), AllocatingProcess.class, tls, Long.toString(SIZE)))
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    List<String> leftBehind = new ArrayList<>();
    try {
      BufferedReader out =
          new BufferedReader(
              new InputStreamReader(child.getInputStream(), StandardCharsets.US_ASCII));
      assertEquals("ALLOCATING", out.readLine());
      Thread.sleep(delayMs);
      child.destroyForcibly(); // SIGKILL
      assertTrue(child.waitFor(5, java.util.concurrent.TimeUnit.SECONDS), "the child died");
      for (String name : ShmFiles.names()) {
        // other processes' files are small and mapped; ours would be as big as the allocation
        Path p = Path.of("/dev/shm", name);
        if (!before.contains(name) && name.startsWith(ShmFiles.UCX_POSIX) && Files.size(p) > 0) {
          leftBehind.add(name + " (" + Files.size(p) + " bytes)");
        }
      }
    } finally {
      child.destroyForcibly();
      child.waitFor();
      ShmFiles.removeOrphans(before);
    }
    System.out.println(tls + " killed after " + delayMs + " ms left: " + leftBehind);
    if (expectedLeft == 0) {
      assertEquals(List.of(), leftBehind, "SysV memory goes with its last user");
    }
    Set<String> inUse = ShmFiles.inUseByAnyone();
    for (String name : ShmFiles.names()) {
      assertTrue(
          before.contains(name) || inUse.contains(name) || !name.startsWith(ShmFiles.UCX_POSIX),
          "after cleanup: " + name);
    }
  }
}
