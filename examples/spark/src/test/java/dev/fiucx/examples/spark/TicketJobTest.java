package dev.fiucx.examples.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.Connection;
import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.PeerRegion;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkException;
import org.apache.spark.SparkExecutorInfo;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The ticket job in {@code local[4]} against a counter served by another process over shared
 * memory: every record's ticket, the counter, and one connection for all tasks of the executor JVM
 * (this one), checked exactly, from the driver's side and from the target's.
 */
@RequiresProvider("ucx")
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class TicketJobTest {
  private static final int RECORDS = 300_000;
  private static final int PARTITIONS = 16;

  private static JavaSparkContext sc;

  /** Four executor threads in this JVM, on loopback only, no web UI. */
  static SparkConf local4() {
    return new SparkConf()
        .setMaster("local[4]")
        .setAppName("fiucx ticket job test")
        .set("spark.driver.host", "127.0.0.1")
        .set("spark.driver.bindAddress", "127.0.0.1")
        .set("spark.ui.enabled", "false");
  }

  @BeforeAll
  static void startSpark() {
    sc = new JavaSparkContext(local4());
  }

  @AfterAll
  static void stopSpark() {
    try {
      ExecutorConnections.closeAll();
    } finally {
      sc.close();
    }
  }

  @Test
  void tasksTakeTicketsZeroToNMinusOneEachOnceThroughOneConnection() throws Exception {
    try (CounterServeProcess serve = CounterServeProcess.start("shm")) {
      long connectsBefore = ExecutorConnections.connects();
      long endpointsBefore = ExecutorConnections.endpointsOpened();
      TicketJob.Report report;
      try {
        report = TicketJob.run(sc, serve.target(), TicketJob.DEFAULT_REGION, RECORDS, PARTITIONS);
      } finally {
        ExecutorConnections.closeAll();
      }
      report.lines().forEach(System.out::println);

      assertEquals(List.of(), report.problems());
      assertEquals(0, report.base());
      assertEquals(RECORDS, report.counter());
      long[] tickets =
          report.tasks().stream().flatMapToLong(t -> LongStream.of(t.tickets())).sorted().toArray();
      assertArrayEquals(LongStream.range(0, RECORDS).toArray(), tickets);
      // one task per partition, each with its partition's records
      assertEquals(
          IntStream.range(0, PARTITIONS).boxed().toList(),
          report.tasks().stream().map(TaskTickets::partition).toList());
      report.tasks().forEach(t -> assertEquals(RECORDS / PARTITIONS, t.tickets().length));

      // all 16 tasks used the executor JVM's one connection, from more than one task thread, and
      // an endpoint per running task: local[4] runs at most 4 at once
      assertEquals(1, ExecutorConnections.connects() - connectsBefore);
      long endpoints = ExecutorConnections.endpointsOpened() - endpointsBefore;
      assertTrue(endpoints >= 1 && endpoints <= 4, endpoints + " endpoints for 16 tasks");
      // the serve's memory is mapped into this JVM: every fetch was a CPU atomic
      assertEquals(Map.of("mapped", PARTITIONS), report.paths());
      assertEquals(Map.of("driver", 1), report.connectionsPerExecutor());
      long threads = report.tasks().stream().map(TaskTickets::thread).distinct().count();
      assertTrue(threads > 1, threads + " task threads");

      // the target saw two initiators (the driver's reads, the executor's tasks), both gone now
      serve.awaitLines("DEPARTED ", 2);
      assertEquals(RECORDS, serve.stop());
      assertEquals(2, serve.lines().stream().filter(l -> l.startsWith("CONNECTED ")).count());
      assertEquals(2, serve.lines().stream().filter(l -> l.startsWith("DEPARTED ")).count());
    }
  }

  @Test
  void overTcpAsExecutorsOnOtherHostsReachTheServe() throws Exception {
    int records = 20_000;
    try (CounterServeProcess serve = CounterServeProcess.start("tcp")) {
      long connectsBefore = ExecutorConnections.connects();
      TicketJob.Report report;
      try {
        report = TicketJob.run(sc, serve.target(), TicketJob.DEFAULT_REGION, records, PARTITIONS);
      } finally {
        ExecutorConnections.closeAll();
      }
      report.lines().forEach(System.out::println);

      assertEquals(List.of(), report.problems());
      assertEquals(records, report.counter());
      assertArrayEquals(
          LongStream.range(0, records).toArray(),
          report.tasks().stream()
              .flatMapToLong(t -> LongStream.of(t.tickets()))
              .sorted()
              .toArray());
      assertEquals(1, ExecutorConnections.connects() - connectsBefore);
      assertEquals(Map.of("ucp", PARTITIONS), report.paths());
      serve.awaitLines("DEPARTED ", 2);
      assertEquals(records, serve.stop());
    }
  }

  @Test
  void aServeThatStopsMidJobFailsTheJobWithTheFetchErrorInsteadOfHanging() throws Exception {
    // far more records than the job can take before the serve stops (at most 0.5 M/s here)
    int records = 20_000_000;
    try (CounterServeProcess serve = CounterServeProcess.start("shm");
        Connection watcher = Fabric.connect(serve.target(), DomainAttr.defaults())) {
      PeerRegion counter = watcher.region(TicketJob.DEFAULT_REGION);
      CompletableFuture<TicketJob.Report> job =
          CompletableFuture.supplyAsync(
              () -> TicketJob.run(sc, serve.target(), TicketJob.DEFAULT_REGION, records, 16));
      try {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (TicketJob.readCounter(watcher, counter) < 100_000) {
          assertTrue(System.nanoTime() < deadline, "the job took no 100,000 tickets in 60 s");
          Thread.sleep(20);
        }
        long atStop = serve.stop();
        assertTrue(atStop >= 100_000 && atStop < records, atStop + " tickets at the stop");

        ExecutionException failed =
            assertThrows(ExecutionException.class, () -> job.get(60, TimeUnit.SECONDS));
        assertTrue(failed.getCause() instanceof SparkException, failed.getCause().toString());
        assertTrue(
            Pattern.compile("dev\\.fiucx\\.FiException: FI_E(KEYREJECTED|CONNRESET)")
                .matcher(failed.getCause().getMessage())
                .find(),
            failed.getCause().getMessage());
      } finally {
        job.handle((report, error) -> null).get(60, TimeUnit.SECONDS);
        awaitNoRunningTasks();
        ExecutorConnections.closeAll();
      }
    }
  }

  @Test
  void aServeRestartedOnItsPortIsReconnectedAfterOneFailedJob() throws Exception {
    long connectsBefore = ExecutorConnections.connects();
    int records = 1_000;
    try {
      int port;
      try (CounterServeProcess first = CounterServeProcess.start("shm")) {
        port = first.port();
        TicketJob.Report report =
            TicketJob.run(sc, first.target(), TicketJob.DEFAULT_REGION, records, 4);
        assertEquals(List.of(), report.problems());
        // the executor keeps its connection, as a long-lived one does; the serve goes away
        assertEquals(records, first.stop());
      }
      try (CounterServeProcess second = CounterServeProcess.start("shm", port)) {
        // the executor's connection still leads to the first serve, whose key it dropped
        SparkException stale =
            assertThrows(
                SparkException.class,
                () -> TicketJob.run(sc, second.target(), TicketJob.DEFAULT_REGION, records, 4));
        assertTrue(
            Pattern.compile("dev\\.fiucx\\.FiException: FI_E(KEYREJECTED|CONNRESET)")
                .matcher(stale.getMessage())
                .find(),
            stale.getMessage());
        awaitNoRunningTasks();

        // the first failure retired that connection: tasks that started after it connected to the
        // second serve and took their partitions' tickets (250 each) before the job was aborted;
        // the next job uses that connection, or makes it
        TicketJob.Report report =
            TicketJob.run(sc, second.target(), TicketJob.DEFAULT_REGION, records, 4);
        assertEquals(List.of(), report.problems());
        assertTrue(
            report.base() < records && report.base() % (records / 4) == 0,
            report.base() + " tickets taken by the failed job");
        assertEquals(2, ExecutorConnections.connects() - connectsBefore);
        assertEquals(Map.of("driver", 1), report.connectionsPerExecutor());
        ExecutorConnections.closeAll();
        // two drivers' reads and one executor's tasks, all gone
        second.awaitLines("DEPARTED ", 3);
        assertEquals(report.base() + records, second.stop());
        assertEquals(3, second.lines().stream().filter(l -> l.startsWith("CONNECTED ")).count());
      }
    } finally {
      ExecutorConnections.closeAll();
    }
  }

  /** Waits (up to 60 s) until no task runs: the tasks of an aborted job end after the job. */
  private static void awaitNoRunningTasks() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (Arrays.stream(sc.sc().statusTracker().getExecutorInfos())
            .mapToInt(SparkExecutorInfo::numRunningTasks)
            .sum()
        > 0) {
      assertTrue(System.nanoTime() < deadline, "tasks still running 60 s after the job ended");
      Thread.sleep(20);
    }
  }

  @Test
  void aRegionThatCannotHoldTheCounterIsRefusedBeforeAnyTask() throws Exception {
    try (CounterServeProcess serve = CounterServeProcess.start("shm")) {
      FiException missing =
          assertThrows(
              FiException.class, () -> TicketJob.run(sc, serve.target(), "counter", 10, 2));
      assertEquals(FiErrno.ENOENT, missing.errno());
      assertEquals(
          "FI_ENOENT: no such entry: "
              + serve.target()
              + " serves no region 'counter'; it serves: tickets, read-only",
          missing.getMessage());

      FiException readOnly =
          assertThrows(
              FiException.class, () -> TicketJob.run(sc, serve.target(), "read-only", 10, 2));
      assertEquals(FiErrno.EINVAL, readOnly.errno());
      assertEquals(
          "FI_EINVAL: invalid argument: region 'read-only' of "
              + serve.target()
              + " cannot hold the counter: it needs 8 bytes, read and write, and has 8 bytes,"
              + " access 0x1000",
          readOnly.getMessage());

      assertEquals(0, serve.stop());
    }
  }
}
