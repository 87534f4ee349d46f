package dev.fiucx.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs jcstress tests (classes annotated {@code @JCStressTest}, named {@code *Stress}, beside the
 * structure they stress) in a child JVM on the class path (jcstress forks its own JVMs by class
 * path: the module path of the test JVM joins it), and fails unless every selected test ran and
 * none saw a forbidden outcome or an error. jcstress runs each actor on its own thread millions of
 * times with the JIT's and the hardware's reorderings, so a missing fence or a lost claim shows up
 * as an outcome the test forbids.
 */
public final class Jcstress {
  /**
   * jcstress's quick mode (a normal and a stress fork per test, both VM configurations) with
   * shorter iterations, so that the suite stays within CI's budget on two cores: a test sees a few
   * million races. {@code -Dfiucx.jcstress.mode=default} (or {@code tough}) runs longer.
   */
  private static final List<String> BUDGET =
      System.getProperty("fiucx.jcstress.mode") == null
          ? List.of("-m", "quick", "-iters", "3", "-time", "100")
          : List.of("-m", System.getProperty("fiucx.jcstress.mode"));

  private static final Pattern MATCHING =
      Pattern.compile("All remaining tests: (\\d+) matching test results");

  private Jcstress() {}

  /**
   * This JVM's class path and module path as one class path: under surefire the module under test
   * is on the module path (its test classes patched in) and its tests' own dependencies on the
   * class path.
   */
  private static String classPath() {
    String modulePath = System.getProperty("jdk.module.path", "");
    String classPath = System.getProperty("java.class.path", "");
    return modulePath.isEmpty() ? classPath : classPath + java.io.File.pathSeparator + modulePath;
  }

  /**
   * Runs the stress tests whose class names match {@code testRegex} and checks the report.
   *
   * @param expectedTests how many tests (classes with one {@code @JCStressTest} each) must match
   */
  public static void run(String testRegex, int expectedTests)
      throws IOException, InterruptedException {
    Path results = Files.createDirectories(Path.of("target", "jcstress").toAbsolutePath());
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(classPath());
    command.add("org.openjdk.jcstress.Main");
    command.addAll(List.of("-t", testRegex, "-r", results.toString(), "-c", "2", "-f", "1"));
    command.addAll(BUDGET);
    Process p =
        new ProcessBuilder(command).directory(results.toFile()).redirectErrorStream(true).start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(10, TimeUnit.MINUTES), "jcstress did not finish");
    String tail = out.substring(Math.max(0, out.lastIndexOf("RUN RESULTS")));
    assertTrue(tail.startsWith("RUN RESULTS"), "no jcstress report:\n" + out);
    assertTrue(tail.contains("Failed tests: No matches."), "forbidden outcomes:\n" + tail);
    assertTrue(tail.contains("Error tests: No matches."), "tests in error:\n" + tail);
    // a test whose classes do not load is skipped, not failed, and still counts as matching
    assertFalse(out.contains("sanity check failed"), "tests skipped:\n" + out);
    Matcher m = MATCHING.matcher(tail);
    assertTrue(m.find(), "no passing tests:\n" + tail);
    assertEquals(expectedTests, Integer.parseInt(m.group(1)), "tests run:\n" + tail);
    assertEquals(0, p.exitValue(), "jcstress exit status:\n" + tail);
  }
}
