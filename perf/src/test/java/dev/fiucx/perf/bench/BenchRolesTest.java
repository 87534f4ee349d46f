package dev.fiucx.perf.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The target apart from the initiator, and the comparison with ucx_perftest. */
@RequiresProvider("ucx")
class BenchRolesTest {
  @TempDir Path dir;

  @Test
  void connectRunsAgainstAServerStartedApart() throws Exception {
    Path json = dir.resolve("connect.json");
    try (ServerProcess server =
        new ServerProcess("shm", true, List.of(), new PrintStream(System.err))) {
      BenchCli.Run r =
          BenchCli.run(
              "bench",
              "--connect",
              server.host() + ":" + server.port(),
              "-o",
              "write",
              "-n",
              "500",
              "-w",
              "10",
              "--json",
              json.toString());
      assertEquals(0, r.exit(), r.err());
      assertTrue(r.out().contains(":" + server.port()), r.out());
    }
    JsonNode root = new ObjectMapper().readTree(json.toFile());
    assertEquals(false, root.get("inputs").get("target_started_by_bench").asBoolean());
    assertEquals("FI_ATOMIC_WRITE", root.get("inputs").get("op").asText());
    assertTrue(root.get("target_check").get("ok").asBoolean());
  }

  @Test
  void vsUcxPerftestAlternatesRoundsAndRecordsRatios() throws Exception {
    assumeTrue(PerftestRunner.find() != null, "ucx_perftest is not installed");
    Path json = dir.resolve("vs.json");
    BenchCli.Run r =
        BenchCli.run(
            "bench", "--vs-ucx-perftest", "-n", "20000", "-w", "2000", "--json", json.toString());
    assertEquals(0, r.exit(), r.err());
    assertTrue(r.out().contains("vs ucx_perftest -t ucp_fadd -s 8 -O 1"), r.out());
    assertTrue(r.out().contains("latency fiucx/ucx_perftest: median"), r.out());
    JsonNode vs = new ObjectMapper().readTree(json.toFile()).get("vs_ucx_perftest");
    assertEquals(3, vs.get("rounds").asInt());
    assertEquals("latency", vs.get("mode").asText());
    assertEquals("ucp_fadd", vs.get("test").asText());
    assertEquals(3, vs.get("per_round").size());
    assertTrue(vs.get("latency_ratio").asDouble() > 0);
    assertTrue(vs.get("rate_ratio").asDouble() > 0);
    assertTrue(vs.get("latency_ratio_min").asDouble() <= vs.get("latency_ratio").asDouble());
    assertTrue(vs.get("latency_ratio").asDouble() <= vs.get("latency_ratio_max").asDouble());
    for (JsonNode round : vs.get("per_round")) {
      assertEquals(20000, round.get("ucx_perftest").get("iterations").asLong());
      assertEquals(20000, round.get("fiucx").get("ops").asLong());
      // the ratios use the clock-free run that follows each recorded one
      double ratio =
          round.get("fiucx").get("clock_free_overall_latency_us").asDouble()
              / round.get("ucx_perftest").get("overall_latency_us").asDouble();
      assertEquals(ratio, round.get("latency_ratio").asDouble(), 1e-9);
      double rate =
          round.get("fiucx").get("clock_free_ops_per_s").asDouble()
              / round.get("ucx_perftest").get("overall_rate").asDouble();
      assertEquals(rate, round.get("rate_ratio").asDouble(), 1e-9);
    }
  }

  @Test
  void anEmulatedCellIsPutBesideTheNamedPerftestTest() throws Exception {
    assumeTrue(PerftestRunner.find() != null, "ucx_perftest is not installed");
    Path json = dir.resolve("vs-min.json");
    BenchCli.Run r =
        BenchCli.run(
            "bench",
            "-o",
            "min",
            "-z",
            "int64",
            "--vs-ucx-perftest",
            "--perftest-test",
            "ucp_fadd",
            "-n",
            "20000",
            "-w",
            "2000",
            "--json",
            json.toString());
    assertEquals(0, r.exit(), r.err());
    assertTrue(r.out().contains("vs ucx_perftest -t ucp_fadd -s 8 -O 1"), r.out());
    JsonNode root = new ObjectMapper().readTree(json.toFile());
    assertEquals("FI_MIN", root.get("inputs").get("op").asText());
    JsonNode vs = root.get("vs_ucx_perftest");
    assertEquals("ucp_fadd", vs.get("test").asText());
    assertEquals(3, vs.get("per_round").size());
    for (JsonNode round : vs.get("per_round")) {
      assertEquals(20000, round.get("ucx_perftest").get("iterations").asLong());
      assertEquals(20000, round.get("fiucx").get("ops").asLong());
    }
    assertTrue(root.get("target_check").get("ok").asBoolean());
  }
}
