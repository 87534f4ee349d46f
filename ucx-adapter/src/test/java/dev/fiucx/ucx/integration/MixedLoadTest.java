package dev.fiucx.ucx.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fiucx.conformance.remote.JavaCommand;
import dev.fiucx.conformance.remote.MixedLoadProcess;
import dev.fiucx.conformance.remote.RemoteTarget;
import dev.fiucx.conformance.remote.Tickets;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Load: two initiator processes, each with four threads on their own endpoints, do fetching ops on
 * three elements of one target, one element per mechanism (native UINT64 SUM, CAS-loop DOUBLE SUM,
 * remote-lock DOUBLE_COMPLEX SUM; see {@link MixedLoadProcess}). Every element ends at exactly the
 * number of ops on it, every ticket 0..N-1 of each element was fetched exactly once across all
 * threads of both processes, and no lock-guarded element was ever seen torn.
 */
@RequiresProvider("ucx")
class MixedLoadTest {
  private static final int PROCESSES = 2;
  private static final int THREADS = 4;

  @TempDir Path dir;

  @ParameterizedTest(name = "{0}: {1} processes x {2} threads x {3} mixed fetching ops")
  @CsvSource({"shm, 2, 4, 125000", "tcp, 2, 4, 1500"})
  void exactTotalsAndEveryTicketOnce(String transport, int processes, int threads, int n)
      throws Exception {
    try (RemoteTarget target =
        new RemoteTarget(
            "ucx", transport, MixedLoadProcess.REGION_BYTES, false, false, List.of())) {
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
                        Integer.toString(n),
                        Integer.toString(threads),
                        dir.resolve("p" + p).toString()))
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("p" + p + ".log").toFile())
                .start());
      }
      for (int p = 0; p < processes; p++) {
        Process child = children.get(p);
        if (!child.waitFor(10, TimeUnit.MINUTES)) {
          children.forEach(Process::destroyForcibly);
          throw new AssertionError("a load process did not finish");
        }
        String log = Files.readString(dir.resolve("p" + p + ".log"));
        assertEquals(0, child.exitValue(), () -> "load process exit status; its output:\n" + log);
      }
      long perMechanism = (long) processes * threads;
      long natives = perMechanism * MixedLoadProcess.share(n, 0);
      long cas = perMechanism * MixedLoadProcess.share(n, 1);
      long locked = perMechanism * MixedLoadProcess.share(n, 2);
      byte[] memory = target.get(0, (int) MixedLoadProcess.REGION_BYTES);
      ByteBuffer b = ByteBuffer.wrap(memory).order(ByteOrder.LITTLE_ENDIAN);
      assertEquals(natives, b.getLong((int) MixedLoadProcess.NATIVE_OFFSET), "native UINT64 SUM");
      assertEquals((double) cas, b.getDouble((int) MixedLoadProcess.CAS_OFFSET), "CAS DOUBLE SUM");
      assertEquals(
          (double) locked, b.getDouble((int) MixedLoadProcess.LOCK_OFFSET), "lock SUM, real");
      assertEquals(
          2.0 * locked, b.getDouble((int) MixedLoadProcess.LOCK_OFFSET + 8), "lock SUM, imaginary");
      assertEveryTicketOnce(".native", processes, natives);
      assertEveryTicketOnce(".cas", processes, cas);
      assertEveryTicketOnce(".lock", processes, locked);
    }
  }

  private void assertEveryTicketOnce(String suffix, int processes, long total) throws IOException {
    List<Path> files = new ArrayList<>();
    for (int p = 0; p < processes; p++) {
      files.add(dir.resolve("p" + p + suffix));
    }
    String problem = Tickets.problem(Tickets.read(files), 0, total);
    if (problem != null) {
      throw new AssertionError(suffix + ": " + problem);
    }
  }
}
