package dev.fiucx.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.conformance.remote.JavaCommand;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
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
    Set<String> before = shmNames();
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
      for (String name : shmNames()) {
        // other processes' files are small and mapped; ours would be as big as the allocation
        Path p = Path.of("/dev/shm", name);
        if (!before.contains(name) && name.startsWith("ucx_shm_posix_") && Files.size(p) > 0) {
          leftBehind.add(name + " (" + Files.size(p) + " bytes)");
        }
      }
    } finally {
      child.destroyForcibly();
      child.waitFor();
      removeLeftovers(before);
    }
    System.out.println(tls + " killed after " + delayMs + " ms left: " + leftBehind);
    if (expectedLeft == 0) {
      assertEquals(List.of(), leftBehind, "SysV memory goes with its last user");
    }
    Set<String> inUse = inUseByAnyone();
    for (String name : shmNames()) {
      assertTrue(
          before.contains(name) || inUse.contains(name) || !name.startsWith("ucx_shm_posix_"),
          "after cleanup: " + name);
    }
  }

  /**
   * Removes the posix files that appeared during the test and that no live process maps or holds
   * open: a dead process's. (A live process may still be creating one; UCX reaches those through
   * its descriptor, /proc/PID/fd, so they are left alone.)
   */
  private static void removeLeftovers(Set<String> before) throws IOException {
    Set<String> inUse = inUseByAnyone();
    for (String name : shmNames()) {
      if (!before.contains(name) && name.startsWith("ucx_shm_posix_") && !inUse.contains(name)) {
        Files.deleteIfExists(Path.of("/dev/shm", name));
      }
    }
  }

  /** The /dev/shm names any live process maps or holds open. */
  private static Set<String> inUseByAnyone() throws IOException {
    Set<String> names = new HashSet<>();
    try (var procs = Files.list(Path.of("/proc"))) {
      for (Path proc : procs.toList()) {
        if (!proc.getFileName().toString().chars().allMatch(Character::isDigit)) {
          continue;
        }
        try {
          for (String line : Files.readAllLines(proc.resolve("maps"))) {
            addShmName(names, line);
          }
          try (var fds = Files.list(proc.resolve("fd"))) {
            for (Path fd : fds.toList()) {
              addShmName(names, Files.readSymbolicLink(fd).toString());
            }
          }
        } catch (IOException | RuntimeException e) {
          // gone meanwhile, or not ours to read: nothing it holds is ours to remove
        }
      }
    }
    return names;
  }

  private static void addShmName(Set<String> names, String text) {
    int at = text.indexOf("/dev/shm/");
    if (at >= 0) {
      names.add(text.substring(at + "/dev/shm/".length()).replace(" (deleted)", "").trim());
    }
  }

  private static Set<String> shmNames() throws IOException {
    try (var s = Files.list(Path.of("/dev/shm"))) {
      return new HashSet<>(s.map(p -> p.getFileName().toString()).toList());
    }
  }
}
