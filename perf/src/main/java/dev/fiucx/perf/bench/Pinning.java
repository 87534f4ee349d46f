package dev.fiucx.perf.bench;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code -c}: a measuring thread pins itself to a CPU set with {@code sched_setaffinity(2)} (pid 0:
 * the calling thread; through FFM), then reads back what the kernel now allows it from {@code
 * /proc/thread-self/status}. Only the measuring threads are pinned: the JVM's compiler, collector
 * and the provider's progress thread, and the target, stay where the scheduler puts them.
 * ucx_perftest's {@code -c} sets the process's affinity to the list, which its threads inherit;
 * here every measuring thread gets the whole list, the same set.
 */
final class Pinning {
  /** glibc's {@code cpu_set_t}: 1024 CPUs; a larger set passes more bytes, as CPU_ALLOC does. */
  private static final long MIN_MASK_BYTES = 128;

  private Pinning() {}

  /** The downcall, made once; null where the C library has no sched_setaffinity. */
  private static final class Native {
    static final MethodHandle SET_AFFINITY = setAffinity();

    /** Where the downcall leaves errno. */
    static final MemoryLayout STATE = Linker.Option.captureStateLayout();

    static final VarHandle ERRNO =
        STATE.varHandle(MemoryLayout.PathElement.groupElement("errno")).withInvokeExactBehavior();

    @SuppressWarnings("restricted") // a downcall handle is a restricted method
    private static MethodHandle setAffinity() {
      Linker linker = Linker.nativeLinker();
      return linker
          .defaultLookup()
          .find("sched_setaffinity")
          .map(
              a ->
                  linker.downcallHandle(
                      a,
                      FunctionDescriptor.of(
                          ValueLayout.JAVA_INT,
                          ValueLayout.JAVA_INT,
                          ValueLayout.JAVA_LONG,
                          ValueLayout.ADDRESS),
                      Linker.Option.captureCallState("errno")))
          .orElse(null);
    }
  }

  /**
   * Pins the calling thread to {@code cpus}.
   *
   * @throws IllegalStateException when the kernel refuses (errno named) or there is no
   *     sched_setaffinity
   */
  static void pinCurrentThread(CpuSet cpus) {
    MethodHandle set = Native.SET_AFFINITY;
    if (set == null) {
      throw new IllegalStateException("-c needs sched_setaffinity (Linux's C library)");
    }
    long bytes = Math.max(MIN_MASK_BYTES, (cpus.highest() / 64 + 1) * 8L);
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment mask = arena.allocate(bytes, 8);
      for (int cpu : cpus.cpus()) {
        long word = mask.getAtIndex(ValueLayout.JAVA_LONG, cpu / 64);
        mask.setAtIndex(ValueLayout.JAVA_LONG, cpu / 64, word | 1L << (cpu % 64));
      }
      MemorySegment state = arena.allocate(Native.STATE);
      int rc = (int) set.invokeExact(state, 0, bytes, mask);
      if (rc != 0) {
        int errno = (int) Native.ERRNO.get(state, 0L);
        throw new IllegalStateException(
            "sched_setaffinity(CPUs " + cpus + ") failed: " + errnoText(errno));
      }
    } catch (IllegalStateException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException("sched_setaffinity(CPUs " + cpus + ")", t);
    }
  }

  /**
   * The calling thread's {@code Cpus_allowed_list}, as the kernel shows it in {@code
   * /proc/thread-self/status} (which names whichever thread opens it).
   */
  static String allowedOfCurrentThread() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/thread-self/status"))) {
        if (line.startsWith("Cpus_allowed_list:")) {
          return line.substring("Cpus_allowed_list:".length()).trim();
        }
      }
      throw new IllegalStateException("/proc/thread-self/status has no Cpus_allowed_list");
    } catch (IOException e) {
      throw new IllegalStateException("cannot read /proc/thread-self/status: " + e.getMessage(), e);
    }
  }

  /**
   * Pins the calling thread and reads back what it is allowed; throws when that is not exactly
   * {@code cpus}.
   *
   * @return the thread's {@code Cpus_allowed_list} after pinning
   */
  static String pinAndCheck(CpuSet cpus) {
    pinCurrentThread(cpus);
    String allowed = allowedOfCurrentThread();
    if (!CpuSet.parse(allowed).equals(cpus)) {
      throw new IllegalStateException(
          "pinned to CPUs " + cpus + ", the kernel allows this thread " + allowed);
    }
    return allowed;
  }

  /**
   * Whether a thread can be pinned to {@code cpus} here: a thread of its own tries, so no thread
   * that lives on is moved.
   *
   * @return null when it can, else why not
   */
  static String whyNot(CpuSet cpus) {
    String[] why = new String[1];
    Thread probe =
        Thread.ofPlatform()
            .name("fiucx-bench-pin-probe")
            .start(
                () -> {
                  try {
                    pinAndCheck(cpus);
                  } catch (RuntimeException e) {
                    why[0] = e.getMessage();
                  }
                });
    try {
      probe.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
    return why[0];
  }

  private static String errnoText(int errno) {
    return switch (errno) {
      case 22 -> "EINVAL (none of these CPUs is one this process may use: its cpuset?)";
      case 1 -> "EPERM";
      case 3 -> "ESRCH";
      case 14 -> "EFAULT";
      default -> "errno " + errno;
    };
  }
}
