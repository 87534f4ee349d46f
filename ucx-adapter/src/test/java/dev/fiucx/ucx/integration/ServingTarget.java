package dev.fiucx.ucx.integration;

import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import dev.fiucx.FiFlags;
import dev.fiucx.MemoryRegion;
import dev.fiucx.conformance.remote.JavaCommand;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A target domain in a child JVM (automatic progress) that the test can kill and look into: its
 * pid, its domain's facts ({@code describe()}), its resident memory, and the shared-memory files it
 * mapped, so that a test that kills it removes what UCX leaves in /dev/shm.
 *
 * <p>Child protocol: {@code READY addressHex key}, then {@code GET offset n -> DATA hex}, {@code
 * FACT name -> FACT value}, {@code QUIT}. Arguments: {@code transport allocate|register length}.
 */
final class ServingTarget implements AutoCloseable {
  final Process process;
  final byte[] address;
  final long key;
  private final BufferedReader in;
  private final PrintStream out;

  private ServingTarget(String transport, boolean register, long length) throws IOException {
    List<String> command =
        new ArrayList<>(
            JavaCommand.of(
                List.of(),
                ServingTarget.class,
                transport,
                register ? "register" : "allocate",
                Long.toString(length)));
    // a heap of fixed size, touched at start, so that resident memory measures what the target
    // holds natively and not how far the garbage collector let the heap grow
    command.addAll(1, List.of("-Xms64m", "-Xmx64m", "-XX:+AlwaysPreTouch"));
    ProcessBuilder b = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
    b.environment().put("UCX_LOG_FILE", "stderr");
    process = b.start();
    in =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    out = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
    String[] ready = expect("READY").split(" ");
    address = HexFormat.of().parseHex(ready[1]);
    key = Long.parseLong(ready[2]);
  }

  static ServingTarget start(String transport, boolean register, long length) {
    try {
      return new ServingTarget(transport, register, length);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  long pid() {
    return process.pid();
  }

  byte[] get(long offset, int n) {
    out.println("GET " + offset + " " + n);
    return HexFormat.of().parseHex(expect("DATA").substring(5));
  }

  /** One of the target domain's {@code describe()} facts. */
  String fact(String name) {
    out.println("FACT " + name);
    return expect("FACT").substring(5);
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
   * /dev/shm/ucx_shm_posix_* files it mapped that this process does not map (UCX leaves a killed
   * process's own segments behind).
   */
  void kill() throws Exception {
    Set<String> leftovers = shmFiles(pid());
    leftovers.removeAll(shmFiles(ProcessHandle.current().pid()));
    process.destroyForcibly();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      throw new AssertionError("the target did not die");
    }
    for (String f : leftovers) {
      Files.deleteIfExists(Path.of(f));
    }
  }

  /** The ucx_shm_posix files a process maps. */
  static Set<String> shmFiles(long pid) {
    Set<String> files = new HashSet<>();
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "maps"))) {
        int at = line.indexOf("/dev/shm/ucx_shm_posix_");
        if (at >= 0) {
          files.add(line.substring(at).replace(" (deleted)", "").trim());
        }
      }
    } catch (IOException e) {
      // gone already
    }
    return files;
  }

  private String expect(String word) {
    try {
      String line = in.readLine();
      if (line == null || !line.startsWith(word)) {
        throw new AssertionError("target said '" + line + "' instead of " + word);
      }
      return line;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() throws Exception {
    if (process.isAlive()) {
      out.println("QUIT");
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        kill();
      }
    }
  }

  public static void main(String[] args) throws Exception {
    String transport = args[0];
    boolean register = args[1].equals("register");
    long length = Long.parseLong(args[2]);
    long access = FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE;
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    try (Arena arena = Arena.ofShared();
        Domain domain =
            Fabric.openDomain(
                "ucx", new DomainAttr(transport, DomainAttr.Progress.AUTO, false, Map.of()))) {
      MemoryRegion mr =
          register
              ? domain.registerMemory(arena.allocate(length, 16), access)
              : domain.allocateMemory(length, access);
      out.println(
          "READY " + HexFormat.of().formatHex(domain.openEndpoint().name()) + " " + mr.key());
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      String line;
      while ((line = in.readLine()) != null) {
        String[] w = line.trim().split(" ");
        switch (w[0]) {
          case "GET" ->
              out.println(
                  "DATA "
                      + HexFormat.of()
                          .formatHex(
                              mr.segment()
                                  .asSlice(Long.parseLong(w[1]), Long.parseLong(w[2]))
                                  .toArray(ValueLayout.JAVA_BYTE)));
          case "FACT" -> out.println("FACT " + domain.describe().get(w[1]));
          case "QUIT" -> {
            return;
          }
          default -> out.println("ERR " + w[0]);
        }
      }
    }
  }
}
