package dev.fiucx.conformance.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplayerTest {
  @TempDir Path dir;

  private final ByteArrayOutputStream printed = new ByteArrayOutputStream();

  private Replayer.Summary replay(Path... files) {
    PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);
    return new Replayer(new ReferenceEngine(), out).replay(List.of(files));
  }

  private String lastLine() {
    String[] lines = printed.toString(StandardCharsets.UTF_8).strip().split("\n");
    return lines[lines.length - 1];
  }

  static Path resource(String name) throws URISyntaxException {
    return Path.of(ReplayerTest.class.getResource("/vectors/" + name).toURI());
  }

  @Test
  void handmadeVectorsPassAndTheInvalidCellIsSkipped() throws Exception {
    Replayer.Summary s = replay(resource("handmade.jsonl"));
    assertEquals(new Replayer.Summary(8, 0, 1, 0), s, printed.toString(StandardCharsets.UTF_8));
    assertEquals("8 passed, 0 failed, 1 skipped", lastLine());
  }

  @Test
  void aWrongExpectationIsReportedWithBothImages() throws Exception {
    Path f = dir.resolve("wrong.jsonl");
    Files.writeString(
        f,
        """
        {"record":"case","id":"base/FI_SUM/FI_INT32/wrong","family":"base","op":"FI_SUM","datatype":"FI_INT32","count":1,"initial_target":"01000000","operand":"01000000","compare":null,"final_target":"03000000","result":null,"nan":false}
        {"record":"case","id":"fetch/FI_SUM/FI_INT32/right","family":"fetch","op":"FI_SUM","datatype":"FI_INT32","count":1,"initial_target":"01000000","operand":"01000000","compare":null,"final_target":"02000000","result":"02000000","nan":false}
        """);
    Replayer.Summary s = replay(f);
    assertEquals(new Replayer.Summary(0, 2, 0, 0), s);
    String out = printed.toString(StandardCharsets.UTF_8);
    assertTrue(
        out.contains(
            "FAIL base/FI_SUM/FI_INT32/wrong: final_target expected 03000000 got 02000000"),
        out);
    assertTrue(
        out.contains("FAIL fetch/FI_SUM/FI_INT32/right: result expected 02000000 got 01000000"),
        out);
    assertEquals("0 passed, 2 failed", lastLine());
  }

  @Test
  void malformedCasesFailWithTheirLineAndOthersStillRun() throws Exception {
    Path f = dir.resolve("malformed.jsonl");
    Files.writeString(
        f,
        """
        {"record":"case","id":"short","family":"base","op":"FI_SUM","datatype":"FI_INT32","count":2,"initial_target":"01000000","operand":"0100000001000000","compare":null,"final_target":"0200000002000000","result":null}
        not json at all
        {"record":"case","id":"bad-op","family":"base","op":"FI_NOPE","datatype":"FI_INT32","count":1,"initial_target":"01000000","operand":"01000000","compare":null,"final_target":"02000000","result":null}
        {"record":"case","id":"ok","family":"base","op":"FI_BOR","datatype":"FI_UINT8","count":1,"initial_target":"01","operand":"02","compare":null,"final_target":"03","result":null}
        """);
    Replayer.Summary s = replay(f);
    assertEquals(new Replayer.Summary(1, 3, 0, 0), s);
    String out = printed.toString(StandardCharsets.UTF_8);
    assertTrue(
        out.contains(
            "FAIL short: malformed at " + f + ":1: initial_target has 4 bytes, count * size is 8"),
        out);
    assertTrue(out.contains(f + ":2: not JSON"), out);
    assertTrue(out.contains("FAIL bad-op: malformed at " + f + ":3: unknown op 'FI_NOPE'"), out);
  }

  @Test
  void nanCasesMayPassAsNanEqual() throws Exception {
    Path f = dir.resolve("nan.jsonl");
    // the recorder's NaN has another payload than x86's: NaN-equal, counted apart
    Files.writeString(
        f,
        """
        {"record":"case","id":"nan-equal","family":"base","op":"FI_SUM","datatype":"FI_DOUBLE","count":1,"initial_target":"000000000000f07f","operand":"000000000000f0ff","compare":null,"final_target":"000000000000f87f","result":null,"nan":true}
        {"record":"case","id":"not-flagged","family":"base","op":"FI_SUM","datatype":"FI_DOUBLE","count":1,"initial_target":"000000000000f07f","operand":"000000000000f0ff","compare":null,"final_target":"000000000000f87f","result":null,"nan":false}
        """);
    Replayer.Summary s = replay(f);
    assertEquals(new Replayer.Summary(1, 1, 0, 1), s);
    assertTrue(
        printed
            .toString(StandardCharsets.UTF_8)
            .contains(
                "FAIL not-flagged: final_target expected 000000000000f87f got 000000000000f8ff"));
  }
}
