package dev.fiucx.perf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class FiucxCliTest {
  @TempDir Path dir;

  private record Run(int exit, String out) {}

  private static Run run(String... args) {
    PrintStream saved = System.out;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
      int exit = new CommandLine(new FiucxCli()).execute(args);
      return new Run(exit, bytes.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(saved);
    }
  }

  @Test
  void infoJsonListsEveryCellAnd354Valid() throws Exception {
    Run r = run("info", "--json");
    assertEquals(0, r.exit());
    JsonNode cells = new ObjectMapper().readTree(r.out());
    assertEquals(798, cells.size());
    Set<String> valid = new HashSet<>();
    for (JsonNode c : cells) {
      if (c.get("valid").asBoolean()) {
        valid.add(
            c.get("family").asText()
                + " "
                + c.get("op").asText()
                + " "
                + c.get("datatype").asText());
      }
    }
    assertEquals(354, valid.size());
    JsonNode first = cells.get(0);
    assertEquals("base", first.get("family").asText());
    assertEquals("FI_MIN", first.get("op").asText());
    assertEquals("FI_INT8", first.get("datatype").asText());
    assertEquals(4096, first.get("count").asLong());
    assertEquals(1, first.get("size").asInt());
    assertEquals("CAS_LOOP", first.get("mechanism").asText());
    assertTrue(valid.contains("fetch FI_ATOMIC_READ FI_LONG_DOUBLE_COMPLEX"));
    assertTrue(!valid.contains("base FI_ATOMIC_READ FI_INT32"));
  }

  @Test
  void infoTextHasOneBlockPerFamily() {
    Run r = run("info");
    assertEquals(0, r.exit());
    assertTrue(r.out().contains("base atomics (130 valid)"), r.out());
    assertTrue(r.out().contains("fetch atomics (144 valid)"), r.out());
    assertTrue(r.out().contains("compare atomics (80 valid)"), r.out());
    assertTrue(
        r.out().lines().anyMatch(l -> l.matches("\\s+MSWAP\\s+cas(\\s+cas){7}(\\s+-){6}")),
        r.out());
  }

  @Test
  void replayExitsOneOnAFailureAndZeroOtherwise() throws Exception {
    Path good = dir.resolve("good.jsonl");
    Files.writeString(
        good,
        "{\"record\":\"case\",\"id\":\"ok\",\"family\":\"fetch\",\"op\":\"FI_SUM\",\"datatype\":\"FI_UINT32\",\"count\":1,"
            + "\"initial_target\":\"ffffffff\",\"operand\":\"02000000\",\"compare\":null,"
            + "\"final_target\":\"01000000\",\"result\":\"ffffffff\",\"nan\":false}\n");
    Path bad = dir.resolve("bad.jsonl");
    Files.writeString(
        bad,
        Files.readString(good)
            .replace("\"final_target\":\"01000000\"", "\"final_target\":\"00000000\""));
    Run ok = run("replay", "--engine", "reference", good.toString());
    assertEquals(0, ok.exit(), ok.out());
    assertTrue(ok.out().endsWith("1 passed, 0 failed\n"), ok.out());
    Run failed = run("replay", "--engine", "reference", good.toString(), bad.toString());
    assertEquals(1, failed.exit(), failed.out());
    assertTrue(
        failed.out().contains("FAIL ok: final_target expected 00000000 got 01000000"),
        failed.out());
    assertTrue(failed.out().endsWith("1 passed, 1 failed\n"), failed.out());
  }

  @Test
  void infoForTheUcxProviderTellsWhatUcxCarriesOutAndWhy() throws Exception {
    Run tcp = run("info", "--provider", "ucx", "--transport", "tcp", "--json");
    assertEquals(0, tcp.exit());
    JsonNode cells = new ObjectMapper().readTree(tcp.out());
    assertEquals(798, cells.size());
    int valid = 0;
    for (JsonNode c : cells) {
      if (c.get("valid").asBoolean()) {
        valid++;
        assertEquals("NATIVE", c.get("mechanism").asText(), c.toString());
      }
    }
    assertEquals(60, valid, "DESIGN.md's native cells, all proved right over tcp");
    Run shm = run("info", "--provider", "ucx", "--transport", "shm", "--json");
    for (JsonNode c : new ObjectMapper().readTree(shm.out())) {
      if (c.get("family").asText().equals("fetch")
          && c.get("op").asText().equals("FI_BAND")
          && c.get("datatype").asText().equals("FI_UINT64")) {
        assertEquals(false, c.get("valid").asBoolean());
        assertTrue(
            c.get("reason").asText().contains("fetching AND on 8 bytes left"),
            c.get("reason").asText());
      }
    }
    Run text = run("info", "--provider", "ucx", "--transport", "shm");
    assertTrue(text.out().contains("ucx.version  1.13.1"), text.out());
    assertTrue(text.out().contains("self-test    6 native ops gave wrong answers"), text.out());
  }

  @Test
  void replayThroughUcxRunsTheNativeCasesAndSkipsTheRest() throws Exception {
    Path f = dir.resolve("ucx.jsonl");
    Files.writeString(
        f,
        """
        {"record":"case","id":"fetch-sum","family":"fetch","op":"FI_SUM","datatype":"FI_UINT64","count":2,"initial_target":"01000000000000000200000000000000","operand":"0500000000000000ffffffffffffffff","compare":null,"final_target":"06000000000000000100000000000000","result":"01000000000000000200000000000000","nan":false}
        {"record":"case","id":"cswap-float","family":"compare","op":"FI_CSWAP","datatype":"FI_FLOAT","count":1,"initial_target":"00000080","operand":"0000803f","compare":"00000000","final_target":"00000080","result":"00000080","nan":false}
        {"record":"case","id":"min","family":"base","op":"FI_MIN","datatype":"FI_INT8","count":1,"initial_target":"05","operand":"fe","compare":null,"final_target":"fe","result":null,"nan":false}
        """);
    Run r = run("replay", "--engine", "ucx", "--transport", "shm", f.toString());
    assertEquals(0, r.exit(), r.out());
    assertTrue(r.out().strip().endsWith("2 passed, 0 failed, 1 skipped"), r.out());
  }
}
