package dev.fiucx.perf.bench;

import dev.fiucx.perf.cli.FiucxCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Runs {@code fiucx ...} in this JVM as {@code ./fiucx} does, capturing stdout and stderr. */
final class BenchCli {
  record Run(int exit, String out, String err) {}

  private BenchCli() {}

  static synchronized Run run(String... args) {
    PrintStream savedOut = System.out;
    PrintStream savedErr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      int exit = FiucxCli.commandLine().execute(args);
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
