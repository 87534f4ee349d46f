package dev.fiucx.ucx;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.MemoryRegion;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regions own their memory's lifetime: after close, allocated memory is unreachable (its segment
 * and slices of it throw instead of touching unmapped memory), registered memory is the user's
 * again. Allocations beyond the limit are refused at once and leave nothing in /dev/shm.
 */
@RequiresUcx
class UcxRegionLifetimeTest {
  private static Domain open(Map<String, String> options) {
    return new UcxProvider()
        .openDomain(new DomainAttr("shm", DomainAttr.Progress.MANUAL, false, options));
  }

  @Test
  void anAllocatedRegionsSegmentAndItsSlicesThrowAfterClose() {
    try (Domain domain = open(Map.of())) {
      MemoryRegion mr = domain.allocateMemory(64, Memory.RW);
      MemorySegment whole = mr.segment();
      MemorySegment slice = whole.asSlice(8, 8);
      slice.set(JAVA_LONG, 0, 42);
      assertEquals(42, whole.get(JAVA_LONG, 8));
      mr.close();
      assertThrows(IllegalStateException.class, mr::segment);
      assertThrows(IllegalStateException.class, mr::baseAddress);
      assertFalse(whole.scope().isAlive());
      assertThrows(IllegalStateException.class, () -> whole.get(JAVA_LONG, 8));
      assertThrows(IllegalStateException.class, () -> slice.set(JAVA_LONG, 0, 1));
      mr.close(); // twice is harmless
    }
  }

  @Test
  void aRegisteredSegmentStaysTheUsersAfterClose() {
    try (Domain domain = open(Map.of());
        Arena arena = Arena.ofConfined()) {
      MemorySegment mine = arena.allocate(16, 8);
      MemoryRegion mr = domain.registerMemory(mine, Memory.RW);
      mr.close();
      assertThrows(IllegalStateException.class, mr::segment);
      mine.set(JAVA_LONG, 0, 7);
      assertEquals(7, mine.get(JAVA_LONG, 0));
    }
  }

  @Test
  void theAllocationLimitOptionRefusesLargerRegionsWithEnomem() {
    try (Domain domain = open(Map.of(dev.fiucx.DomainAttr.ALLOC_LIMIT_OPTION, "1m"))) {
      domain.allocateMemory(1 << 20, Memory.RW).close();
      FiException e =
          assertThrows(FiException.class, () -> domain.allocateMemory((1 << 20) + 1, Memory.RW));
      assertEquals(FiErrno.ENOMEM, e.errno());
      assertTrue(
          e.getMessage().contains("the limit is 1048576 bytes (alloc_limit"), e.getMessage());
      assertTrue(domain.describe().get("ucx.alloc_limit").startsWith("1048576 bytes"));
    }
    FiException bad =
        assertThrows(
            FiException.class, () -> open(Map.of(dev.fiucx.DomainAttr.ALLOC_LIMIT_OPTION, "lots")));
    assertEquals(FiErrno.EINVAL, bad.errno());
    FiException tooSmall =
        assertThrows(
            FiException.class, () -> open(Map.of(dev.fiucx.DomainAttr.ALLOC_LIMIT_OPTION, "1k")));
    assertEquals(FiErrno.ENOMEM, tooSmall.errno(), "the domain's own lock region is refused too");
  }

  @Test
  void anAbsurdSizeIsRefusedAtOnceAndLeavesNothingInDevShm() throws IOException {
    try (Domain domain = open(Map.of())) {
      var before = ourShmFiles();
      var namesBefore = shmNames();
      long start = System.nanoTime();
      for (long size : new long[] {Long.MAX_VALUE / 2, 1L << 50, Long.MAX_VALUE - 7}) {
        FiException e =
            assertThrows(FiException.class, () -> domain.allocateMemory(size, Memory.RW));
        assertEquals(FiErrno.ENOMEM, e.errno(), e.getMessage());
        assertTrue(e.getMessage().contains("what this machine can back"), e.getMessage());
      }
      assertTrue(System.nanoTime() - start < 5_000_000_000L, "refused within 5 s");
      assertEquals(before, ourShmFiles(), "files this process maps in /dev/shm");
      var appeared = shmNames();
      appeared.removeAll(namesBefore);
      for (String name : appeared) { // other processes may create files meanwhile: none is big
        assertTrue(Files.size(Path.of("/dev/shm", name)) < 1L << 30, name);
      }
    }
  }

  @Test
  void machineMemoryIsMemAvailablePlusSwapFree() {
    String meminfo = "MemTotal: 100 kB\nMemFree: 10 kB\nMemAvailable: 40 kB\nSwapFree: 2 kB\n";
    assertEquals(42 * 1024, MachineMemory.fromMeminfo(meminfo));
    assertThrows(IllegalArgumentException.class, () -> MachineMemory.fromMeminfo("MemFree: 1 kB"));
    long here = MachineMemory.backable(true, new UcxErrors()).bytes();
    assertTrue(here > 0 && here < Long.MAX_VALUE, "read from this machine: " + here);
  }

  /** The /dev/shm files this process maps. */
  private static java.util.Set<String> ourShmFiles() throws IOException {
    java.util.Set<String> files = new java.util.TreeSet<>();
    for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
      int at = line.indexOf("/dev/shm/");
      if (at >= 0) {
        files.add(line.substring(at));
      }
    }
    return files;
  }

  private static java.util.Set<String> shmNames() throws IOException {
    try (var s = Files.list(Path.of("/dev/shm"))) {
      return new java.util.HashSet<>(s.map(p -> p.getFileName().toString()).toList());
    }
  }
}
