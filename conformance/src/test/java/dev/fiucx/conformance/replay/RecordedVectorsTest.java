package dev.fiucx.conformance.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.fiucx.conformance.replay.MemoryImages.Match;
import dev.fiucx.conformance.vectors.VectorCase;
import dev.fiucx.conformance.vectors.VectorReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Replays vectors recorded outside fiucx through the reference semantics, one test per (family, op,
 * datatype) cell, and demands identical bytes (long-double padding aside): both recorders ran on
 * x86-64, so even NaN payloads must match.
 */
class RecordedVectorsTest {
  private static final HexFormat HEX = HexFormat.of();

  /** tools/vectorgen: every valid cell computed by C code compiled with gcc. */
  @TestFactory
  Stream<DynamicTest> gccReferenceVectors() throws Exception {
    return cellTests("gcc-reference.jsonl", 354);
  }

  /** tools/fi_record: every cell the C libfabric library runs, as it ran them. */
  @TestFactory
  Stream<DynamicTest> libfabricRecordedVectors() throws Exception {
    return cellTests("libfabric-sockets.jsonl", -1);
  }

  private static Stream<DynamicTest> cellTests(String name, int expectedCells) throws Exception {
    Path file = ReplayerTest.resource(name);
    Map<String, List<VectorCase>> byCell = new TreeMap<>();
    List<String> malformed = new ArrayList<>();
    VectorReader.read(
        file,
        c -> byCell.computeIfAbsent(cellOf(c), k -> new ArrayList<>()).add(c),
        m -> malformed.add(m.source() + ":" + m.line() + ": " + m.problem()));
    assertEquals(List.of(), malformed, name + " has malformed lines");
    if (expectedCells > 0) {
      assertEquals(expectedCells, byCell.size(), name + " covers every valid cell");
    } else {
      assertTrue(byCell.size() > 0, name + " holds cases");
    }
    ReferenceEngine engine = new ReferenceEngine();
    return byCell.entrySet().stream()
        .map(e -> DynamicTest.dynamicTest(e.getKey(), () -> replayExactly(engine, e.getValue())));
  }

  private static String cellOf(VectorCase c) {
    return c.family().label() + "/" + c.op().fiName() + "/" + c.datatype().fiName();
  }

  private static void replayExactly(ReferenceEngine engine, List<VectorCase> cases) {
    List<String> failures = new ArrayList<>();
    for (VectorCase c : cases) {
      ReplayEngine.Outcome o = engine.run(c);
      if (o.status() != ReplayEngine.Status.RAN) {
        failures.add(c.id() + ": " + o.status() + " " + o.detail());
        continue;
      }
      if (MemoryImages.compare(c.datatype(), c.finalTarget(), o.finalTarget()) != Match.EXACT) {
        failures.add(
            c.id()
                + ": final_target expected "
                + hex(c.finalTarget())
                + " got "
                + hex(o.finalTarget()));
      }
      if (c.family().fetches()
          && MemoryImages.compare(c.datatype(), c.result(), o.result()) != Match.EXACT) {
        failures.add(c.id() + ": result expected " + hex(c.result()) + " got " + hex(o.result()));
      }
    }
    if (!failures.isEmpty()) {
      fail(
          failures.size()
              + " of "
              + cases.size()
              + " cases differ:\n"
              + String.join("\n", failures));
    }
  }

  private static String hex(byte[] b) {
    return b == null ? "null" : HEX.formatHex(b);
  }
}
