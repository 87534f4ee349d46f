package dev.fiucx.perf.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every mechanism can be benchmarked, and the target ends up exactly where the calls put it: the
 * target hands its region back after the run and bench compares every element.
 */
@RequiresProvider("ucx")
class EmulatedCellsBenchTest {
  @TempDir Path dir;

  private JsonNode run(String... args) throws Exception {
    Path json = dir.resolve("run.json");
    String[] all = new String[args.length + 3];
    all[0] = "bench";
    System.arraycopy(args, 0, all, 1, args.length);
    all[args.length + 1] = "--json";
    all[args.length + 2] = json.toString();
    BenchCli.Run r = BenchCli.run(all);
    assertEquals(0, r.exit(), r.err());
    return new ObjectMapper().readTree(json.toFile());
  }

  @Test
  void casLoopCellFetchMinInt64() throws Exception {
    JsonNode root = run("-o", "min", "-z", "int64", "-n", "2000", "-w", "200", "-O", "4");
    assertEquals("CAS_LOOP", root.get("cell").get("mechanism").asText());
    assertEquals(2000, root.get("results").get("ops").asLong());
    // MIN of 1 into 0 leaves 0 every time: checked, and it holds
    assertTrue(root.get("target_check").get("checked").asBoolean());
    assertTrue(root.get("target_check").get("ok").asBoolean());
  }

  @Test
  void remoteLockCellFetchSumDoubleComplexCountsEveryCall() throws Exception {
    JsonNode root =
        run("-o", "sum", "-z", "double_complex", "-n", "700", "-w", "50", "-T", "2", "-O", "3");
    assertEquals("REMOTE_LOCK", root.get("cell").get("mechanism").asText());
    assertEquals(1400, root.get("results").get("ops").asLong());
    JsonNode check = root.get("target_check");
    assertTrue(check.get("checked").asBoolean());
    assertTrue(check.get("ok").asBoolean(), check.toString());
    // each thread's element holds (750, 0): its 700 measured and 50 warm-up sums of 1+0i
    assertTrue(check.get("detail").asText().contains("1500 calls"), check.toString());
  }

  @Test
  void casLoopOnBytesSumsExactly() throws Exception {
    JsonNode root =
        run("-o", "sum", "-z", "int8", "--count", "5", "-n", "300", "-w", "0", "-T", "2");
    assertEquals("CAS_LOOP", root.get("cell").get("mechanism").asText());
    // 300 sums of 1 wrap an int8 to 44 in all five elements of both threads
    assertTrue(root.get("target_check").get("ok").asBoolean());
    assertEquals(3000, root.get("results").get("elements").asLong());
  }
}
