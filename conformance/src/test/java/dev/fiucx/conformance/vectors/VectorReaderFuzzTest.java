package dev.fiucx.conformance.vectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.fiucx.conformance.replay.ReferenceEngine;
import dev.fiucx.conformance.replay.ReplayEngine;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;

/**
 * Arbitrary text as a vector file (a hostile or corrupted download): every line is read as a case,
 * reported as malformed with its line number and reason, or skipped; nothing else comes out (no
 * exception, no hang), a case that was read holds buffers of exactly count elements, and the
 * reference semantics run it. CI replays the inputs under {@code VectorReaderFuzzTestInputs};
 * {@code JAZZER_FUZZ=1} fuzzes for the test's duration and adds what crashes there.
 */
class VectorReaderFuzzTest {
  private static final ReplayEngine REFERENCE = new ReferenceEngine();

  @FuzzTest(maxDuration = "60s")
  void anyTextIsReadOrReported(byte[] file) throws IOException {
    String text = new String(file, java.nio.charset.StandardCharsets.UTF_8);
    List<VectorCase> cases = new ArrayList<>();
    List<VectorReader.Malformed> malformed = new ArrayList<>();
    VectorReader.read(
        "fuzz", new BufferedReader(new StringReader(text)), cases::add, malformed::add);
    for (VectorReader.Malformed m : malformed) {
      assertNotNull(m.problem());
      assertTrue(m.line() >= 1);
    }
    for (VectorCase c : cases) {
      long bytes = (long) c.count() * c.datatype().size();
      assertTrue(c.count() >= 1);
      assertEquals(bytes, c.initialTarget().length, "initial_target");
      assertEquals(bytes, c.finalTarget().length, "final_target");
      for (byte[] b : new byte[][] {c.operand(), c.compare(), c.result()}) {
        assertTrue(b == null || b.length == bytes);
      }
      assertNotNull(REFERENCE.run(c));
    }
  }
}
