package dev.fiucx.conformance.remote;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * UCX's posix shared-memory files in /dev/shm, for tests that start and kill processes: a UCX
 * process that dies without cleaning up leaves its {@code ucx_shm_posix_*} files there. A live
 * process may be creating one right now (UCX reaches a new file through its descriptor before it
 * maps it), so a file counts as left behind only when it appeared after a snapshot of the names and
 * no live process maps it or holds it open, as every /proc/PID/maps and /proc/PID/fd this process
 * may read says.
 */
public final class ShmFiles {
  private static final Path SHM = Path.of("/dev/shm");

  /** The prefix of UCX's posix shared-memory files. */
  public static final String UCX_POSIX = "ucx_shm_posix_";

  private ShmFiles() {}

  /**
   * {@return the names of every file in /dev/shm now}
   *
   * @throws IOException when /dev/shm cannot be listed
   */
  public static Set<String> names() throws IOException {
    try (var s = Files.list(SHM)) {
      return new HashSet<>(s.map(p -> p.getFileName().toString()).toList());
    }
  }

  /**
   * {@return the names of UCX's posix shared-memory files in /dev/shm now}
   *
   * @throws IOException when /dev/shm cannot be listed
   */
  public static Set<String> ucxPosixNames() throws IOException {
    Set<String> names = names();
    names.removeIf(n -> !n.startsWith(UCX_POSIX));
    return names;
  }

  /**
   * {@return the /dev/shm names that a live process maps or holds open} A process that ends while
   * it is read, or whose files this process may not read, holds nothing here.
   *
   * @throws IOException when /proc cannot be listed
   */
  public static Set<String> inUseByAnyone() throws IOException {
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

  /**
   * {@return UCX's posix files that are not in {@code before} and that no live process maps or
   * holds open: what dead processes left since {@code before} was taken}
   *
   * @param before the names of /dev/shm ({@link #names} or {@link #ucxPosixNames}) taken earlier
   * @throws IOException when /dev/shm or /proc cannot be listed
   */
  public static Set<String> orphans(Set<String> before) throws IOException {
    Set<String> orphans = ucxPosixNames();
    orphans.removeAll(before);
    orphans.removeAll(inUseByAnyone());
    return orphans;
  }

  /**
   * Removes the {@link #orphans} since {@code before}, as a launcher would after killing its
   * children.
   *
   * @param before the names of /dev/shm ({@link #names} or {@link #ucxPosixNames}) taken earlier
   * @return the orphans found, now removed
   * @throws IOException when /dev/shm or /proc cannot be listed, or a file cannot be removed
   */
  public static Set<String> removeOrphans(Set<String> before) throws IOException {
    Set<String> orphans = orphans(before);
    for (String name : orphans) {
      Files.deleteIfExists(SHM.resolve(name));
    }
    return orphans;
  }
}
