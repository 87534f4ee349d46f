package dev.fiucx.docker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One external command run to its end within a bound: its stdout and stderr go to files, so a
 * chatty command never blocks on a full pipe, and a command past its bound is killed and reported
 * with the end of what it said.
 */
final class Command {
  /** What a finished command left: its exit code, its stdout and its stderr. */
  record Result(int exit, String output, String errors) {
    /** The last lines of stdout and stderr, for a failure message. */
    String tail() {
      return last(output) + "\n" + last(errors);
    }

    private static String last(String text) {
      List<String> lines = text.lines().toList();
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }
  }

  private Command() {}

  /** Runs {@code command} with {@code env} added to this process's environment. */
  static Result run(Duration bound, Map<String, String> env, Path dir, String... command)
      throws IOException, InterruptedException {
    Path output = Files.createTempFile("fiucx-docker-command-", ".out");
    Path errors = Files.createTempFile("fiucx-docker-command-", ".err");
    try {
      ProcessBuilder pb =
          new ProcessBuilder(command)
              .redirectOutput(output.toFile())
              .redirectError(errors.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
      pb.environment().putAll(env);
      if (dir != null) {
        pb.directory(dir.toFile());
      }
      Process p = pb.start();
      if (!p.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS)) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
        throw new AssertionError(
            String.join(" ", command)
                + " did not finish within "
                + bound.toSeconds()
                + " s:\n"
                + new Result(-1, read(output), read(errors)).tail());
      }
      return new Result(p.exitValue(), read(output), read(errors));
    } finally {
      Files.deleteIfExists(output);
      Files.deleteIfExists(errors);
    }
  }

  private static String read(Path file) throws IOException {
    return Files.readString(file, StandardCharsets.UTF_8);
  }

  /** Runs {@code command} and fails unless it exits 0; returns its stdout. */
  static String check(Duration bound, Map<String, String> env, Path dir, String... command)
      throws IOException, InterruptedException {
    Result r = run(bound, env, dir, command);
    if (r.exit() != 0) {
      throw new AssertionError(
          String.join(" ", command) + " exited " + r.exit() + ":\n" + r.tail());
    }
    return r.output();
  }
}
