package dev.fiucx.examples.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.conformance.suite.RequiresProvider;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The command a user gives {@code spark-submit}: its arguments, its report and its exit status.
 * Spark takes the master from {@code spark.*} system properties here, as it takes it from {@code
 * spark-submit --master} on a cluster.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class TicketJobMainTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int main(String... args) {
    return TicketJob.run(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private List<String> outLines() {
    return out.toString(StandardCharsets.UTF_8).lines().toList();
  }

  @Test
  void badArgumentsExit2WithTheUsage() {
    for (String[] args :
        List.of(
            new String[] {},
            new String[] {"127.0.0.1:1"},
            new String[] {"127.0.0.1:1", "10", "4", "tickets", "more"})) {
      err.reset();
      assertEquals(2, main(args), List.of(args).toString());
      assertEquals(
          "usage: TicketJob HOST:PORT RECORDS [PARTITIONS [REGION]]",
          err.toString(StandardCharsets.UTF_8).lines().findFirst().orElseThrow());
    }
    for (String[] args :
        List.of(
            new String[] {"127.0.0.1:1", "ten"},
            new String[] {"127.0.0.1:1", "10", "four"},
            new String[] {"127.0.0.1:1", "-1"},
            new String[] {"127.0.0.1:1", "2147483648"},
            new String[] {"127.0.0.1:1", "10", "0"})) {
      err.reset();
      assertEquals(2, main(args), List.of(args).toString());
      assertTrue(
          err.toString(StandardCharsets.UTF_8).startsWith("TicketJob: RECORDS"),
          err.toString(StandardCharsets.UTF_8));
    }
    assertEquals("", out.toString(StandardCharsets.UTF_8));
  }

  @Test
  @RequiresProvider("ucx")
  void theCommandRunsTheJobAndReportsExactTickets() throws Exception {
    Map<String, String> spark =
        Map.of(
            "spark.master", "local[4]",
            "spark.driver.host", "127.0.0.1",
            "spark.driver.bindAddress", "127.0.0.1",
            "spark.ui.enabled", "false");
    Map<String, String> before = new HashMap<>();
    spark.keySet().forEach(k -> before.put(k, System.getProperty(k)));
    try (CounterServeProcess serve = CounterServeProcess.start("shm")) {
      spark.forEach(System::setProperty);
      int status = main(serve.target(), "20000");
      outLines().forEach(System.out::println);
      assertEquals(0, status, err.toString(StandardCharsets.UTF_8));

      List<String> lines = outLines();
      assertEquals(4, lines.size(), lines.toString());
      // local[4]: 4 tasks per core of the application by default
      assertEquals(
          "fiucx ticket job: 20,000 records in 16 tasks, counter 'tickets' of " + serve.target(),
          lines.get(0));
      assertTrue(
          lines
              .get(1)
              .matches(
                  "  executors 1, task threads [1-9][0-9]*, connections per executor"
                      + " \\{driver=1\\}"),
          lines.get(1));
      assertTrue(
          lines
              .get(2)
              .matches(
                  "  job took [0-9]+\\.[0-9]{2} s: [0-9,]+ tickets/s;"
                      + " tasks by path to the counter \\{mapped=16\\}"),
          lines.get(2));
      assertEquals("  exact: tickets 0 .. 19,999 each once, counter 0 -> 20,000", lines.get(3));

      // the command closed its connections: the serve saw both initiators go
      serve.awaitLines("DEPARTED ", 2);
      assertEquals(20_000, serve.stop());

      // nobody serves there any more: the command says so and exits 1
      out.reset();
      err.reset();
      assertEquals(1, main(serve.target(), "20000"));
      assertEquals("", out.toString(StandardCharsets.UTF_8));
      assertTrue(
          err.toString(StandardCharsets.UTF_8)
              .startsWith(
                  "TicketJob: FI_ECONNREFUSED: connection refused: no fiucx serve at "
                      + serve.target()),
          err.toString(StandardCharsets.UTF_8));
    } finally {
      before.forEach(
          (k, v) -> {
            if (v == null) {
              System.clearProperty(k);
            } else {
              System.setProperty(k, v);
            }
          });
    }
  }
}
