package dev.fiucx.examples.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.conformance.suite.RequiresProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.LongStream;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The job on a real standalone cluster in miniature ({@code local-cluster[2,1,1024]}: a master and
 * two workers in this JVM, each starting an executor JVM of its own, as a cluster's workers do):
 * each executor JVM connects once and serves all its tasks with that connection, the tickets are
 * exact, and when the application ends each executor's shutdown hook says BYE to the serve.
 */
@RequiresProvider("ucx")
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class TicketJobClusterTest {
  private static final int RECORDS = 300_000;
  private static final int PARTITIONS = 16;
  private static final Pattern PID = Pattern.compile("pid (\\d+) ");

  @Test
  void eachExecutorJvmConnectsOnceAndSaysByeWhenItEnds() throws Exception {
    SparkConf conf = clusterOfTwoExecutors();
    Set<Long> executorPids = new TreeSet<>();
    try (CounterServeProcess serve = CounterServeProcess.start("shm")) {
      try {
        TicketJob.Report report;
        try (JavaSparkContext sc = new JavaSparkContext(conf)) {
          awaitExecutors(sc, 2);
          report = TicketJob.run(sc, serve.target(), TicketJob.DEFAULT_REGION, RECORDS, PARTITIONS);
        } // stops the executors
        report.lines().forEach(System.out::println);

        assertEquals(List.of(), report.problems());
        assertEquals(RECORDS, report.counter());
        assertArrayEquals(
            LongStream.range(0, RECORDS).toArray(),
            report.tasks().stream()
                .flatMapToLong(t -> LongStream.of(t.tickets()))
                .sorted()
                .toArray());
        // two executor JVMs, one connection each for all their tasks, all on the mapped path
        assertEquals(Map.of("0", 1, "1", 1), report.connectionsPerExecutor());
        assertEquals(Map.of("mapped", PARTITIONS), report.paths());

        // the serve saw this JVM (the driver's reads) and the two executor JVMs, and each of them
        // said BYE: the executors' shutdown hook closed their connections
        serve.awaitLines("DEPARTED ", 3);
        List<String> lines = serve.lines();
        List<Long> connected =
            lines.stream().filter(l -> l.startsWith("CONNECTED ")).map(l -> pid(l)).toList();
        assertEquals(3, connected.size(), lines.toString());
        long self = ProcessHandle.current().pid();
        assertEquals(1, connected.stream().filter(p -> p == self).count(), lines.toString());
        connected.stream().filter(p -> p != self).forEach(executorPids::add);
        assertEquals(2, executorPids.size(), lines.toString());
        List<String> departed = lines.stream().filter(l -> l.startsWith("DEPARTED ")).toList();
        assertEquals(
            connected.stream().sorted().toList(),
            departed.stream().map(l -> pid(l)).sorted().toList());
        departed.forEach(l -> assertTrue(l.endsWith(": said BYE"), l));
        assertEquals(RECORDS, serve.stop());
        awaitGone(executorPids);
      } finally {
        killLeftovers(executorPids);
      }
    }
  }

  /**
   * Two workers of one core and 1 GiB, on loopback, whose executors find Spark in SPARK_HOME/jars
   * (links to this JVM's jars), fiucx and the job on their extra class path, with the Hadoop client
   * that runs on Java 25 first.
   */
  private static SparkConf clusterOfTwoExecutors() throws IOException {
    String home = System.getenv("SPARK_HOME");
    assertTrue(home != null, "SPARK_HOME is not set (the module's surefire settings set it)");
    Path jars = Path.of(home, "jars");
    Files.createDirectories(jars);
    List<String> classDirectories = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
      Path path = Path.of(entry);
      if (entry.endsWith(".jar")) {
        Path link = jars.resolve(path.getFileName());
        if (!Files.exists(link, LinkOption.NOFOLLOW_LINKS)) {
          Files.createSymbolicLink(link, path.toAbsolutePath());
        }
      } else {
        classDirectories.add(entry);
      }
    }
    Path executorJars = Path.of("target", "executor-jars").toAbsolutePath();
    assertTrue(Files.isDirectory(executorJars), executorJars + " (made by the build) is missing");
    String extraClassPath =
        executorJars + "/*" + java.io.File.pathSeparator + String.join(":", classDirectories);
    return new SparkConf()
        .setMaster("local-cluster[2,1,1024]")
        .setAppName("fiucx ticket job cluster test")
        .set("spark.driver.host", "127.0.0.1")
        .set("spark.driver.bindAddress", "127.0.0.1")
        .set("spark.ui.enabled", "false")
        .set("spark.executor.extraClassPath", extraClassPath)
        .set("spark.executor.extraJavaOptions", "--enable-native-access=ALL-UNNAMED");
  }

  /** Waits (up to 120 s) until {@code n} executors registered with the driver. */
  private static void awaitExecutors(JavaSparkContext sc, int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    // the driver's own block manager counts as one
    while (sc.sc().getExecutorMemoryStatus().size() < n + 1) {
      assertTrue(
          System.nanoTime() < deadline,
          "executors registered in 120 s: " + (sc.sc().getExecutorMemoryStatus().size() - 1));
      Thread.sleep(100);
    }
  }

  /** Waits (up to 30 s) until the executor JVMs exited. */
  private static void awaitGone(Set<Long> pids) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (pids.stream()
        .anyMatch(p -> ProcessHandle.of(p).map(ProcessHandle::isAlive).orElse(false))) {
      assertTrue(System.nanoTime() < deadline, "executor JVMs " + pids + " still alive after 30 s");
      Thread.sleep(100);
    }
  }

  /** Kills executor JVMs a failed test left, and the /dev/shm files UCX leaves behind them. */
  private static void killLeftovers(Set<Long> pids) throws Exception {
    for (long pid : pids) {
      ProcessHandle process = ProcessHandle.of(pid).orElse(null);
      if (process == null || !process.isAlive()) {
        continue;
      }
      Set<String> leftovers = CounterServeProcess.shmFiles(pid);
      leftovers.removeAll(CounterServeProcess.shmFiles(ProcessHandle.current().pid()));
      process.destroyForcibly();
      process.onExit().get(30, TimeUnit.SECONDS);
      for (String f : leftovers) {
        Files.deleteIfExists(Path.of(f));
      }
    }
  }

  private static long pid(String line) {
    Matcher m = PID.matcher(line);
    assertTrue(m.find(), line);
    return Long.parseLong(m.group(1));
  }
}
