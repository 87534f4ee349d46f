package dev.fiucx.ucx.integration;

import dev.fiucx.conformance.remote.RemoteTarget;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A target process ({@link RemoteTarget}: a serve in test mode, automatic progress) that the test
 * can kill and look into: its pid, its domain's facts ({@code describe()}), its resident memory,
 * and the shared-memory files it mapped, so that a test that kills it removes what UCX leaves in
 * /dev/shm. Its JVM has a heap of fixed size, touched at start, so that resident memory measures
 * what the target holds natively and not how far the garbage collector let the heap grow.
 */
final class ServingTarget implements AutoCloseable {
  /** Runs a command in a pid namespace of its own (pid 1 there), killed with its parent. */
  static final List<String> OWN_PID_NAMESPACE =
      List.of("unshare", "--pid", "--fork", "--kill-child", "--mount-proc");

  final ProcessHandle process;
  final byte[] address;
  final long key;
  private final RemoteTarget target;

  private ServingTarget(RemoteTarget target, boolean prefixed) {
    this.target = target;
    ProcessHandle started = ProcessHandle.of(target.pid()).orElseThrow();
    // under a prefix the JVM is the prefix's child
    this.process = prefixed ? started.children().findFirst().orElseThrow() : started;
    this.address = target.address();
    this.key = target.key();
  }

  static ServingTarget start(String transport, boolean register, long length) {
    return start(transport, register, length, List.of());
  }

  /**
   * A target run under {@code prefix} (e.g. {@link #OWN_PID_NAMESPACE}); {@link #pid} is then its
   * JVM's, as this process sees it.
   */
  static ServingTarget start(String transport, boolean register, long length, List<String> prefix) {
    return start(transport, register, length, prefix, List.of());
  }

  /**
   * A target whose JVM tracks its own native memory ({@code -XX:NativeMemoryTracking=summary}), so
   * that {@link #residentOutsideJvmKib} can tell what UCX and the C library hold from what the JIT
   * compiler's arenas and code cache happen to hold (megabytes up and down over a minute).
   */
  static ServingTarget startTracked(String transport, boolean register, long length) {
    return start(
        transport, register, length, List.of(), List.of("-XX:NativeMemoryTracking=summary"));
  }

  private static ServingTarget start(
      String transport,
      boolean register,
      long length,
      List<String> prefix,
      List<String> moreJvmOptions) {
    List<String> jvm =
        new java.util.ArrayList<>(List.of("-Xms64m", "-Xmx64m", "-XX:+AlwaysPreTouch"));
    jvm.addAll(moreJvmOptions);
    return new ServingTarget(
        new RemoteTarget("ucx", transport, length, register, false, prefix, jvm),
        !prefix.isEmpty());
  }

  /** Whether this machine can start a process in a pid namespace of its own (root, util-linux). */
  static boolean pidNamespacesAvailable() {
    List<String> probe = new ArrayList<>(OWN_PID_NAMESPACE);
    probe.add("true");
    try {
      Process p = new ProcessBuilder(probe).redirectErrorStream(true).start();
      return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }

  /** The target JVM's pid, as this process sees it. */
  long pid() {
    return process.pid();
  }

  byte[] get(long offset, int n) {
    return target.get(offset, n);
  }

  /** One of the target domain's {@code describe()} facts. */
  String fact(String name) {
    return target.fact(name);
  }

  /** The target's resident memory (VmRSS of /proc/pid/status), in KiB. */
  long residentKib() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid()), "status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    throw new IllegalStateException("no VmRSS for " + pid());
  }

  /**
   * The target's resident memory less what its JVM says it committed (jcmd VM.native_memory), in
   * KiB, after the C library gave back its free memory (jcmd System.trim_native_heap): what UCX and
   * other native code hold. Needs {@link #startTracked}.
   */
  long residentOutsideJvmKib() throws Exception {
    jcmd("System.trim_native_heap");
    long rss = residentKib();
    String summary = jcmd("VM.native_memory", "summary");
    var m =
        java.util.regex.Pattern.compile("Total: reserved=\\d+KB, committed=(\\d+)KB")
            .matcher(summary);
    if (!m.find()) {
      throw new AssertionError("no native memory summary: " + summary);
    }
    return rss - Long.parseLong(m.group(1));
  }

  /** How many file descriptors the target has open. */
  long openFiles() throws IOException {
    try (var fds = Files.list(Path.of("/proc", Long.toString(pid()), "fd"))) {
      return fds.count();
    }
  }

  private String jcmd(String... command) throws Exception {
    List<String> cmd = new java.util.ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString());
    cmd.add(Long.toString(pid()));
    cmd.addAll(List.of(command));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out =
        new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new AssertionError(String.join(" ", cmd) + ": " + out);
    }
    return out;
  }

  /** Freezes the target (SIGSTOP) and waits until every thread of it stopped. */
  void freeze() throws Exception {
    assertSignalled(new ProcessBuilder("kill", "-STOP", Long.toString(pid())).start().waitFor());
    long deadline = System.nanoTime() + 5_000_000_000L;
    Path tasks = Path.of("/proc", Long.toString(pid()), "task");
    while (true) {
      boolean all;
      try (var threads = Files.list(tasks)) {
        all =
            threads.allMatch(
                t -> {
                  try {
                    String stat = Files.readString(t.resolve("stat"));
                    char state = stat.charAt(stat.lastIndexOf(')') + 2);
                    return state == 'T' || state == 't';
                  } catch (IOException e) {
                    return true;
                  }
                });
      }
      if (all) {
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("the target did not stop");
      }
      Thread.sleep(1);
    }
  }

  private static void assertSignalled(int exit) {
    if (exit != 0) {
      throw new AssertionError("kill exited " + exit);
    }
  }

  /**
   * Kills the target (SIGKILL) as a crash would, waits for its end and removes the
   * /dev/shm/ucx_shm_posix_* files it mapped that this process does not map.
   */
  void kill() {
    target.kill();
  }

  /** The ucx_shm_posix files a process maps. */
  static Set<String> shmFiles(long pid) {
    return RemoteTarget.shmFiles(pid);
  }

  @Override
  public void close() {
    target.close();
  }
}
