package dev.fiucx.perf.jmh;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Makes UCX log to stderr in a JVM that was started without {@code UCX_LOG_FILE} (a JMH fork
 * started by an IDE or by the Runner API): UCX logs to stdout otherwise. UCX reads the variable
 * when its library loads, so this must run before the first domain opens. It never overrides a
 * value that is set.
 */
final class UcxLogToStderr {
  private static volatile boolean done;

  private UcxLogToStderr() {}

  static void ensure() {
    if (done) {
      return;
    }
    synchronized (UcxLogToStderr.class) {
      if (done) {
        return;
      }
      Linker linker = Linker.nativeLinker();
      MethodHandle setenv =
          linker
              .defaultLookup()
              .find("setenv")
              .map(
                  a ->
                      linker.downcallHandle(
                          a,
                          FunctionDescriptor.of(
                              ValueLayout.JAVA_INT,
                              ValueLayout.ADDRESS,
                              ValueLayout.ADDRESS,
                              ValueLayout.JAVA_INT)))
              .orElse(null);
      if (setenv != null) {
        try (Arena arena = Arena.ofConfined()) {
          int rc =
              (int)
                  setenv.invokeExact(
                      arena.allocateFrom("UCX_LOG_FILE"), arena.allocateFrom("stderr"), 0);
          if (rc != 0) {
            System.err.println("fiucx jmh: setenv(UCX_LOG_FILE) failed: " + rc);
          }
        } catch (Throwable t) {
          throw new IllegalStateException("setenv(UCX_LOG_FILE)", t);
        }
      }
      done = true;
    }
  }
}
