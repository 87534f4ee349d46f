package dev.fiucx.perf.bench;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Runs {@code fiucx bench ...} in this JVM, capturing stdout and stderr: bench's own command, as
 * the command line mounts it ({@link dev.fiucx.perf.Bench#commandLine}), without the command line's
 * provider gate (which is the command line's, tested there).
 */
final class BenchCli {
  record Run(int exit, String out, String err) {}

  private BenchCli() {}

  /** Runs {@code args}, spelled as on the command line: {@code "bench"} and bench's arguments. */
  static synchronized Run run(String... args) {
    if (args.length == 0 || !args[0].equals("bench")) {
      throw new IllegalArgumentException("not a bench command line: " + String.join(" ", args));
    }
    PrintStream savedOut = System.out;
    PrintStream savedErr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      int exit = BenchCommand.commandLine().execute(Arrays.copyOfRange(args, 1, args.length));
      return new Run(
          exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(savedOut);
      System.setErr(savedErr);
      // what the run printed to stderr (progress, the target's log) still helps when a test fails
      savedErr.print(err.toString(StandardCharsets.UTF_8));
    }
  }
}
