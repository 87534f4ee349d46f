package dev.fiucx.ucx.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.fiucx.conformance.remote.FetchAddProcess;
import dev.fiucx.conformance.remote.JavaCommand;
import dev.fiucx.conformance.remote.NetworkNamespaces;
import dev.fiucx.conformance.remote.RemoteTarget;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.io.DataInputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two hosts (network namespaces joined by veth): the initiator in one, the target in the other. */
@RequiresProvider("ucx")
class NamespacesTest {
  @TempDir Path dir;

  @Test
  void fetchSumsCrossFromOneHostToTheOtherOverTcp() throws Exception {
    assumeTrue(NetworkNamespaces.available(), "needs root and iproute2 to create namespaces");
    int n = 10_000;
    try (NetworkNamespaces hosts = new NetworkNamespaces();
        RemoteTarget target = new RemoteTarget("ucx", "tcp", 64, false, false, hosts.prefix(1))) {
      Path out = dir.resolve("fetched.bin");
      List<String> cmd =
          JavaCommand.of(
              hosts.prefix(0),
              FetchAddProcess.class,
              "ucx",
              "tcp",
              HexFormat.of().formatHex(target.address()),
              Long.toString(target.key()),
              Integer.toString(n),
              out.toString());
      Process initiator = JavaCommand.inheritingIo(cmd).start();
      if (!initiator.waitFor(120, TimeUnit.SECONDS)) {
        initiator.destroyForcibly();
        throw new AssertionError("the initiator in the other namespace did not finish");
      }
      assertEquals(0, initiator.exitValue());
      try (DataInputStream in = new DataInputStream(Files.newInputStream(out))) {
        for (long i = 0; i < n; i++) {
          assertEquals(i, in.readLong());
        }
      }
      assertEquals(n, ByteBuffer.wrap(target.get(0, 8)).order(ByteOrder.LITTLE_ENDIAN).getLong());
    }
  }
}
