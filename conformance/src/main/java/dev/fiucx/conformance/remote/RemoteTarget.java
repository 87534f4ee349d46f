package dev.fiucx.conformance.remote;

import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.PeerRegion;
import dev.fiucx.bootstrap.BootstrapClient;
import dev.fiucx.bootstrap.Frame;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A {@link TargetProcess} (a serve in test mode) started by this JVM with the same Java and class
 * path, and this JVM's bootstrap connection to it: the target's address and its region's key come
 * from the WELCOME, its memory through the test mode's messages ({@link TestModeWire}).
 *
 * <p>A target in another network namespace (a non-empty {@code prefix}) cannot be reached on its
 * loopback from here; it relays its bootstrap over its standard input and output instead. Every
 * wait for the target is bounded: a target that has not started or answered within a minute is
 * killed, which ends the wait with an error.
 *
 * <p>A target may also listen on a fixed address of its host, for initiators that connect to it by
 * name, and be restarted there ({@link #restart}): then this object follows the new process.
 */
public final class RemoteTarget implements Target {
  /** How long the target may take to start listening, or to answer one message. */
  private static final long ANSWER_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(60);

  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

  /** How long a target may take to exit after SIGTERM before {@link #restart} kills it. */
  private static final long STOP_TIMEOUT_MS = 10_000;

  /** The target's command line: each incarnation ({@link #restart}) runs it again. */
  private final List<String> command;

  private final boolean relayed;
  private final long length;
  private volatile Process process;
  private volatile BootstrapClient client;
  private volatile byte[] address;
  private volatile long key;

  /** When the wait for the target ends (System.nanoTime), or 0 when nothing is waited for. */
  private volatile long waitingUntil;

  private volatile boolean timedOut;

  /**
   * Starts a target process.
   *
   * @param provider the provider's name, e.g. {@code ucx}
   * @param transport the provider's transport name, or null for its default
   * @param length the region's length in bytes
   * @param register expose registered user memory instead of provider-allocated memory
   * @param readOnly expose the region with FI_REMOTE_READ only
   * @param prefix commands to run the JVM under (e.g. {@code ip netns exec ns}), or empty
   */
  public RemoteTarget(
      String provider,
      String transport,
      long length,
      boolean register,
      boolean readOnly,
      List<String> prefix) {
    this(provider, transport, length, register, readOnly, prefix, List.of());
  }

  /**
   * Starts a target process whose JVM also takes {@code jvmOptions} (a fixed heap, say, so that its
   * resident memory measures what it holds natively).
   *
   * @param provider the provider's name, e.g. {@code ucx}
   * @param transport the provider's transport name, or null for its default
   * @param length the region's length in bytes
   * @param register expose registered user memory instead of provider-allocated memory
   * @param readOnly expose the region with FI_REMOTE_READ only
   * @param prefix commands to run the JVM under (e.g. {@code ip netns exec ns}), or empty
   * @param jvmOptions more options for the target's JVM
   */
  public RemoteTarget(
      String provider,
      String transport,
      long length,
      boolean register,
      boolean readOnly,
      List<String> prefix,
      List<String> jvmOptions) {
    this(provider, transport, length, register, readOnly, prefix, jvmOptions, null, 0, null);
  }

  /**
   * Starts a target process whose bootstrap listens on {@code bind}, an address of the target's
   * host, so that initiators in other hosts connect to it by name ({@link
   * dev.fiucx.Fabric#connect}) and find it there again after a {@link #restart}; its region
   * (read-write, allocated) holds {@code preset} at {@code presetOffset} before the bootstrap
   * listens.
   *
   * @param provider the provider's name, e.g. {@code ucx}
   * @param transport the provider's transport name, or null for its default
   * @param length the region's length in bytes
   * @param prefix commands to run the JVM under (e.g. {@code ip netns exec ns}), or empty
   * @param bind the bootstrap's {@code HOST:PORT}, or null for a free loopback port
   * @param presetOffset where {@code preset} goes in the region
   * @param preset the region's starting bytes there, or null for none (all zero)
   */
  public RemoteTarget(
      String provider,
      String transport,
      long length,
      List<String> prefix,
      String bind,
      long presetOffset,
      byte[] preset) {
    this(provider, transport, length, false, false, prefix, List.of(), bind, presetOffset, preset);
  }

  private RemoteTarget(
      String provider,
      String transport,
      long length,
      boolean register,
      boolean readOnly,
      List<String> prefix,
      List<String> jvmOptions,
      String bind,
      long presetOffset,
      byte[] preset) {
    relayed = !prefix.isEmpty();
    List<String> cmd =
        new ArrayList<>(
            JavaCommand.of(
                prefix,
                TargetProcess.class,
                provider,
                transport == null ? "-" : transport,
                Long.toString(length),
                register ? "register" : "allocate",
                readOnly ? "read-only" : "read-write",
                relayed ? "stdio" : "tcp",
                bind == null ? "-" : bind));
    if (preset != null) {
      cmd.add(presetOffset + ":" + HexFormat.of().formatHex(preset));
    }
    cmd.addAll(prefix.size() + 1, jvmOptions);
    command = List.copyOf(cmd);
    this.length = start();
  }

  /** Starts an incarnation of the target and connects to it; returns its region's length. */
  private long start() {
    timedOut = false;
    Process p;
    try {
      ProcessBuilder builder =
          new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
      // UCX logs to stdout by default, which would break the listening line and the relay
      builder.environment().put("UCX_LOG_FILE", "stderr");
      p = builder.start();
    } catch (IOException e) {
      throw new FiException(FiErrno.EIO, "cannot start the target process " + command, e);
    }
    process = p;
    Thread.ofVirtual().name("fiucx-target-watch-" + p.pid()).start(() -> watch(p));
    BootstrapClient c = null;
    try {
      InputStream stdout = new BufferedInputStream(p.getInputStream());
      String line = bounded(() -> firstLine(stdout));
      if (!line.startsWith(TargetProcess.LISTENING)) {
        throw new IOException("it said '" + line + "' (exit " + exitCode() + ")");
      }
      String hostPort = line.substring(TargetProcess.LISTENING.length());
      String me = "fiucx test pid " + ProcessHandle.current().pid();
      if (relayed) {
        c =
            bounded(
                () ->
                    BootstrapClient.over(
                        stdout,
                        p.getOutputStream(),
                        p.getOutputStream(),
                        me,
                        "the target process " + p.pid()));
      } else {
        int colon = hostPort.lastIndexOf(':');
        c =
            BootstrapClient.connect(
                hostPort.substring(0, colon),
                Integer.parseInt(hostPort.substring(colon + 1)),
                me,
                CONNECT_TIMEOUT);
      }
      PeerRegion region =
          c.welcome().regions().stream()
              .filter(r -> r.name().equals(TestModeServe.REGION))
              .findFirst()
              .orElseThrow(() -> new IOException("its WELCOME has no region"));
      client = c;
      address = c.welcome().address();
      key = region.key();
      return region.length();
    } catch (IOException | RuntimeException e) {
      if (c != null) {
        c.close();
      }
      killAndClean();
      throw new FiException(FiErrno.EIO, "target process " + p.pid() + ": " + e.getMessage(), e);
    }
  }

  /**
   * Restarts the target as a service manager does ({@code systemctl restart}): SIGTERM (the target
   * closes its bootstrap, region and domain, and exits), SIGKILL when it has not exited within 10
   * s, then a new process with the same arguments, listening on the same address. Its region has
   * the same name and length, new keys, and holds zeros and the preset again; {@link #address},
   * {@link #key}, {@link #pid}, {@link #set} and {@link #get} are the new process's from then on.
   * Returns once the new target listens and this side has its WELCOME.
   *
   * @return whether the old process exited on SIGTERM within the bound (else it was killed)
   */
  public synchronized boolean restart() {
    Process old = process;
    boolean clean;
    try {
      clean = end(old, STOP_TIMEOUT_MS);
    } finally {
      client.close();
      try {
        old.getOutputStream().close();
      } catch (IOException e) {
        // gone with the process
      }
    }
    if (Thread.currentThread().isInterrupted()) {
      throw new FiException(FiErrno.EINTR, "waiting for target process " + old.pid());
    }
    long n = start();
    if (n != length) {
      throw new FiException(FiErrno.EIO, "the restarted target's region has " + n + " bytes");
    }
    return clean;
  }

  /** {@return the target process's id (for its /proc figures, or to freeze it with SIGSTOP)} */
  public long pid() {
    return process.pid();
  }

  @Override
  public byte[] address() {
    return address;
  }

  /**
   * The key of the region the target exposes now (a {@link #renewRegion} or {@link #restart}
   * changes it).
   */
  @Override
  public long key() {
    return key;
  }

  /** {@return the region's length in bytes} */
  public long length() {
    return length;
  }

  /** Writes {@code bytes} into the target's region at {@code offset}. */
  @Override
  public synchronized void set(long offset, byte[] bytes) {
    int at = 0;
    do {
      int n = Math.min(TestModeWire.MAX_CHUNK, bytes.length - at);
      byte[] piece = Arrays.copyOfRange(bytes, at, at + n);
      expect(TestModeWire.OK, TestModeWire.set(TestModeServe.REGION, offset + at, piece));
      at += n;
    } while (at < bytes.length);
  }

  /** Reads {@code n} bytes of the target's region at {@code offset}. */
  @Override
  public synchronized byte[] get(long offset, int n) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(n);
    int at = 0;
    do {
      int piece = Math.min(TestModeWire.MAX_CHUNK, n - at);
      bytes.writeBytes(
          expect(TestModeWire.DATA, TestModeWire.get(TestModeServe.REGION, offset + at, piece)));
      at += piece;
    } while (at < n);
    return bytes.toByteArray();
  }

  /** Closes the target's region, revoking its key. */
  @Override
  public void closeRegion() {
    expect(TestModeWire.OK, TestModeWire.close(TestModeServe.REGION));
  }

  /**
   * Closes the target's region (revoking its key) and exposes a new one of the same length in its
   * place; returns the new key. {@link #set} and {@link #get} then address the new region.
   *
   * @return the new region's key
   */
  public long renewRegion() {
    byte[] renewed = expect(TestModeWire.RENEWED, TestModeWire.renew(TestModeServe.REGION));
    key = ByteBuffer.wrap(renewed, 8, 8).getLong();
    return key;
  }

  /**
   * {@return one of the target domain's {@code describe()} facts}
   *
   * @param name the fact's name, e.g. {@code ucx.version}
   */
  public String fact(String name) {
    return new String(expect(TestModeWire.DATA, TestModeWire.fact(name)), StandardCharsets.UTF_8);
  }

  /** {@return whether the target process is running} */
  public boolean isAlive() {
    return process.isAlive();
  }

  /**
   * Kills the target process at once, as a crash would, waits for its end and removes the
   * /dev/shm/ucx_shm_posix_* files it (or, under a prefix, the JVM the prefix started) mapped that
   * this process does not map (UCX leaves a killed process's own segments behind). A prefix must
   * take its child with it when killed ({@code unshare --kill-child}, {@code ip netns exec} execs).
   */
  public void kill() {
    killAndClean();
    client.close();
  }

  /**
   * The /dev/shm files {@code p} (or, under a prefix, its descendant) maps that this process does
   * not: what it leaves behind if it dies without unmapping them.
   */
  private static Set<String> shmLeftovers(Process p) {
    // the JVM may run under a prefix (unshare, ip netns exec): its files are a descendant's
    Set<String> leftovers = shmFiles(p.pid());
    p.descendants().forEach(d -> leftovers.addAll(shmFiles(d.pid())));
    leftovers.removeAll(shmFiles(ProcessHandle.current().pid()));
    return leftovers;
  }

  private void killAndClean() {
    end(process, 0);
  }

  /**
   * Ends {@code p}: SIGTERM and up to {@code graceMs} for it to exit (none when 0), then SIGKILL;
   * then removes the /dev/shm files it mapped that this process does not. An interrupt ends the
   * wait and stays set.
   *
   * @return whether it exited within the grace
   */
  private static boolean end(Process p, long graceMs) {
    Set<String> leftovers = shmLeftovers(p);
    try {
      boolean clean = false;
      if (graceMs > 0) {
        p.destroy();
        clean = p.waitFor(graceMs, TimeUnit.MILLISECONDS);
      }
      if (!clean) {
        p.destroyForcibly();
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
          throw new FiException(FiErrno.EIO, "target process " + p.pid() + " did not die");
        }
      }
      for (String f : leftovers) {
        Files.deleteIfExists(Path.of(f));
      }
      return clean;
    } catch (IOException e) {
      throw new FiException(FiErrno.EIO, "removing the ended target's /dev/shm files", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * {@return the /dev/shm/ucx_shm_posix_* files a process maps}
   *
   * @param pid the process
   */
  public static Set<String> shmFiles(long pid) {
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

  /** Sends one test-mode message and returns the payload of its answer of type {@code type}. */
  private byte[] expect(int type, Frame request) {
    Frame answer;
    try {
      answer = bounded(() -> client.request(request.type(), request.payload()));
    } catch (IOException e) {
      throw new FiException(
          FiErrno.EIO, "target process " + pid() + " (exit " + exitCode() + "): " + e, e);
    }
    if (answer.type() == TestModeWire.FAILED) {
      throw new FiException(
          FiErrno.EIO, "target process refused: " + TestModeWire.failure(answer.payload()));
    }
    if (answer.type() != type) {
      throw new FiException(
          FiErrno.EIO, "target process answered type " + answer.type() + ", not " + type);
    }
    return answer.payload();
  }

  private interface Wait<T> {
    T call() throws IOException;
  }

  /** Runs {@code w} with the watch armed: past the timeout it kills the target, ending the wait. */
  private <T> T bounded(Wait<T> w) throws IOException {
    waitingUntil = System.nanoTime() + ANSWER_TIMEOUT_NANOS;
    try {
      return w.call();
    } catch (IOException e) {
      if (timedOut) {
        throw new IOException("no answer within 60 s; the target was killed", e);
      }
      throw e;
    } finally {
      waitingUntil = 0;
    }
  }

  /** Kills the target when a wait outlives its deadline; ends with the process. */
  private void watch(Process process) {
    while (true) {
      try {
        process.onExit().get(200, TimeUnit.MILLISECONDS);
        return;
      } catch (TimeoutException e) {
        long until = waitingUntil;
        if (until != 0 && System.nanoTime() - until > 0) {
          timedOut = true;
          process.destroyForcibly();
        }
      } catch (InterruptedException | java.util.concurrent.ExecutionException e) {
        return;
      }
    }
  }

  /** The first line of the target's stdout, read byte by byte so the relay's bytes stay. */
  private static String firstLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) >= 0 && b != '\n') {
      if (line.size() > 4096) {
        throw new IOException("its first line is longer than 4 KiB");
      }
      line.write(b);
    }
    if (b < 0 && line.size() == 0) {
      throw new IOException("it ended without a word");
    }
    return line.toString(StandardCharsets.UTF_8);
  }

  private String exitCode() {
    try {
      return process.waitFor(100, TimeUnit.MILLISECONDS) ? "" + process.exitValue() : "running";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "?";
    }
  }

  /**
   * Says BYE, ends the target's standard input (it closes its region and domain and exits), and
   * waits up to 10 s for it; kills it after that.
   */
  @Override
  public void close() {
    client.close();
    if (!process.isAlive()) {
      return;
    }
    try {
      process.getOutputStream().close();
    } catch (IOException e) {
      // it is gone already
    }
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        kill();
      }
    } catch (InterruptedException e) {
      kill();
      Thread.currentThread().interrupt();
    }
  }
}
