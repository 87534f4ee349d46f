package dev.fiucx.perf.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Short real runs (correctness only: what bench writes is there and adds up, never how fast). */
@RequiresProvider("ucx")
class BenchRunTest {
  @TempDir Path dir;

  private static JsonNode json(Path file) throws Exception {
    return new ObjectMapper().readTree(file.toFile());
  }

  /** The figures of a run hang together: every thread's calls, elements, samples. */
  private static void assertConsistent(JsonNode results, int threads, long n, int count) {
    assertEquals(threads * n, results.get("ops").asLong());
    assertEquals(threads * n * count, results.get("elements").asLong());
    assertEquals(threads, results.get("ops_per_thread").size());
    results.get("ops_per_thread").forEach(t -> assertEquals(n, t.asLong()));
    JsonNode lat = results.get("latency_ns");
    assertEquals(threads * n, lat.get("samples").asLong());
    assertTrue(lat.get("p50").asDouble() > 0);
    assertTrue(lat.get("p50").asDouble() <= lat.get("p90").asDouble());
    assertTrue(lat.get("p90").asDouble() <= lat.get("p99").asDouble());
    assertTrue(lat.get("p99").asDouble() <= lat.get("p99_9").asDouble());
    assertTrue(lat.get("p99_9").asDouble() <= lat.get("max").asDouble());
    double seconds = results.get("seconds").asDouble();
    assertTrue(seconds > 0);
    assertEquals(
        results.get("ops").asDouble() / seconds, results.get("ops_per_s").asDouble(), 1e-6);
    assertEquals(
        results.get("elements").asDouble() / seconds,
        results.get("elements_per_s").asDouble(),
        1e-6);
  }

  @Test
  void shmRunWritesJsonCsvHgrmAndPlot() throws Exception {
    Path json = dir.resolve("run.json");
    Path hgrm = dir.resolve("run.hgrm");
    Path png = dir.resolve("plots/run.png");
    BenchCli.Run r =
        BenchCli.run(
            "bench",
            "-n",
            "3000",
            "-w",
            "300",
            "--count",
            "2",
            "-O",
            "4",
            "-T",
            "2",
            "--csv",
            "--json",
            json.toString(),
            "--hgrm",
            hgrm.toString(),
            "--plot",
            png.toString());
    assertEquals(0, r.exit(), r.err());

    JsonNode root = json(json);
    JsonNode in = root.get("inputs");
    assertEquals("fetch", in.get("family").asText());
    assertEquals("FI_SUM", in.get("op").asText());
    assertEquals("FI_UINT64", in.get("datatype").asText());
    assertEquals(2, in.get("count").asInt());
    assertEquals(4, in.get("window").asInt());
    assertEquals(2, in.get("threads").asInt());
    assertEquals("shm", in.get("transport").asText());
    assertTrue(in.get("target_started_by_bench").asBoolean());
    assertEquals("NATIVE", root.get("cell").get("mechanism").asText());
    assertEquals("mapped", root.get("cell").get("path").asText());
    assertTrue(root.get("machine").get("cores").asInt() >= 1);
    assertFalse(root.get("machine").get("jdk").asText().isEmpty());
    assertEquals(loadedUcxVersion(), root.get("ucx").get("version").asText());
    assertEquals("sm,self", root.get("ucx").get("tls").asText());
    assertFalse(root.get("ucx").get("lanes").isEmpty(), root.toString());
    assertConsistent(root.get("results"), 2, 3000, 2);
    assertEquals("per_op", root.get("results").get("latency_ns").get("kind").asText());
    assertTrue(root.get("target_check").get("checked").asBoolean());
    assertTrue(root.get("target_check").get("ok").asBoolean());

    List<String> csv = r.out().lines().toList();
    assertEquals(2, csv.size(), r.out());
    assertEquals(String.join(",", CsvLine.COLUMNS), csv.get(0));
    String[] row = csv.get(1).split(",");
    assertEquals(CsvLine.COLUMNS.size(), row.length);
    assertEquals("6000", row[CsvLine.COLUMNS.indexOf("ops")]);
    assertEquals("12000", row[CsvLine.COLUMNS.indexOf("elements")]);
    assertEquals("ok", row[CsvLine.COLUMNS.indexOf("target_check")]);
    // the table goes to stderr when stdout carries CSV
    assertTrue(r.err().contains("latency (usec), per op"), r.err());

    String h = Files.readString(hgrm);
    assertTrue(h.contains("Value     Percentile TotalCount 1/(1-Percentile)"), h);
    assertTrue(h.matches("(?s).*Total count\\s+=\\s+6000\\].*"), h);

    BufferedImage image = ImageIO.read(png.toFile());
    assertNotNull(image);
    assertTrue(image.getWidth() > 100 && image.getHeight() > 100);
  }

  @Test
  void tcpRunWithManualProgressAndADomainPerThread() throws Exception {
    Path json = dir.resolve("tcp.json");
    BenchCli.Run r =
        BenchCli.run(
            "bench",
            "--transport",
            "tcp",
            "--progress",
            "manual",
            "-T",
            "2",
            "-n",
            "200",
            "-w",
            "20",
            "--json",
            json.toString());
    assertEquals(0, r.exit(), r.err());
    assertTrue(r.out().contains("latency (usec), round trip"), r.out());
    assertTrue(r.out().contains("Final:"), r.out());
    JsonNode root = json(json);
    assertEquals("tcp", root.get("ucx").get("tls").asText());
    assertEquals("ucp", root.get("cell").get("path").asText());
    assertEquals("manual", root.get("inputs").get("progress").asText());
    assertEquals("domain", root.get("inputs").get("threading").asText());
    assertEquals("spin", root.get("inputs").get("target_progress").asText());
    assertTrue(root.get("ucx").get("lanes").toString().contains("tcp"), root.toString());
    assertConsistent(root.get("results"), 2, 200, 1);
    assertEquals("round_trip", root.get("results").get("latency_ns").get("kind").asText());
    assertTrue(root.get("target_check").get("ok").asBoolean());
  }

  /**
   * A target whose domain progresses by itself (it sleeps while no peer needs it) still serves
   * tcp's software atomics: every element ends exact.
   */
  @Test
  void tcpRunAgainstATargetOnAutomaticProgress() throws Exception {
    Path json = dir.resolve("tcp-auto.json");
    BenchCli.Run r =
        BenchCli.run(
            "bench",
            "--transport",
            "tcp",
            "--server-progress",
            "auto",
            "-O",
            "8",
            "-n",
            "400",
            "-w",
            "40",
            "--json",
            json.toString());
    assertEquals(0, r.exit(), r.err());
    JsonNode root = json(json);
    assertEquals("auto", root.get("inputs").get("target_progress").asText());
    assertConsistent(root.get("results"), 1, 400, 1);
    assertTrue(root.get("target_check").get("ok").asBoolean(), root.toString());
  }

  @Test
  void windowSweepRunsEveryPowerOfTwoAndPlotsRate() throws Exception {
    Path json = dir.resolve("sweep.json");
    Path png = dir.resolve("sweep.png");
    BenchCli.Run r =
        BenchCli.run(
            "bench",
            "-O",
            "6",
            "--sweep-window",
            "-n",
            "1000",
            "-w",
            "100",
            "--csv",
            "--json",
            json.toString(),
            "--plot",
            png.toString());
    assertEquals(0, r.exit(), r.err());
    JsonNode sweep = json(json).get("sweep");
    assertEquals(4, sweep.size());
    int[] windows = {1, 2, 4, 6};
    for (int i = 0; i < windows.length; i++) {
      assertEquals(windows[i], sweep.get(i).get("window").asInt());
      assertConsistent(sweep.get(i), 1, 1000, 1);
    }
    assertEquals(6, json(json).get("results").get("window").asInt());
    assertTrue(r.err().contains("round trip at window 1, per op above"), r.err());
    // one CSV row per run of the sweep
    List<String> csv = r.out().lines().toList();
    assertEquals(String.join(",", CsvLine.COLUMNS), csv.getFirst());
    assertEquals(
        List.of("1", "2", "4", "6"),
        csv.subList(1, csv.size()).stream()
            .map(l -> l.split(",")[CsvLine.COLUMNS.indexOf("window")])
            .toList());
    for (String row : csv.subList(1, csv.size())) {
      String[] f = row.split(",");
      assertEquals("1000", f[CsvLine.COLUMNS.indexOf("ops")], row);
      assertEquals("ok", f[CsvLine.COLUMNS.indexOf("target_check")], row);
    }
    assertNotNull(ImageIO.read(png.toFile()));
  }

  @Test
  void durationRunsForATime() throws Exception {
    Path json = dir.resolve("duration.json");
    BenchCli.Run r =
        BenchCli.run(
            "bench", "--duration", "300ms", "-w", "100", "-O", "2", "--json", json.toString());
    assertEquals(0, r.exit(), r.err());
    JsonNode results = json(json).get("results");
    assertTrue(results.get("seconds").asDouble() >= 0.3, results.toString());
    assertTrue(results.get("ops").asLong() > 0);
    assertEquals(
        results.get("ops").asLong() + 100,
        results.get("calls_per_thread_with_warmup").get(0).asLong());
    assertTrue(json(json).get("target_check").get("ok").asBoolean());
  }

  /** The version of the libucp this JVM loads, as the provider describes it. */
  private static String loadedUcxVersion() {
    try (dev.fiucx.Domain d =
        dev.fiucx.Fabric.openDomain(
            "ucx",
            new dev.fiucx.DomainAttr(
                "shm", dev.fiucx.DomainAttr.Progress.MANUAL, false, java.util.Map.of()))) {
      return d.describe().get("ucx.version");
    }
  }
}
