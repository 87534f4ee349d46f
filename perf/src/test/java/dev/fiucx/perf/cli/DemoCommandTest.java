package dev.fiucx.perf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.conformance.suite.RequiresProvider;
import dev.fiucx.perf.bench.PerftestRunner;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The demo runs every row to a latency, and sets its first row against ucx_perftest. */
@RequiresProvider("ucx")
class DemoCommandTest {
  @Test
  void everyRowHasASteadyLatencyAndTheFirstItsRatio() {
    PrintStream saved = System.out;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int exit;
    try {
      System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
      exit = FiucxCli.commandLine().execute("demo", "--iterations", "20000");
    } finally {
      System.setOut(saved);
    }
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertEquals(0, exit, out);
    List<String> rows = out.lines().filter(l -> l.matches("  (base|fetch|compare) FI_.*")).toList();
    assertEquals(11, rows.size(), out);
    rows.forEach(r -> assertTrue(r.matches(".* \\d+\\.\\d{3} us.*"), r));
    if (PerftestRunner.find() != null) {
      assertTrue(rows.getFirst().contains("x ucx_perftest ucp_fadd"), out);
      assertTrue(out.contains("first row against ucx_perftest -t ucp_fadd -s 8"), out);
    } else {
      assertTrue(out.contains("ucx_perftest is not installed"), out);
    }
  }
}
