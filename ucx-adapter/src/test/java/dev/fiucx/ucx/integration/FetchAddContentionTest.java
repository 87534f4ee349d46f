package dev.fiucx.ucx.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fiucx.conformance.remote.FetchAddProcess;
import dev.fiucx.conformance.remote.JavaCommand;
import dev.fiucx.conformance.remote.RemoteTarget;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Two initiator processes (this one and a child) do fetching SUMs of 1 on one UINT64 in a third
 * process: the target must end at exactly the total, and the fetched values must be exactly 0 ..
 * total - 1, each once. A lost or doubled update shows as a wrong total or a repeated value.
 */
@RequiresProvider("ucx")
class FetchAddContentionTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "{0}: {1} fetch SUMs")
  @CsvSource({"shm, 1000000", "tcp, 100000"})
  void everyFetchedValueIsDistinctAndTheTotalIsExact(String transport, int total) throws Exception {
    try (RemoteTarget target = new RemoteTarget("ucx", transport, 64, false, false, List.of())) {
      int half = total / 2;
      Path out = dir.resolve("child.bin");
      List<String> cmd =
          JavaCommand.of(
              List.of(),
              FetchAddProcess.class,
              "ucx",
              transport,
              HexFormat.of().formatHex(target.address()),
              Long.toString(target.key()),
              Integer.toString(total - half),
              out.toString());
      Process child = JavaCommand.inheritingIo(cmd).start();
      long[] mine =
          FetchAddProcess.fetchAdd("ucx", transport, target.address(), target.key(), half);
      if (!child.waitFor(300, TimeUnit.SECONDS)) {
        child.destroyForcibly();
        throw new AssertionError("the child initiator did not finish");
      }
      assertEquals(0, child.exitValue(), "child initiator exit status");
      long[] theirs = read(out, total - half);
      long finalValue = ByteBuffer.wrap(target.get(0, 8)).order(ByteOrder.LITTLE_ENDIAN).getLong();
      assertEquals(total, finalValue);
      BitSet seen = new BitSet(total);
      for (long[] values : List.of(mine, theirs)) {
        long previous = -1;
        for (long v : values) {
          if (v < 0 || v >= total || seen.get((int) v)) {
            throw new AssertionError("fetched " + v + " twice or out of range");
          }
          if (v <= previous) {
            throw new AssertionError("one initiator fetched " + v + " after " + previous);
          }
          previous = v;
          seen.set((int) v);
        }
      }
      assertEquals(total, seen.cardinality());
    }
  }

  private static long[] read(Path file, int n) throws IOException {
    long[] v = new long[n];
    try (DataInputStream in = new DataInputStream(Files.newInputStream(file))) {
      for (int i = 0; i < n; i++) {
        v[i] = in.readLong();
      }
    }
    return v;
  }
}
