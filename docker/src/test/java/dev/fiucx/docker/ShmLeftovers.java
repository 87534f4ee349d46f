package dev.fiucx.docker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * UCX's {@code /dev/shm/ucx_shm_posix_*} files that a killed container left behind: the containers
 * share the host's /dev/shm, and a UCX process killed at teardown can leave its file there. Only
 * files that appeared after {@link #snapshot()} and that no live process maps or holds open are
 * removed (a live process of another test may be creating one).
 */
final class ShmLeftovers {
  private static final Path SHM = Path.of("/dev/shm");
  private final Set<String> before;

  private ShmLeftovers(Set<String> before) {
    this.before = before;
  }

  static ShmLeftovers snapshot() throws IOException {
    return new ShmLeftovers(names());
  }

  /** Removes the new, unused UCX posix files; returns how many. */
  int remove() throws IOException {
    Set<String> inUse = inUseByAnyone();
    int removed = 0;
    for (String name : names()) {
      if (!before.contains(name) && name.startsWith("ucx_shm_posix_") && !inUse.contains(name)) {
        removed += Files.deleteIfExists(SHM.resolve(name)) ? 1 : 0;
      }
    }
    return removed;
  }

  private static Set<String> names() throws IOException {
    try (var s = Files.list(SHM)) {
      return new HashSet<>(s.map(p -> p.getFileName().toString()).toList());
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
          // gone meanwhile: it holds nothing any more
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
}
