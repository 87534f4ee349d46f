package dev.fiucx.cli;

import dev.fiucx.conformance.remote.FaultRun.Fault;
import dev.fiucx.conformance.remote.JavaCommand;
import dev.fiucx.conformance.remote.MixedLoadProcess;
import dev.fiucx.conformance.remote.RemoteTarget;
import dev.fiucx.conformance.remote.Tickets;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code fiucx soak}: rounds of the mixed load (native, CAS-loop and remote-lock fetching ops from
 * several initiator processes and threads, see {@link MixedLoadProcess}) against one long-lived
 * target for a given time, checking after every round that each element holds exactly the number of
 * ops done on it so far and that every ticket of the round was fetched once. Once a minute it
 * prints what a leak would show: the target's resident memory, open file descriptors and threads,
 * {@code /dev/shm}'s use, and the last initiator's request-slot use. With {@code --faults} it
 * injects faults instead ({@link FaultSoak}).
 */
@Command(
    name = "soak",
    mixinStandardHelpOptions = true,
    description =
        "Run the mixed load against one target for a while; print memory, fds, threads and"
            + " request slots each minute; exit 1 when a round was not exact.")
final class SoakCommand implements Callable<Integer>, ProviderGate.OpensProvider {
  @Option(
      names = "--minutes",
      defaultValue = "10",
      description = "how long (default ${DEFAULT-VALUE})")
  double minutes;

  @Option(names = "--transport", defaultValue = "shm", description = "shm or tcp (default shm)")
  String transport;

  @Option(names = "--processes", defaultValue = "2", description = "initiator processes per round")
  int processes;

  @Option(names = "--threads", defaultValue = "4", description = "threads (endpoints) per process")
  int threads;

  @Option(
      names = "--ops",
      defaultValue = "30000",
      description = "fetching ops per thread per round (default ${DEFAULT-VALUE})")
  int ops;

  @Option(
      names = "--faults",
      description =
          "inject faults instead (partitions, pauses, kills, a flapping link, a serve restarted:"
              + " each in turn, over tcp between network namespaces and over shm; needs root) and"
              + " check what became of every operation")
  boolean faults;

  @Option(
      names = "--fault",
      paramLabel = "NAME",
      description =
          "with --faults: only this fault (repeat for several; default every one): ${COMPLETION-CANDIDATES}")
  List<Fault> only = new ArrayList<>();

  @Override
  public String providerToOpen() {
    return "ucx";
  }

  @Override
  public Integer call() throws Exception {
    if (faults) {
      return FaultSoak.run(minutes, only.isEmpty() ? List.of(Fault.values()) : only, System.out);
    }
    long deadline = System.nanoTime() + (long) (minutes * 60e9);
    long started = System.nanoTime();
    long nextReport = started;
    Path dir = Files.createTempDirectory("fiucx-soak");
    long natives = 0;
    long cas = 0;
    long locked = 0;
    int rounds = 0;
    String slots = "-";
    try (RemoteTarget target =
        new RemoteTarget(
            "ucx", transport, MixedLoadProcess.REGION_BYTES, false, false, List.of())) {
      System.out.printf(
          "soak: %s, %d processes x %d threads x %d ops per round, for %.1f min; target pid %d%n",
          transport, processes, threads, ops, minutes, target.pid());
      System.out.println(
          "  min  rounds        ops  target_rss_kB  target_fds  target_threads  dev_shm_kB  slots");
      while (System.nanoTime() - deadline < 0) {
        if (System.nanoTime() - nextReport >= 0) {
          report(started, rounds, natives + cas + locked, target.pid(), slots);
          nextReport += 60_000_000_000L;
        }
        List<Process> children = new ArrayList<>();
        for (int p = 0; p < processes; p++) {
          children.add(
              new ProcessBuilder(
                      JavaCommand.of(
                          List.of(),
                          MixedLoadProcess.class,
                          "ucx",
                          transport,
                          HexFormat.of().formatHex(target.address()),
                          Long.toString(target.key()),
                          Integer.toString(ops),
                          Integer.toString(threads),
                          dir.resolve("p" + p).toString()))
                  .redirectErrorStream(true)
                  .redirectOutput(dir.resolve("p" + p + ".log").toFile())
                  .start());
        }
        for (int p = 0; p < processes; p++) {
          Process child = children.get(p);
          if (!child.waitFor(10, TimeUnit.MINUTES) || child.exitValue() != 0) {
            children.forEach(Process::destroyForcibly);
            System.out.println("soak: round " + rounds + ", process " + p + " failed; its output:");
            System.out.println(Files.readString(dir.resolve("p" + p + ".log")));
            return 1;
          }
          slots = lastSlots(dir.resolve("p" + p + ".log"), slots);
        }
        long perMechanism = (long) processes * threads;
        String problem =
            check(dir, ".native", natives, perMechanism * MixedLoadProcess.share(ops, 0));
        problem =
            problem != null
                ? problem
                : check(dir, ".cas", cas, perMechanism * MixedLoadProcess.share(ops, 1));
        problem =
            problem != null
                ? problem
                : check(dir, ".lock", locked, perMechanism * MixedLoadProcess.share(ops, 2));
        natives += perMechanism * MixedLoadProcess.share(ops, 0);
        cas += perMechanism * MixedLoadProcess.share(ops, 1);
        locked += perMechanism * MixedLoadProcess.share(ops, 2);
        ByteBuffer b =
            ByteBuffer.wrap(target.get(0, (int) MixedLoadProcess.REGION_BYTES))
                .order(ByteOrder.LITTLE_ENDIAN);
        if (problem == null
            && (b.getLong((int) MixedLoadProcess.NATIVE_OFFSET) != natives
                || b.getDouble((int) MixedLoadProcess.CAS_OFFSET) != cas
                || b.getDouble((int) MixedLoadProcess.LOCK_OFFSET) != locked
                || b.getDouble((int) MixedLoadProcess.LOCK_OFFSET + 8) != 2.0 * locked)) {
          problem = "the target's elements do not hold the ops done on them";
        }
        rounds++;
        if (problem != null) {
          System.out.println("soak: round " + rounds + ": " + problem);
          return 1;
        }
      }
      report(started, rounds, natives + cas + locked, target.pid(), slots);
    } finally {
      try (Stream<Path> files = Files.list(dir)) {
        for (Path f : files.toList()) {
          Files.deleteIfExists(f);
        }
      }
      Files.deleteIfExists(dir);
    }
    System.out.printf("soak: %d rounds, every one exact%n", rounds);
    return 0;
  }

  private String check(Path dir, String suffix, long base, long expected) throws IOException {
    List<Path> files = new ArrayList<>();
    for (int p = 0; p < processes; p++) {
      files.add(dir.resolve("p" + p + suffix));
    }
    String problem = Tickets.problem(Tickets.read(files), base, expected);
    return problem == null ? null : suffix.substring(1) + ": " + problem;
  }

  private static String lastSlots(Path log, String previous) throws IOException {
    String slots = previous;
    for (String line : Files.readAllLines(log)) {
      if (line.startsWith("SLOTS ")) {
        slots = line.substring(6);
      }
    }
    return slots;
  }

  private static void report(long started, int rounds, long ops, long pid, String slots) {
    System.out.printf(
        "%5.1f  %6d  %9d  %13d  %10d  %14d  %10d  %s%n",
        (System.nanoTime() - started) / 60e9,
        rounds,
        ops,
        status(pid, "VmRSS:"),
        count(Path.of("/proc", Long.toString(pid), "fd")),
        status(pid, "Threads:"),
        devShmKilobytes(),
        slots);
  }

  /** A number from /proc/PID/status (kB for memory), or -1. */
  private static long status(long pid, String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith(field)) {
          return Long.parseLong(line.substring(field.length()).trim().split("\\s+")[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  private static long count(Path dir) {
    try (Stream<Path> s = Files.list(dir)) {
      return s.count();
    } catch (IOException e) {
      return -1;
    }
  }

  private static long devShmKilobytes() {
    try (Stream<Path> s = Files.list(Path.of("/dev/shm"))) {
      return s.mapToLong(
                  f -> {
                    try {
                      return Files.size(f);
                    } catch (IOException e) {
                      return 0;
                    }
                  })
              .sum()
          / 1024;
    } catch (IOException e) {
      return -1;
    }
  }
}
