package dev.fiucx.ucx;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How many bytes this machine can back right now, the default limit of {@code allocate}: without
 * one, an absurd size over shared memory grew a {@code /dev/shm} file until the machine's memory
 * was full, never returned, and left the file behind when the process was killed. Memory is what
 * {@code /proc/meminfo} calls MemAvailable plus SwapFree; where UCX may allocate in shared memory
 * (its posix transport's files in {@code /dev/shm}) also no more than {@code /dev/shm}'s free
 * space.
 */
final class MachineMemory {
  /** What the machine can back, and from where the figure came. */
  record Backable(long bytes, String source) {}

  private static final Path MEMINFO = Path.of("/proc/meminfo");
  private static final Path DEV_SHM = Path.of("/dev/shm");

  private MachineMemory() {}

  /**
   * @param sharedMemory whether allocations may be files in {@code /dev/shm}
   * @param errors where a figure that cannot be read is counted (the limit is then the other one,
   *     or unlimited when neither can be read)
   */
  static Backable backable(boolean sharedMemory, UcxErrors errors) {
    long memory = Long.MAX_VALUE;
    String source = "unknown (neither /proc/meminfo nor /dev/shm readable)";
    try {
      memory = fromMeminfo(Files.readString(MEMINFO));
      source = "MemAvailable + SwapFree";
    } catch (IOException | RuntimeException e) {
      errors.caught("reading /proc/meminfo", e);
    }
    if (sharedMemory && Files.isDirectory(DEV_SHM)) {
      try {
        long shm = Files.getFileStore(DEV_SHM).getUsableSpace();
        if (shm < memory) {
          memory = shm;
          source = "free space of /dev/shm";
        }
      } catch (IOException | RuntimeException e) {
        errors.caught("reading /dev/shm's free space", e);
      }
    }
    return new Backable(memory, source);
  }

  /** MemAvailable + SwapFree of a {@code /proc/meminfo} text, in bytes. */
  static long fromMeminfo(String meminfo) {
    long available = -1;
    long swapFree = 0;
    for (String line : meminfo.split("\n")) {
      String[] f = line.trim().split("\\s+");
      if (f.length < 2) {
        continue;
      }
      long kib = Long.parseLong(f[1]);
      switch (f[0]) {
        case "MemAvailable:" -> available = kib;
        case "SwapFree:" -> swapFree = kib;
        default -> {}
      }
    }
    if (available < 0) {
      throw new IllegalArgumentException("no MemAvailable in /proc/meminfo");
    }
    return (available + swapFree) * 1024;
  }
}
