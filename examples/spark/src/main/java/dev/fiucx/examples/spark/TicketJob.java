package dev.fiucx.examples.spark;

import dev.fiucx.AtomicRegion;
import dev.fiucx.ConnectedEndpoint;
import dev.fiucx.Connection;
import dev.fiucx.Fabric;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.FiFlags;
import dev.fiucx.PeerRegion;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * Spark tasks take tickets from one remote counter: a {@code fiucx serve} exposes a region whose
 * first 8 bytes are a {@code FI_UINT64} counter; every task reaches it through its executor JVM's
 * one connection ({@link ExecutorConnections}) with an endpoint of its own and does a fetching
 * {@code FI_SUM} of 1 per record; the driver collects the fetched values and checks that they are
 * exactly {@code base .. base + records - 1}, each once, and that the counter moved by exactly
 * {@code records} ({@link TicketCheck}). That is a global, exactly-once numbering of records made
 * while the job runs, across executors and hosts, with one remote atomic per record.
 *
 * <p>Run it with {@code spark-submit} (see {@code examples/spark/README.md}): {@code HOST:PORT
 * RECORDS [PARTITIONS [REGION]]}; exit status 0 when the tickets were exact, 1 when not or when the
 * job failed, 2 on bad arguments.
 */
public final class TicketJob {
  /** The region {@code fiucx serve --region tickets:8} serves. */
  public static final String DEFAULT_REGION = "tickets";

  private TicketJob() {}

  /**
   * What a run found.
   *
   * @param base the counter before the job: the first ticket
   * @param counter the counter after the job
   * @param problems {@link TicketCheck}'s findings; empty when the tickets were exact
   */
  public record Report(
      String target,
      String region,
      long records,
      long base,
      long counter,
      List<TaskTickets> tasks,
      List<String> problems,
      long nanos) {

    public boolean exact() {
      return problems.isEmpty();
    }

    /** How many connections each executor made (by executor id); 1 each when they were reused. */
    public Map<String, Integer> connectionsPerExecutor() {
      Map<String, Set<Long>> serials = new TreeMap<>();
      for (TaskTickets t : tasks) {
        serials.computeIfAbsent(t.executor(), e -> new TreeSet<>()).add(t.connection());
      }
      Map<String, Integer> counts = new TreeMap<>();
      serials.forEach((executor, s) -> counts.put(executor, s.size()));
      return counts;
    }

    /** How many tasks took each path to the counter ({@code mapped}, {@code ucp}). */
    public Map<String, Integer> paths() {
      Map<String, Integer> counts = new TreeMap<>();
      tasks.forEach(t -> counts.merge(t.path(), 1, Integer::sum));
      return counts;
    }

    /** The report as the command prints it. */
    public List<String> lines() {
      List<String> lines = new ArrayList<>();
      Set<String> threads = new TreeSet<>();
      tasks.forEach(t -> threads.add(t.executor() + "/" + t.thread()));
      lines.add(
          String.format(
              "fiucx ticket job: %,d records in %d tasks, counter '%s' of %s",
              records, tasks.size(), region, target));
      lines.add(
          String.format(
              "  executors %d, task threads %d, connections per executor %s",
              connectionsPerExecutor().size(), threads.size(), connectionsPerExecutor()));
      double seconds = nanos / 1e9;
      lines.add(
          String.format(
              "  job took %.2f s: %,.0f tickets/s; tasks by path to the counter %s",
              seconds, records / Math.max(seconds, 1e-9), paths()));
      if (exact()) {
        lines.add(
            String.format(
                "  exact: tickets %,d .. %,d each once, counter %,d -> %,d",
                base, base + records - 1, base, counter));
      } else {
        lines.add("  NOT EXACT (counter " + base + " -> " + counter + "):");
        problems.forEach(p -> lines.add("    " + p));
      }
      return lines;
    }
  }

  /**
   * Runs the job on {@code sc}: reads the counter, takes one ticket per record in {@code
   * partitions} tasks, reads the counter again and checks the tickets. The driver uses a connection
   * of its own for its two reads.
   *
   * @param target {@code host:port} of a {@code fiucx serve}
   * @param region the served region whose first 8 bytes are the counter
   * @param records 0 .. 2^31-1
   */
  public static Report run(
      JavaSparkContext sc, String target, String region, long records, int partitions) {
    if (records < 0 || records > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("records must be 0 .. 2^31-1, not " + records);
    }
    if (partitions < 1) {
      throw new IllegalArgumentException("partitions must be at least 1, not " + partitions);
    }
    try (Connection driver = Fabric.connect(target, ExecutorConnections.attributes())) {
      PeerRegion counter = counterRegion(driver, region);
      long base = readCounter(driver, counter);
      long start = System.nanoTime();
      List<TaskTickets> tasks = takeTickets(sc, target, region, records, partitions);
      long nanos = System.nanoTime() - start;
      long end = readCounter(driver, counter);
      List<long[]> tickets = tasks.stream().map(TaskTickets::tickets).toList();
      return new Report(
          target,
          region,
          records,
          base,
          end,
          tasks,
          TicketCheck.problems(tickets, base, records, end),
          nanos);
    }
  }

  /** The job itself: {@code records} records in {@code partitions} tasks, one ticket each. */
  static List<TaskTickets> takeTickets(
      JavaSparkContext sc, String target, String region, long records, int partitions) {
    return sc.sc()
        .range(0, records, 1, partitions)
        .toJavaRDD()
        .mapPartitions(rows -> List.of(takeTask(target, region, rows)).iterator())
        .collect();
  }

  /** One task, on an executor: this JVM's connection, an endpoint of the task's own. */
  private static TaskTickets takeTask(String target, String region, Iterator<?> rows) {
    ExecutorConnections.Held held = ExecutorConnections.get(target);
    PeerRegion counter = held.connection().region(region);
    ConnectedEndpoint ep = held.borrow();
    long[] tickets;
    try {
      tickets = new TicketTaker(ep, counter).take(rows);
    } catch (RuntimeException | Error e) {
      // fetches may still be in flight and completions queued: this endpoint serves no other task
      ep.close();
      if (e instanceof FiException) {
        ExecutorConnections.retire(target, held);
      }
      throw e;
    }
    String path = ep.endpoint().atomicPath(ep.peer(), counter.key());
    held.giveBack(ep); // another task's from here on
    return new TaskTickets(
        TaskContext.getPartitionId(),
        SparkEnv.get().executorId(),
        Thread.currentThread().threadId(),
        held.serial(),
        path,
        tickets);
  }

  /** The region, refused unless it holds a counter that fetching adds may read and write. */
  private static PeerRegion counterRegion(Connection connection, String name) {
    PeerRegion region = connection.region(name);
    long readWrite = FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE;
    if (region.length() < 8 || (region.access() & readWrite) != readWrite) {
      throw new FiException(
          FiErrno.EINVAL,
          "region '"
              + name
              + "' of "
              + connection.target()
              + " cannot hold the counter: it needs 8 bytes, read and write, and has "
              + region.length()
              + " bytes, access 0x"
              + Long.toHexString(region.access()));
    }
    return region;
  }

  /**
   * The counter's value, by the typed layer's {@code getLong}: one fetching {@code FI_ATOMIC_READ}
   * of the {@code FI_UINT64} at the region's byte 0, done when it returns.
   */
  static long readCounter(Connection connection, PeerRegion counter) {
    try (AtomicRegion region = connection.openAtomicRegion(counter.name())) {
      return region.getLong(0);
    }
  }

  /** {@code spark-submit ... HOST:PORT RECORDS [PARTITIONS [REGION]]}. */
  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** main without the exit: its status. */
  static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length < 2 || args.length > 4) {
      err.println("usage: TicketJob HOST:PORT RECORDS [PARTITIONS [REGION]]");
      err.println("  HOST:PORT  a fiucx serve exposing REGION (default '" + DEFAULT_REGION + "')");
      err.println("  RECORDS    records, one ticket each (0 .. 2^31-1)");
      err.println("  PARTITIONS tasks (default: 4 per core of the application)");
      return 2;
    }
    long records;
    int partitions = 0;
    try {
      records = Long.parseLong(args[1]);
      if (args.length > 2) {
        partitions = Integer.parseInt(args[2]);
      }
    } catch (NumberFormatException e) {
      err.println("TicketJob: RECORDS and PARTITIONS are numbers: " + e.getMessage());
      return 2;
    }
    String region = args.length > 3 ? args[3] : DEFAULT_REGION;
    if (records < 0 || records > Integer.MAX_VALUE || (args.length > 2 && partitions < 1)) {
      err.println("TicketJob: RECORDS is 0 .. 2^31-1 and PARTITIONS at least 1");
      return 2;
    }
    SparkConf conf = new SparkConf().setAppName("fiucx ticket job");
    try (JavaSparkContext sc = new JavaSparkContext(conf)) {
      int tasks = partitions > 0 ? partitions : 4 * sc.defaultParallelism();
      Report report = run(sc, args[0], region, records, tasks);
      report.lines().forEach(out::println);
      return report.exact() ? 0 : 1;
    } catch (Exception e) { // Spark's failures are checked exceptions Java does not see declared
      err.println("TicketJob: " + e.getMessage());
      return 1;
    } finally {
      // in local[N] the executors are this JVM: their connections go now, not at exit
      ExecutorConnections.closeAll();
    }
  }
}
