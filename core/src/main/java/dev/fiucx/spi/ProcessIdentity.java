package dev.fiucx.spi;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;

/**
 * Which process a domain lives in, as fiucx's address carries it: the pid, the process's start time
 * (clock ticks after boot, field 22 of {@code /proc/<pid>/stat}), the boot id and the inode of its
 * pid namespace. A pid alone is reused; with the start time it names one process, and the boot id
 * and namespace tell whether this process can look it up in its own {@code /proc} at all.
 *
 * <p>Why fiucx needs it: UCX 1.13 never reports a dead peer over shared memory, so a transport that
 * can see its peer's process checks on it ({@link #alive}) instead.
 *
 * @param pid the process id, in its pid namespace
 * @param startTicks its start time, clock ticks after boot
 * @param bootIdHigh the boot id's first 8 bytes
 * @param bootIdLow the boot id's last 8 bytes
 * @param pidNamespace the inode of its pid namespace
 */
public record ProcessIdentity(
    int pid, long startTicks, long bootIdHigh, long bootIdLow, long pidNamespace) {

  /** An identity that names no process (not on Linux, or /proc unreadable): never checked. */
  public static final ProcessIdentity UNKNOWN = new ProcessIdentity(0, 0, 0, 0, 0);

  private static final ProcessIdentity SELF = readSelf();

  /** {@return this process} */
  public static ProcessIdentity self() {
    return SELF;
  }

  /** {@return whether this names a process at all} */
  public boolean known() {
    return pid > 0 && pidNamespace != 0 && (bootIdHigh | bootIdLow) != 0;
  }

  /**
   * Whether this process can decide from its own {@code /proc} whether {@code this} is alive: same
   * boot of the same host, same pid namespace.
   *
   * @return whether {@link #alive} can decide
   */
  public boolean observable() {
    return onThisHost() && pidNamespace == SELF.pidNamespace;
  }

  /**
   * Whether this names a process on this same host (same boot) that runs in another pid namespace:
   * one whose pid means nothing in this process's {@code /proc} (a container with its own pids).
   *
   * @return whether it is such a process
   */
  public boolean inAnotherPidNamespaceOfThisHost() {
    return onThisHost() && pidNamespace != SELF.pidNamespace;
  }

  /** Whether both this and this process are known and share the boot (host) id. */
  private boolean onThisHost() {
    ProcessIdentity me = SELF;
    return known() && me.known() && bootIdHigh == me.bootIdHigh && bootIdLow == me.bootIdLow;
  }

  /** include/linux/sched.h: the task is getting shut down. */
  private static final long PF_EXITING = 0x4;

  /**
   * Whether the process still runs: its pid exists with the same start time, and it is neither
   * exiting nor a zombie. True when it cannot be decided ({@link #observable} false, or /proc
   * unreadable for another reason than the pid being gone), so a peer is never declared dead by
   * mistake. Reads /proc: for the progress path's periodic check and failed operations, not for
   * posting.
   *
   * @return false only when it is known to be gone
   */
  public boolean alive() {
    if (!observable()) {
      return true;
    }
    String stat;
    try {
      stat = Files.readString(Path.of("/proc", Integer.toString(pid), "stat"));
    } catch (java.nio.file.NoSuchFileException gone) {
      return false;
    } catch (IOException | RuntimeException e) {
      return true;
    }
    int close = stat.lastIndexOf(')');
    if (close < 0) {
      return true;
    }
    String[] f = stat.substring(close + 2).split(" ");
    // f[0] is field 3 (state), so field 22 (starttime) is f[19]
    if (f.length < 20) {
      return true;
    }
    char state = f[0].isEmpty() ? '?' : f[0].charAt(0);
    if (state == 'Z' || state == 'X' || state == 'x') {
      return false; // exited; its parent has not reaped it yet
    }
    try {
      // field 9, the kernel's task flags: PF_EXITING is set once the process started to exit,
      // before its memory goes (a read of it then fails) and long before it is a zombie
      if ((Long.parseLong(f[6]) & PF_EXITING) != 0) {
        return false;
      }
    } catch (NumberFormatException e) {
      // an unknown format: the start time below still decides
    }
    try {
      return Long.parseLong(f[19]) == startTicks;
    } catch (NumberFormatException e) {
      return true;
    }
  }

  @Override
  public String toString() {
    return known() ? "pid " + pid + " (start " + startTicks + ")" : "unknown process";
  }

  private static ProcessIdentity readSelf() {
    try {
      int pid = (int) ProcessHandle.current().pid();
      String stat = Files.readString(Path.of("/proc/self/stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      long start = Long.parseLong(f[19]);
      byte[] boot =
          HexFormat.of()
              .parseHex(
                  Files.readString(
                          Path.of("/proc/sys/kernel/random/boot_id"), StandardCharsets.US_ASCII)
                      .trim()
                      .replace("-", ""));
      long high = 0;
      long low = 0;
      for (int i = 0; i < 8; i++) {
        high = (high << 8) | (boot[i] & 0xFF);
        low = (low << 8) | (boot[8 + i] & 0xFF);
      }
      // the link reads "pid:[4026531836]"
      String ns = Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString();
      long inode = Long.parseLong(ns.substring(ns.indexOf('[') + 1, ns.indexOf(']')));
      return new ProcessIdentity(pid, start, high, low, inode);
    } catch (IOException | RuntimeException e) {
      return UNKNOWN; // not Linux, or /proc hidden: peers fall back to the transport's detection
    }
  }
}
