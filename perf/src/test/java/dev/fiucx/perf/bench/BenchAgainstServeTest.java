package dev.fiucx.perf.bench;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fiucx.BootstrapSecurity;
import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import dev.fiucx.FiFlags;
import dev.fiucx.ServeAttr;
import dev.fiucx.Server;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bench --connect HOST:PORT --region NAME} against a serve, and the wrong pairings. */
@RequiresProvider("ucx")
class BenchAgainstServeTest {
  @TempDir Path dir;

  static Server serve() {
    return Fabric.serve(
        new ServeAttr(
            "127.0.0.1",
            0,
            List.of(
                new ServeAttr.Region("counter", 64, FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE),
                new ServeAttr.Region("small", 8, FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE)),
            new DomainAttr("shm", DomainAttr.Progress.AUTO, false, Map.of())));
  }

  @Test
  void twoBenchRunsTakeEveryTicketOfAServedCounterOnce() throws Exception {
    try (Server server = serve()) {
      String target = "127.0.0.1:" + server.port();
      Path first = dir.resolve("first.txt");
      Path second = dir.resolve("second.txt");
      Path json = dir.resolve("run.json");
      BenchCli.Run a =
          BenchCli.run(
              "bench",
              "--connect",
              target,
              "--region",
              "counter",
              "-n",
              "3000",
              "-w",
              "200",
              "-O",
              "8",
              "--fetched",
              first.toString(),
              "--json",
              json.toString());
      assertEquals(0, a.exit(), a.err());
      assertTrue(
          a.out().contains("  target     " + target + " (a fiucx serve: region counter,"), a.out());
      assertTrue(
          a.out().contains("target check: 3200 fetched tickets, distinct per element"), a.out());
      BenchCli.Run b =
          BenchCli.run(
              "bench",
              "--connect",
              target,
              "--region",
              "counter",
              "-n",
              "1000",
              "-w",
              "0",
              "--fetched",
              second.toString());
      assertEquals(0, b.exit(), b.err());
      boolean[] seen = new boolean[4200];
      for (Path p : List.of(first, second)) {
        for (String line : Files.readAllLines(p)) {
          String[] f = line.split(" ");
          assertEquals("0", f[0]);
          int v = Integer.parseInt(f[1]);
          assertTrue(!seen[v], "ticket " + v + " twice");
          seen[v] = true;
        }
      }
      for (int v = 0; v < seen.length; v++) {
        assertTrue(seen[v], "ticket " + v + " never fetched");
      }
      assertEquals(4200, server.memory("counter").get(JAVA_LONG, 0));
      var inputs = new ObjectMapper().readTree(json.toFile()).get("inputs");
      assertEquals("counter", inputs.get("target_serve_region").asText());
      assertEquals(false, inputs.get("target_started_by_bench").asBoolean());
    }
  }

  @Test
  void wrongRegionsAndWrongTargetsSaySo() throws Exception {
    try (Server server = serve()) {
      String target = "127.0.0.1:" + server.port();
      BenchCli.Run r = BenchCli.run("bench", "--connect", target, "--region", "nope", "-n", "10");
      assertEquals(1, r.exit());
      assertTrue(
          r.err().contains(target + " serves no region 'nope'; it serves: counter, small"),
          r.err());
      r = BenchCli.run("bench", "--connect", target, "--region", "small", "-T", "2", "-n", "10");
      assertEquals(2, r.exit());
      assertTrue(
          r.err().contains("region 'small' has 8 bytes; this run needs 128 (64 per thread)"),
          r.err());
      r = BenchCli.run("bench", "--connect", target, "-n", "10");
      assertEquals(1, r.exit());
      assertTrue(
          r.err()
              .contains(
                  "frame type 256 where HELLO was expected (this is a fiucx serve); against a fiucx"
                      + " serve, name its region with --region NAME"),
          r.err());
      r = BenchCli.run("bench", "--region", "counter", "-n", "10");
      assertEquals(2, r.exit());
      assertTrue(r.err().contains("--region names a serve's region: it needs --connect"), r.err());
      r = BenchCli.run("bench", "-o", "min", "-z", "int64", "--fetched", "x", "--duration", "1s");
      assertEquals(2, r.exit());
      assertTrue(r.err().contains("--fetched keeps one run of -n calls"), r.err());
    }
    try (ServerProcess bench =
        new ServerProcess("shm", true, List.of(), new PrintStream(System.err))) {
      BenchCli.Run r =
          BenchCli.run(
              "bench", "--connect", bench.host() + ":" + bench.port(), "--region", "counter");
      assertEquals(1, r.exit());
      assertTrue(
          r.err()
              .contains(
                  "this is a bench --server, not a fiucx serve (run bench --connect without"
                      + " --region)"),
          r.err());
    }
  }

  /**
   * A matrix against a serve's region: one connection, its cells one after the other in the table's
   * order on the same elements (a serve's region is neither zeroed nor handed back, so the cells
   * are unchecked, and the region ends as the order leaves it).
   */
  @Test
  void aMatrixRunsItsCellsInOrderOnAServesRegion() throws Exception {
    try (Server server = serve()) {
      String target = "127.0.0.1:" + server.port();
      Path json = dir.resolve("matrix.json");
      BenchCli.Run r =
          BenchCli.run(
              "bench",
              "--connect",
              target,
              "--region",
              "counter",
              "-o",
              "sum,min",
              "-z",
              "uint64,int8",
              "-n",
              "100",
              "-w",
              "0",
              "--json",
              json.toString());
      assertEquals(0, r.exit(), r.err());
      var cells = new ObjectMapper().readTree(json.toFile()).get("cells");
      List<String> order = new java.util.ArrayList<>();
      for (var c : cells) {
        order.add(c.get("op").asText() + " " + c.get("datatype").asText());
        assertEquals("unchecked", c.get("status").asText(), c.toString());
        assertEquals(100, c.get("results").get("ops").asLong(), c.toString());
      }
      assertEquals(
          List.of("FI_MIN FI_INT8", "FI_MIN FI_UINT64", "FI_SUM FI_INT8", "FI_SUM FI_UINT64"),
          order);
      // MIN of 1 leaves 0 twice, 100 int8 sums make byte 0 100, 100 uint64 sums make it 200
      assertEquals(200, server.memory("counter").get(JAVA_LONG, 0));
      assertTrue(r.out().contains("  target     " + target + " (a fiucx serve: region counter,"));
    }
  }

  /** What bench said (its lines; the in-process serve logs to the same stderr). */
  private static String said(BenchCli.Run r) {
    return String.join("\n", r.err().lines().filter(l -> l.startsWith("fiucx bench: ")).toList());
  }

  @Test
  void aServeWithASecretTakesBenchWithItAndRefusesBenchWithout() throws Exception {
    byte[] secret = "bench's shared secret".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    Path right = Files.write(dir.resolve("right"), "bench's shared secret\n".getBytes());
    Path wrong = Files.write(dir.resolve("wrong"), "another shared secret".getBytes());
    Path shortFile = Files.write(dir.resolve("short"), "short".getBytes());
    try (Server server =
        Fabric.serve(
            new ServeAttr(
                "127.0.0.1",
                0,
                List.of(
                    new ServeAttr.Region(
                        "counter", 64, FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE)),
                new DomainAttr("shm", DomainAttr.Progress.AUTO, false, Map.of()),
                BootstrapSecurity.none().withSecret(secret)))) {
      String target = "127.0.0.1:" + server.port();
      BenchCli.Run r =
          BenchCli.run(
              "bench",
              "--connect",
              target,
              "--region",
              "counter",
              "--secret-file",
              wrong.toString(),
              "-n",
              "10");
      assertEquals(1, r.exit());
      assertEquals(
          "fiucx bench: "
              + target
              + " refused: wrong shared secret (the answer to the challenge is not right)",
          said(r));
      r = BenchCli.run("bench", "--connect", target, "--region", "counter", "-n", "10");
      assertEquals(1, r.exit());
      assertEquals(
          "fiucx bench: " + target + ": the serve asks for a shared secret and none was given",
          said(r));
      r =
          BenchCli.run(
              "bench",
              "--connect",
              target,
              "--region",
              "counter",
              "--secret-file",
              shortFile.toString(),
              "-n",
              "10");
      assertEquals(2, r.exit());
      assertEquals(
          "fiucx bench: --secret-file "
              + shortFile
              + " holds 5 bytes: a shared secret needs 16 at least (e.g. head -c 32 /dev/urandom |"
              + " base64)",
          said(r));
      assertEquals(0, server.connections());
      assertEquals(0, server.memory("counter").get(JAVA_LONG, 0));
      r =
          BenchCli.run(
              "bench",
              "--connect",
              target,
              "--region",
              "counter",
              "--secret-file",
              right.toString(),
              "-n",
              "100",
              "-w",
              "0");
      assertEquals(0, r.exit(), r.err());
      assertEquals(100, server.memory("counter").get(JAVA_LONG, 0));
    }
    BenchCli.Run r = BenchCli.run("bench", "--secret-file", right.toString(), "-n", "10");
    assertEquals(2, r.exit());
    assertTrue(
        r.err()
            .contains(
                "--secret-file is the target's: it needs --server or --connect (the target bench"
                    + " starts itself gets a random one)"),
        r.err());
  }
}
