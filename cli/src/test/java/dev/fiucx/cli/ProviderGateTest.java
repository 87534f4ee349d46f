package dev.fiucx.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.conformance.remote.JavaCommand;
import dev.fiucx.spi.AtomicProvider;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * A command whose provider cannot be opened here says why in one line on stderr and exits 2; none
 * of these tests needs UCX.
 */
class ProviderGateTest {
  /** The cause the ucx provider gives in a JVM that grants native access to core only. */
  private static final String NATIVE_ACCESS_OFF =
      "native access is off: run java with --enable-native-access=dev.fiucx,dev.fiucx.ucx,jucx";

  @TempDir Path dir;

  private record Run(int exit, String out, String err) {}

  private static Run run(CommandLine cli, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int exit = cli.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  /** A command that fails as a provider deep inside a real one would. */
  @Command(name = "probe")
  private static final class Failing implements Callable<Integer> {
    private final RuntimeException failure;

    Failing(RuntimeException failure) {
      this.failure = failure;
    }

    @Override
    public Integer call() {
      throw failure;
    }
  }

  private static Run probe(RuntimeException failure) {
    CommandLine cli = FiucxCli.commandLine();
    cli.addSubcommand(new Failing(failure));
    return run(cli, "probe");
  }

  private static AtomicProvider provider(String name, String unavailabilityCause) {
    return new AtomicProvider() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public boolean isAvailable() {
        return unavailabilityCause == null;
      }

      @Override
      public String unavailabilityCause() {
        return unavailabilityCause;
      }

      @Override
      public Domain openDomain(DomainAttr attr) {
        throw new UnsupportedOperationException("a test's provider opens nothing");
      }
    };
  }

  @Test
  void aProviderThatDoesNotExistIsNamedWithTheKnownOnes() {
    Run info = run(FiucxCli.commandLine(), "info", "--provider", "nosuch");
    assertEquals(2, info.exit());
    assertEquals("fiucx info: unknown provider 'nosuch' (known: ucx)\n", info.err());
    assertEquals("", info.out());
    Run conformance = run(FiucxCli.commandLine(), "conformance", "--provider", "nosuch");
    assertEquals(2, conformance.exit());
    assertEquals("fiucx conformance: unknown provider 'nosuch' (known: ucx)\n", conformance.err());
  }

  @Test
  void anUnavailableProviderIsNamedWithItsCause() {
    List<AtomicProvider> providers =
        List.of(
            provider("ucx", "libucp.so.0 not found: install Debian's libucx0"),
            provider("shm", null));
    assertEquals(
        "provider 'ucx' unavailable: libucp.so.0 not found: install Debian's libucx0",
        ProviderGate.whyNot("ucx", providers));
    assertNull(ProviderGate.whyNot("shm", providers));
    assertEquals(
        "unknown provider 'verbs' (known: ucx, shm)", ProviderGate.whyNot("verbs", providers));
  }

  @Test
  void enodevThatEscapesACommandIsOneLineAndExitTwo() {
    Run direct =
        probe(
            new FiException(
                FiErrno.ENODEV,
                "provider 'ucx' unavailable: UCX 1.12.3 found; fiucx runs on UCX 1.13 and later"));
    assertEquals(2, direct.exit());
    assertEquals(
        "fiucx probe: provider 'ucx' unavailable: UCX 1.12.3 found; fiucx runs on UCX 1.13 and"
            + " later\n",
        direct.err());
    // wrapped on its way out, and with a linker's message of two lines in it
    Run wrapped =
        probe(
            new IllegalStateException(
                "opening the domain",
                new FiException(
                    FiErrno.ENODEV,
                    "cannot load UCX through jucx: libjucx.so: cannot open\n  libuct.so.0")));
    assertEquals(2, wrapped.exit());
    assertEquals(
        "fiucx probe: cannot load UCX through jucx: libjucx.so: cannot open libuct.so.0\n",
        wrapped.err());
  }

  @Test
  void anyOtherFailureKeepsItsStackTraceAndExitOne() {
    Run r = probe(new FiException(FiErrno.EIO, "the target went away"));
    assertEquals(1, r.exit());
    assertTrue(
        r.err().startsWith("dev.fiucx.FiException: FI_EIO: I/O error: the target went away\n"),
        r.err());
    assertTrue(r.err().contains("\tat "), r.err());
  }

  @Test
  void helpNeedsNoProvider() {
    Run r = run(FiucxCli.commandLine(), "info", "--provider", "nosuch", "--help");
    assertEquals(0, r.exit(), r.err());
    assertTrue(r.out().startsWith("Usage: fiucx info "), r.out());
  }

  /**
   * Every command that opens the ucx provider, in a JVM where that provider is unavailable (native
   * access for core only, so this runs with UCX or without): one line naming the command and the
   * provider's cause, exit 2, before anything starts.
   */
  @Test
  void everyCommandThatOpensUcxStopsWithOneLineWhereItIsUnavailable() throws Exception {
    Path vectors = dir.resolve("v.jsonl");
    Files.writeString(vectors, "");
    List<List<String>> commands =
        List.of(
            List.of("info", "--provider", "ucx"),
            List.of("bench", "-n", "10"),
            List.of("serve", "--region", "a:4096", "--port", "0"),
            List.of("replay", "--engine", "ucx", vectors.toString()),
            List.of("conformance"),
            List.of("demo"),
            List.of("soak", "--minutes", "0.1"));
    List<CompletableFuture<String>> results = new ArrayList<>();
    for (List<String> args : commands) {
      results.add(CompletableFuture.supplyAsync(() -> runWithoutNativeAccess(args)));
    }
    for (int i = 0; i < commands.size(); i++) {
      assertEquals(
          "exit 2, stdout '', stderr 'fiucx "
              + commands.get(i).getFirst()
              + ": provider 'ucx' unavailable: "
              + NATIVE_ACCESS_OFF
              + "\n'",
          results.get(i).get(2, TimeUnit.MINUTES),
          String.join(" ", commands.get(i)));
    }
  }

  /** Runs fiucx in a JVM like this one, native access granted to core only; what it did. */
  private String runWithoutNativeAccess(List<String> args) {
    List<String> command = new ArrayList<>();
    for (String a : JavaCommand.of(List.of(), FiucxCli.class, args.toArray(String[]::new))) {
      command.add(
          a.startsWith("--enable-native-access=")
              ? "--enable-native-access=dev.fiucx,dev.fiucx.perf"
              : a);
    }
    try {
      ProcessBuilder b = new ProcessBuilder(command);
      b.environment().put("UCX_LOG_FILE", "stderr");
      Process p = b.start();
      p.getOutputStream().close();
      CompletableFuture<String> err =
          CompletableFuture.supplyAsync(() -> readAll(p.getErrorStream()));
      String out = readAll(p.getInputStream());
      if (!p.waitFor(90, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return "still running after 90 s";
      }
      return "exit " + p.exitValue() + ", stdout '" + out + "', stderr '" + err.join() + "'";
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static String readAll(java.io.InputStream in) {
    try (in) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
