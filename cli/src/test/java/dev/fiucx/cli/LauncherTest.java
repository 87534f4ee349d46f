package dev.fiucx.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.Fabric;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./fiucx} launcher in a controlled environment: a minimal PATH, no JAVA_HOME, a made-up
 * os-release, and stand-ins for the tools it must or must not call. Stand-ins of the JDK, Maven,
 * apt-get and dpkg record each call, so a test sees that --help and --version touched none of them.
 */
class LauncherTest {
  private static final Path LAUNCHER = findLauncher();

  @TempDir Path dir;
  private Path bin;
  private Path calls;

  private record Run(int exit, String out, String err) {}

  private static Path findLauncher() {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.isRegularFile(d.resolve("fiucx")) && Files.isRegularFile(d.resolve("pom.xml"))) {
        return d.resolve("fiucx");
      }
    }
    throw new IllegalStateException("no ./fiucx above " + Path.of("").toAbsolutePath());
  }

  @BeforeEach
  void standIns() throws IOException {
    bin = Files.createDirectories(dir.resolve("bin"));
    calls = dir.resolve("calls");
    for (String tool : List.of("java", "javac", "mvn", "apt-get", "dpkg", "dpkg-query", "sudo")) {
      script(bin.resolve(tool), "echo \"" + tool + " $*\" >> '" + calls + "'\nexit 97");
    }
  }

  private static void script(Path file, String body) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, "#!/bin/sh\n" + body + "\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  /** An ldconfig whose cache holds no libucp, as on a machine without UCX. */
  private void noLibucpInTheCache() throws IOException {
    script(bin.resolve("ldconfig"), "echo \"0 libs found in cache \\`/etc/ld.so.cache'\"");
  }

  private Path osRelease(String text) throws IOException {
    return Files.writeString(dir.resolve("os-release"), text);
  }

  private Run run(Map<String, String> env, String... args) throws Exception {
    ProcessBuilder b =
        new ProcessBuilder(Stream.concat(Stream.of(LAUNCHER.toString()), Stream.of(args)).toList());
    b.environment().clear();
    b.environment().put("PATH", bin + ":/usr/bin:/bin");
    b.environment().putAll(env);
    Process p = b.start();
    p.getOutputStream().close();
    CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
    String out = read(p.getInputStream());
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the launcher still runs after 60 s");
    return new Run(p.exitValue(), out, err.join());
  }

  private static String read(java.io.InputStream in) {
    try (in) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private String called() throws IOException {
    return Files.exists(calls) ? Files.readString(calls) : "";
  }

  @Test
  void helpListsTheCommandsWithNothingInstalled() throws Exception {
    Run r = run(Map.of(), "--help");
    assertEquals(0, r.exit(), r.err());
    List<String> lines = r.out().lines().toList();
    assertEquals(
        "usage: ./fiucx COMMAND [OPTIONS]      (./fiucx COMMAND --help: the command's options)",
        lines.getFirst());
    assertTrue(
        lines.contains(
            "  demo                                   the main job: the whole tour on one machine"),
        r.out());
    assertTrue(
        lines.contains(
            "  test                                   the whole test suite (mvn verify), then the"
                + " UCX-facing"),
        r.out());
    for (String command :
        List.of("info", "replay", "conformance", "bench", "serve", "jmh", "soak", "--version")) {
      assertTrue(lines.stream().anyMatch(l -> l.startsWith("  " + command + " ")), command);
    }
    assertEquals("", r.err());
    assertEquals("", called(), "--help needs no JDK, Maven or apt-get");
    assertEquals(r, run(Map.of(), "-h"));
  }

  @Test
  void versionNamesTheLibucpAndTheUcxItWouldUse() throws Exception {
    Path prefix = dir.resolve("ucx");
    Files.createDirectories(prefix.resolve("lib"));
    Files.writeString(prefix.resolve("lib/libucp.so.0"), "");
    // 1.14 and later print the loaded library's version this way
    script(
        prefix.resolve("bin/ucx_info"),
        "[ \"$1\" = -v ] || exit 1\necho '# Library version: 1.19.0'\n"
            + "echo '# API headers version: 1.19.0'");
    Run r = run(Map.of("FIUCX_UCX_LIB", prefix.resolve("lib").toString()), "--version");
    assertEquals(0, r.exit(), r.err());
    assertEquals(
        "fiucx "
            + Fabric.version()
            + "\nlibucp "
            + prefix.resolve("lib/libucp.so.0")
            + " (UCX 1.19.0)\n",
        r.out());
    assertEquals("", r.err());
    assertEquals("", called(), "--version needs no JDK, Maven or apt-get");

    // the library alone, named as a file: no ucx_info of its own, so no version
    Path alone = Files.createDirectories(dir.resolve("alone"));
    Files.writeString(alone.resolve("libucp.so.0"), "");
    Run plain = run(Map.of("FIUCX_UCX_LIB", alone.resolve("libucp.so.0").toString()), "-V");
    assertEquals(0, plain.exit(), plain.err());
    assertEquals(
        "fiucx " + Fabric.version() + "\nlibucp " + alone.resolve("libucp.so.0") + "\n",
        plain.out());

    noLibucpInTheCache();
    Run none = run(Map.of(), "--version");
    assertEquals(0, none.exit(), none.err());
    assertEquals("fiucx " + Fabric.version() + "\nlibucp not found\n", none.out());
  }

  @Test
  void elsewhereWithoutUcxSaysWhatToInstallInOneLine() throws Exception {
    noLibucpInTheCache();
    Path fedora = osRelease("NAME=\"Fedora Linux\"\nID=fedora\nVERSION_ID=42\n");
    for (List<String> args :
        List.of(
            List.of("info", "--provider", "ucx"),
            List.of("demo"),
            List.of("bench", "--vs-ucx-perftest"),
            List.of("replay", "--engine=ucx", "v.jsonl"),
            List.of("test"))) {
      Run r = run(Map.of("FIUCX_OS_RELEASE", fedora.toString()), args.toArray(String[]::new));
      assertEquals(2, r.exit(), args + ": " + r.err());
      assertEquals(
          "fiucx: UCX not found: install it (dnf install ucx ucx-devel; zypper install libucp0"
              + " ucx-devel; conda install -c conda-forge ucx) or set FIUCX_UCX_LIB\n",
          r.err(),
          args.toString());
      assertEquals("", r.out());
    }
    assertEquals("", called(), "no apt-get, JDK or Maven where UCX is missing");
  }

  @Test
  void aFiucxUcxLibWithoutLibucpIsOneLine() throws Exception {
    Path nowhere = dir.resolve("nowhere");
    Run r = run(Map.of("FIUCX_UCX_LIB", nowhere.toString()), "info", "--provider", "ucx");
    assertEquals(2, r.exit(), r.err());
    assertEquals(
        "fiucx: FIUCX_UCX_LIB="
            + nowhere
            + " has no libucp.so.0: point it at a UCX's libucp.so.0 or its directory\n",
        r.err());
    assertEquals("", called());
  }

  @Test
  void onDebianItInstallsOnlyUcxForAProviderCommandWithoutRecommends() throws Exception {
    noLibucpInTheCache();
    // a Debian derivative names Debian in ID_LIKE; the stand-in apt-get fails the install, so the
    // launcher stops there
    Path mint = osRelease("ID=linuxmint\nID_LIKE=\"ubuntu debian\"\n");
    script(bin.resolve("sudo"), "[ \"$1\" = -n ] && shift\nexec \"$@\"");
    script(
        bin.resolve("apt-get"),
        "echo \"apt-get $*\" >> '" + calls + "'\n[ \"$1\" = update ] && exit 0\nexit 100");
    Run r = run(Map.of("FIUCX_OS_RELEASE", mint.toString()), "info", "--provider", "ucx", "--json");
    assertEquals(1, r.exit(), r.err());
    assertEquals(
        "fiucx: installing libucx0 with apt-get\n"
            + "fiucx: apt-get could not install libucx0; install them by hand and run again\n",
        r.err());
    assertEquals(
        "apt-get update -q\napt-get install -y -q --no-install-recommends libucx0\n", called());
  }
}
