package dev.fiucx.cli;

import dev.fiucx.perf.Microbenchmarks;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/**
 * {@code fiucx jmh [JMH args...]}: the JMH microbenchmarks of {@code dev.fiucx.perf.jmh}, every
 * argument handed to JMH's own command line ({@code org.openjdk.jmh.Main}), e.g. {@code -prof gc},
 * {@code -f 1 -wi 2 -i 3}, {@code -p count=1}, a benchmark regexp, {@code -l}, {@code -h}. Forks
 * run with this JVM's class path and options (JMH's default) and with {@code
 * --enable-native-access=ALL-UNNAMED} appended; they inherit the environment ({@code
 * UCX_LOG_FILE=stderr} from the launcher). With {@code -prof gc} it also adds fiucx's {@code
 * WorkerAllocationProfiler}, whose {@code alloc.worker.norm} counts the benchmark thread alone.
 */
@Command(
    name = "jmh",
    description = {
      "Run the JMH microbenchmarks; every argument goes to JMH (try `fiucx jmh -h`, `-l`).",
      "Example: fiucx jmh -prof gc -f 1 -wi 2 -i 3 -w 1s -r 1s FetchSumUint64.latency"
    })
final class JmhCommand implements Callable<Integer> {
  static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";
  static final String WORKER_ALLOCATION = Microbenchmarks.WORKER_ALLOCATION_PROFILER;

  @Unmatched List<String> args = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    Microbenchmarks.run(jmhArguments(args));
    return 0;
  }

  /**
   * The arguments with {@link #NATIVE_ACCESS} in the forks' {@code -jvmArgsAppend} (added to the
   * user's value when one is given, else as a new option) and, when a run asks for {@code -prof
   * gc}, the {@link #WORKER_ALLOCATION} profiler beside it.
   */
  static List<String> jmhArguments(List<String> given) {
    List<String> out = new ArrayList<>(given);
    for (int p = 0; p + 1 < given.size(); p++) {
      if (given.get(p).equals("-prof")
          && given.get(p + 1).equals("gc")
          && !given.contains(WORKER_ALLOCATION)) {
        out.add("-prof");
        out.add(WORKER_ALLOCATION);
        break;
      }
    }
    int i = out.indexOf("-jvmArgsAppend");
    if (i >= 0 && i + 1 < out.size()) {
      if (!out.get(i + 1).contains(NATIVE_ACCESS)) {
        out.set(i + 1, out.get(i + 1) + " " + NATIVE_ACCESS);
      }
    } else if (i < 0) {
      out.add("-jvmArgsAppend");
      out.add(NATIVE_ACCESS);
    }
    return out;
  }
}
