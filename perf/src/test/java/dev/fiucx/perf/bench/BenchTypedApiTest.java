package dev.fiucx.perf.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code bench --api typed}: the same cell through the typed layer, its target checked and its
 * fetched values kept as the mirror's are; and the cells and windows the layer has no call for,
 * refused as usage errors.
 */
@RequiresProvider("ucx")
class BenchTypedApiTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "{0} {1} {2} --count {3}")
  @CsvSource({
    "shm, sum, uint64, 1",
    "tcp, sum, uint64, 1",
    "shm, sum, double, 1",
    "shm, cswap, uint32, 1",
    "shm, write, uint64, 1",
    "tcp, sum, uint32, 4",
    "shm, read, double, 3"
  })
  void aTypedRunChecksItsTarget(String transport, String op, String type, int count)
      throws Exception {
    Path json = dir.resolve("typed.json");
    BenchCli.Run r =
        BenchCli.run(
            "bench",
            "--api",
            "typed",
            "--transport",
            transport,
            "-o",
            op,
            "-z",
            type,
            "--count",
            Integer.toString(count),
            "-n",
            "2000",
            "-w",
            "200",
            "--json",
            json.toString());
    assertEquals(0, r.exit(), r.err());
    JsonNode root = new ObjectMapper().readTree(json.toFile());
    assertEquals("typed", root.get("inputs").get("api").asText());
    assertEquals(2000, root.get("results").get("ops").asLong());
    assertEquals(2000, root.get("results").get("latency_ns").get("samples").asLong());
    assertTrue(root.get("target_check").get("ok").asBoolean(), root.toString());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"shm", "tcp"})
  void aTypedRunKeepsEveryFetchedTicketOnce(String transport) throws Exception {
    Path fetched = dir.resolve("tickets.txt");
    BenchCli.Run r =
        BenchCli.run(
            "bench",
            "--api",
            "typed",
            "--transport",
            transport,
            "-n",
            "1500",
            "-w",
            "100",
            "--fetched",
            fetched.toString());
    assertEquals(0, r.exit(), r.err());
    assertTrue(
        r.out().contains("1600 fetched tickets, distinct per element and exactly 0 .. calls - 1"),
        r.out());
    assertEquals(1600, Files.readAllLines(fetched).size());
  }

  /** A matrix through the typed layer: the cells it has no call for are listed as skipped. */
  @Test
  void aTypedMatrixSkipsWhatTheLayerDoesNotMake() throws Exception {
    Path json = dir.resolve("typed-matrix.json");
    BenchCli.Run r =
        BenchCli.run(
            "bench",
            "--api",
            "typed",
            "-o",
            "sum,min",
            "-n",
            "200",
            "-w",
            "20",
            "--json",
            json.toString());
    assertEquals(0, r.exit(), r.err());
    JsonNode cells = new ObjectMapper().readTree(json.toFile()).get("cells");
    assertEquals(2, cells.size());
    assertEquals("FI_MIN", cells.get(0).get("op").asText());
    assertEquals("skipped", cells.get(0).get("status").asText());
    assertEquals(
        "--api typed has no call for fetch FI_MIN FI_UINT64 (one element: fetch SUM, ATOMIC_READ,"
            + " ATOMIC_WRITE, base ATOMIC_WRITE, compare CSWAP; several: fetch SUM, ATOMIC_READ, base"
            + " ATOMIC_WRITE)",
        cells.get(0).get("reason").asText());
    assertNull(cells.get(0).get("results"));
    assertEquals("FI_SUM", cells.get(1).get("op").asText());
    assertEquals("ok", cells.get(1).get("status").asText());
    assertEquals(200, cells.get(1).get("results").get("ops").asLong());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "--api typed -O 4|--api typed is blocking: one call in flight (-O 1)",
        "--api typed -z int64|the layer's elements are uint64, uint32 and double, not FI_INT64",
        "--api typed -o min|--api typed has no call for fetch FI_MIN FI_UINT64",
        "--api typed -o cswap --count 2|--api typed has no call for compare FI_CSWAP FI_UINT64 of 2",
        "--api both|--api is mirror or typed, not 'both'"
      })
  void cellsAndWindowsTheLayerDoesNotMakeAreUsageErrors(String args, String message) {
    String[] words = ("bench " + args).split(" ");
    BenchCli.Run r = BenchCli.run(words);
    assertEquals(2, r.exit(), r.err());
    assertTrue(r.err().contains(message), r.err());
  }
}
