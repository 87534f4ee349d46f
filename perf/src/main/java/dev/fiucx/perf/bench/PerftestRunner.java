package dev.fiucx.perf.bench;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Runs one ucx_perftest test as its two processes on this host: the server {@code ucx_perftest -p
 * PORT}, then the client {@code ucx_perftest localhost -p PORT -t TEST -s SIZE -n N -w W -O WINDOW}
 * (and {@code -c CPUS} when bench's threads are pinned), both with the same UCX_TLS (and
 * UCX_LOG_FILE=stderr, so stdout holds only its table), and reads the client's final line. Between
 * two hosts the server runs on the target's ({@link #startServer}, by a {@code bench --server
 * --perftest-server}) and the client here against it ({@link #runClient}).
 */
public final class PerftestRunner {
  public static final String EXECUTABLE = "ucx_perftest";
  private static final long START_TIMEOUT_SECONDS = 15;
  private static final long RUN_TIMEOUT_SECONDS = 600;

  private final Path executable;
  private final String ucxTls;
  private final Map<String, String> ucxSettings;
  private final PrintStream log;

  /** The CPUs the client runs on ({@code -c}, as bench's measuring threads), or null. */
  private CpuSet clientCpus;

  /** Whether this ucx_perftest has an MPI mode to turn off ({@code -P}); null until asked. */
  private Boolean mpiMode;

  /**
   * @param ucxTls the UCX_TLS both processes get: the list fiucx's domain uses
   * @param ucxSettings the other UCX settings fiucx made on its domain's context (environment
   *     variables, e.g. the verbs ones), which both processes get too
   */
  public PerftestRunner(
      Path executable, String ucxTls, Map<String, String> ucxSettings, PrintStream log) {
    this.executable = executable;
    this.ucxTls = ucxTls;
    this.ucxSettings = Map.copyOf(ucxSettings);
    this.log = log;
  }

  /** ucx_perftest on the PATH, or null. */
  public static Path find() {
    return find(System.getenv("PATH"));
  }

  /** ucx_perftest in one of {@code path}'s directories, or null. */
  static Path find(String path) {
    if (path == null) {
      return null;
    }
    for (String dir : path.split(File.pathSeparator)) {
      Path p = Path.of(dir.isEmpty() ? "." : dir, EXECUTABLE);
      if (Files.isRegularFile(p) && Files.isExecutable(p)) {
        return p;
      }
    }
    return null;
  }

  String ucxTls() {
    return ucxTls;
  }

  /**
   * The client runs pinned to {@code cpus} (its own {@code -c}, which sets the affinity of its
   * process), as bench's measuring threads are; the server, as bench's target, is not.
   */
  PerftestRunner pinClientTo(CpuSet cpus) {
    this.clientCpus = cpus;
    return this;
  }

  /**
   * The UCX settings a domain made on its context ({@link dev.fiucx.Domain#describe}'s {@code
   * ucx.environment}), as the environment variables another UCX program needs for the same
   * configuration.
   */
  static Map<String, String> ucxEnvironment(Map<String, String> describe) {
    Map<String, String> env = new java.util.LinkedHashMap<>();
    for (String kv : describe.getOrDefault("ucx.environment", "").trim().split("\\s+")) {
      int eq = kv.indexOf('=');
      if (eq > 0) {
        env.put(kv.substring(0, eq), kv.substring(eq + 1));
      }
    }
    return env;
  }

  /** The client's command line for {@code match} against the server on this host. */
  List<String> clientCommand(PerftestMatch match, int port, long iterations, long warmup, int w) {
    return clientCommand("127.0.0.1", match, port, iterations, warmup, w);
  }

  /** The client's command line for {@code match} against the server at {@code host}. */
  List<String> clientCommand(
      String host, PerftestMatch match, int port, long iterations, long warmup, int w) {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                executable.toString(),
                host, // not "localhost": a fresh root file system may have no /etc/hosts
                "-p",
                Integer.toString(port),
                "-t",
                match.test(),
                "-s",
                Integer.toString(match.size()),
                "-n",
                Long.toString(iterations),
                "-w",
                Long.toString(warmup),
                "-O",
                Integer.toString(w)));
    if (clientCpus != null) {
      // every CPU spelled out: ucx_perftest's help asks for CPUs separated by commas, no ranges
      cmd.add("-c");
      cmd.add(String.join(",", clientCpus.cpus().stream().map(String::valueOf).toList()));
    }
    return cmd;
  }

  /** Both processes on this host: the server, then the client against it. */
  public PerftestResult run(PerftestMatch match, long iterations, long warmup, int window)
      throws IOException {
    try (Server server = startServer()) {
      return runClient("127.0.0.1", server.port(), match, iterations, warmup, window);
    }
  }

  /**
   * ucx_perftest's server side on this host, listening on a free port; closing it waits a moment
   * for it to end after its client, then ends it.
   */
  Server startServer() throws IOException {
    int port = freePort();
    Process server = start(List.of(executable.toString(), "-p", Integer.toString(port)));
    try {
      collect(server, Collections.synchronizedList(new ArrayList<>()));
      awaitListening(server, port);
      return new Server(server, port);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      server.destroy();
      throw new IOException("interrupted while ucx_perftest's server started", e);
    } catch (IOException | RuntimeException e) {
      server.destroy();
      throw e;
    }
  }

  /** ucx_perftest's server, started by {@link #startServer}. */
  static final class Server implements AutoCloseable {
    private final Process process;
    private final int port;

    private Server(Process process, int port) {
      this.process = process;
      this.port = port;
    }

    int port() {
      return port;
    }

    /**
     * Reaps it: its exit status once it ended (it does after its client, within 10 s), else -1
     * after it was ended.
     */
    @Override
    public void close() {
      reap();
    }

    /** {@return its exit status, or -1 when it had to be ended} */
    int reap() {
      try {
        if (process.waitFor(10, TimeUnit.SECONDS)) {
          return process.exitValue();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      process.destroy();
      try {
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        process.destroyForcibly();
      }
      return -1;
    }
  }

  /** The client here against a ucx_perftest server listening at {@code host:port}. */
  PerftestResult runClient(
      String host, int port, PerftestMatch match, long iterations, long warmup, int window)
      throws IOException {
    Process client = start(clientCommand(host, match, port, iterations, warmup, window));
    try {
      List<String> clientOut = Collections.synchronizedList(new ArrayList<>());
      CountDownLatch ended = collect(client, clientOut);
      if (!client.waitFor(RUN_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        client.destroyForcibly();
        throw new IOException("ucx_perftest did not finish within " + RUN_TIMEOUT_SECONDS + " s");
      }
      ended.await(5, TimeUnit.SECONDS);
      if (client.exitValue() != 0) {
        throw new IOException(
            "ucx_perftest exited with "
                + client.exitValue()
                + ": "
                + String.join(" | ", clientOut));
      }
      return PerftestResult.parse(List.copyOf(clientOut));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      client.destroyForcibly();
      throw new IOException("interrupted while ucx_perftest ran", e);
    }
  }

  /**
   * Waits until the server listens on {@code port}. Its "Waiting for connection" line cannot tell:
   * stdout into a pipe is block-buffered and arrives only when it exits. Knocking on the port would
   * use up the one connection it accepts, so the kernel's socket table tells instead.
   */
  private static void awaitListening(Process server, int port)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_TIMEOUT_SECONDS);
    List<Path> tables = List.of(Path.of("/proc/net/tcp"), Path.of("/proc/net/tcp6"));
    if (tables.stream().noneMatch(Files::isReadable)) {
      Thread.sleep(1000); // no socket table to read (not Linux): give it a second
      return;
    }
    String local = String.format(":%04X ", port);
    while (System.nanoTime() - deadline < 0) {
      if (!server.isAlive()) {
        throw new IOException("the ucx_perftest server exited with " + server.exitValue());
      }
      for (Path t : tables) {
        if (Files.isReadable(t)
            && Files.readAllLines(t).stream()
                .map(String::trim)
                // "sl local_address rem_address st ...": state 0A is LISTEN
                .map(l -> l.split("\\s+"))
                .anyMatch(w -> w.length > 3 && (w[1] + " ").endsWith(local) && w[3].equals("0A"))) {
          return;
        }
      }
      Thread.sleep(20);
    }
    throw new IOException("the ucx_perftest server did not listen on port " + port);
  }

  private Process start(List<String> cmd) throws IOException {
    if (mpiMode == null) {
      mpiMode = hasMpiMode(executable);
    }
    if (mpiMode) {
      // a ucx_perftest built with MPI (trixie's) takes a lone process for an MPI job of one and
      // refuses to run as server or client: -P 0 turns its MPI mode off
      List<String> withoutMpi = new ArrayList<>(cmd);
      withoutMpi.addAll(1, List.of("-P", "0"));
      cmd = withoutMpi;
    }
    ProcessBuilder b = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
    if (mpiMode) {
      // its MPI still starts (a job of one), and Open MPI's shared-memory transport leaves a
      // 16 MiB sm_segment file in /dev/shm per process behind: only the self transport is needed
      b.environment().put("OMPI_MCA_btl", "self");
    }
    b.environment().putAll(ucxSettings);
    b.environment().put("UCX_TLS", ucxTls);
    b.environment().put("UCX_LOG_FILE", "stderr");
    return b.start();
  }

  /** Whether {@code executable}'s usage lists {@code -P <0|1>}, its MPI mode switch. */
  static boolean hasMpiMode(Path executable) throws IOException {
    ProcessBuilder b = new ProcessBuilder(executable.toString(), "-h").redirectErrorStream(true);
    // an MPI-built one starts its MPI even for -h, and Open MPI's shared-memory transport would
    // leave a 16 MiB sm_segment file in /dev/shm behind (seen once per bench run on trixie)
    b.environment().put("OMPI_MCA_btl", "self");
    Process p = b.start();
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      boolean found = r.lines().anyMatch(l -> l.trim().startsWith("-P <0|1>"));
      p.waitFor(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
      return found;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while asking ucx_perftest for its options", e);
    } finally {
      p.destroyForcibly();
    }
  }

  /** Reads a process's stdout into {@code lines} on a thread of its own; the latch: its end. */
  private CountDownLatch collect(Process p, List<String> lines) {
    CountDownLatch ended = new CountDownLatch(1);
    Thread.ofPlatform()
        .daemon()
        .name("ucx_perftest-output")
        .start(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String l;
                while ((l = r.readLine()) != null) {
                  lines.add(l);
                }
              } catch (IOException e) {
                log.println("ucx_perftest output: " + e.getMessage());
              } finally {
                ended.countDown();
              }
            });
    return ended;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
