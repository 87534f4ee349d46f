package dev.fiucx.conformance.remote;

import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@link TargetProcess} started by this JVM with the same Java and class path: its address, its
 * region's key, and its memory through the line protocol.
 */
public final class RemoteTarget implements Target {
  private static final HexFormat HEX = HexFormat.of();

  private final Process process;
  private final BufferedReader in;
  private final PrintStream out;
  private final byte[] address;
  private final long key;
  private final long length;

  /**
   * Starts a target process.
   *
   * @param transport the provider's transport name, or null for its default
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
    List<String> cmd =
        JavaCommand.of(
            prefix,
            TargetProcess.class,
            provider,
            transport == null ? "-" : transport,
            Long.toString(length),
            register ? "register" : "allocate",
            readOnly ? "read-only" : "read-write");
    try {
      ProcessBuilder builder =
          new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
      // UCX logs to stdout by default, which would break the line protocol
      builder.environment().put("UCX_LOG_FILE", "stderr");
      process = builder.start();
    } catch (IOException e) {
      throw new FiException(FiErrno.EIO, "cannot start the target process " + cmd, e);
    }
    in =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    out = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
    String[] ready = expect("READY").split(" ");
    address = HEX.parseHex(ready[1]);
    key = Long.parseLong(ready[2]);
    this.length = Long.parseLong(ready[3]);
  }

  /** The target process's id (for its /proc figures, or to freeze it with SIGSTOP). */
  public long pid() {
    return process.pid();
  }

  @Override
  public byte[] address() {
    return address;
  }

  @Override
  public long key() {
    return key;
  }

  public long length() {
    return length;
  }

  /** Writes {@code bytes} into the target's region at {@code offset}. */
  @Override
  public void set(long offset, byte[] bytes) {
    out.println("SET " + offset + " " + HEX.formatHex(bytes));
    expect("OK");
  }

  /** Reads {@code n} bytes of the target's region at {@code offset}. */
  @Override
  public byte[] get(long offset, int n) {
    out.println("GET " + offset + " " + n);
    return HEX.parseHex(expect("DATA").substring(5));
  }

  /** Closes the target's region, revoking its key. */
  @Override
  public void closeRegion() {
    out.println("CLOSE");
    expect("OK");
  }

  /**
   * Closes the target's region (revoking its key) and exposes a new one of the same length in its
   * place; returns the new key. {@link #set} and {@link #get} then address the new region.
   */
  public long renewRegion() {
    out.println("RENEW");
    return Long.parseLong(expect("OK").substring(3).trim());
  }

  /** Kills the target process at once, as a crash would. */
  public void kill() {
    process.destroyForcibly();
  }

  private String expect(String word) {
    try {
      String line = in.readLine();
      if (line == null || !line.startsWith(word)) {
        throw new FiException(
            FiErrno.EIO,
            "target process said '" + line + "' instead of " + word + " (exit " + exitCode() + ")");
      }
      return line;
    } catch (IOException e) {
      throw new FiException(FiErrno.EIO, "target process stream", e);
    }
  }

  private String exitCode() {
    try {
      return process.waitFor(100, TimeUnit.MILLISECONDS) ? "" + process.exitValue() : "running";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "?";
    }
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      out.println("QUIT");
      try {
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }
}
