package dev.fiucx.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.conformance.suite.RequiresProvider;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

@RequiresProvider("ucx")
class JmhCommandTest {
  @Test
  void forksGetNativeAccessAppended() {
    assertEquals(
        List.of("-f", "1", "-jvmArgsAppend", JmhCommand.NATIVE_ACCESS),
        JmhCommand.jmhArguments(List.of("-f", "1")));
    assertEquals(
        List.of("-jvmArgsAppend", "-Xmx1g " + JmhCommand.NATIVE_ACCESS, "Semantics"),
        JmhCommand.jmhArguments(List.of("-jvmArgsAppend", "-Xmx1g", "Semantics")));
    assertEquals(
        List.of("-jvmArgsAppend", JmhCommand.NATIVE_ACCESS),
        JmhCommand.jmhArguments(List.of("-jvmArgsAppend", JmhCommand.NATIVE_ACCESS)));
  }

  @Test
  void profilingGcAlsoCountsTheBenchmarkThreadAlone() {
    assertEquals(
        List.of(
            "-prof",
            "gc",
            "-f",
            "1",
            "-prof",
            JmhCommand.WORKER_ALLOCATION,
            "-jvmArgsAppend",
            JmhCommand.NATIVE_ACCESS),
        JmhCommand.jmhArguments(List.of("-prof", "gc", "-f", "1")));
  }

  @Test
  void jmhListsTheBenchmarksWithTheirParameters() {
    PrintStream saved = System.out;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int exit;
    try {
      System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
      exit = FiucxCli.commandLine().execute("jmh", "-lp", "FetchSumUint64|Semantics");
    } finally {
      System.setOut(saved);
    }
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertEquals(0, exit, out);
    assertTrue(out.contains("dev.fiucx.perf.jmh.FetchSumUint64.latency"), out);
    assertTrue(out.contains("dev.fiucx.perf.jmh.FetchSumUint64.window"), out);
    assertTrue(out.contains("param \"count\" = {1, 8, 64, 512}"), out);
    assertTrue(out.contains("param \"progress\" = {AUTO, MANUAL}"), out);
    assertTrue(out.contains("dev.fiucx.perf.jmh.SemanticsBenchmark.apply"), out);
    assertTrue(!out.contains("CompletionBenchmark"), out);
  }
}
