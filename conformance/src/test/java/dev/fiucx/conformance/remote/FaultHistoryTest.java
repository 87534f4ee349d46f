package dev.fiucx.conformance.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checker of a restarted target's histories: operations fall apart by epoch, those to a gone
 * incarnation are checked without memory, those to the last against its bytes, and an epoch tag
 * that disagrees with the incarnations' keys breaks the run.
 */
class FaultHistoryTest {
  private static final long OLD = 0x1111L;
  private static final long NEW = -0x2222L;
  private static final long MIN_START = Long.MAX_VALUE;

  @TempDir Path dir;

  /** One line of a history: an operation ok, at the given epoch and key. */
  private static String op(String kind, String outcome, long fetched, int epoch, long key) {
    long high = 0;
    long operand = 0;
    if (kind.equals("lock")) {
      high = Double.doubleToRawLongBits(2.0 * fetched);
      fetched = Double.doubleToRawLongBits(fetched);
    } else if (kind.equals("min")) {
      operand = fetched;
      fetched = MIN_START;
    }
    return String.join(
        " ",
        kind,
        outcome,
        outcome.equals("ok") ? "0" : "129",
        Long.toString(operand),
        Long.toString(fetched),
        Long.toString(high),
        "1000",
        "1001",
        Integer.toString(epoch),
        Long.toString(key));
  }

  /** The last incarnation's bytes: the counter, the MIN element and the DOUBLE_COMPLEX's parts. */
  private static byte[] memory(long count, long min, double re) {
    ByteBuffer b =
        ByteBuffer.allocate((int) MixedLoadProcess.REGION_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    b.putLong((int) MixedLoadProcess.NATIVE_OFFSET, count);
    b.putLong((int) MixedLoadProcess.CAS_OFFSET, min);
    b.putDouble((int) MixedLoadProcess.LOCK_OFFSET, re);
    b.putDouble((int) MixedLoadProcess.LOCK_OFFSET + 8, 2 * re);
    return b.array();
  }

  private FaultHistory history(List<String> lines) throws IOException {
    List<String> all = new ArrayList<>(lines);
    all.add("reconnects 1");
    Path f = Files.createTempFile(dir, "history", ".txt");
    Files.write(f, all);
    FaultHistory h = new FaultHistory();
    h.add(f, false);
    return h;
  }

  /** Two adds and a lock element before the restart, the same again after it. */
  private static List<String> restarted() {
    return new ArrayList<>(
        List.of(
            op("add", "ok", 0, 0, OLD),
            op("add", "ok", 1, 0, OLD),
            op("lock", "ok", 0, 0, OLD),
            op("add", "fail", 0, 0, OLD),
            op("add", "ok", 0, 1, NEW),
            op("add", "ok", 1, 1, NEW),
            op("lock", "ok", 0, 1, NEW)));
  }

  @Test
  void eachIncarnationIsCheckedOnItsOwn() throws IOException {
    FaultHistory h = history(restarted());
    // the new incarnation counts only its own operations: 2 adds, 1 lock element, no min
    assertEquals(List.of(), h.violations(memory(2, MIN_START, 1), MIN_START, List.of(OLD, NEW)));
    assertEquals(2, h.fewestIncarnations());
    // counted against every operation, the new counter would be short
    List<String> broken = h.violations(memory(4, MIN_START, 2), MIN_START, List.of(OLD, NEW));
    assertTrue(broken.stream().anyMatch(v -> v.startsWith("add: 4 applied")), broken.toString());
  }

  @Test
  void aTicketFetchedTwiceInAGoneIncarnationBreaks() throws IOException {
    List<String> lines = restarted();
    lines.add(2, op("add", "ok", 1, 0, OLD));
    List<String> broken =
        history(lines).violations(memory(2, MIN_START, 1), MIN_START, List.of(OLD, NEW));
    assertEquals(1, broken.size(), broken.toString());
    assertTrue(broken.get(0).contains("fetched 1 twice"), broken.toString());
  }

  @Test
  void anEpochThatDisagreesWithTheKeysBreaks() throws IOException {
    // tagged with the new epoch but posted with the old key
    List<String> lines = restarted();
    lines.set(4, op("add", "ok", 0, 1, OLD));
    List<String> broken =
        history(lines).violations(memory(2, MIN_START, 1), MIN_START, List.of(OLD, NEW));
    assertTrue(broken.stream().anyMatch(v -> v.contains("epoch 1")), broken.toString());
    // an epoch that goes back
    lines = restarted();
    lines.add(op("add", "ok", 2, 0, OLD));
    broken = history(lines).violations(memory(2, MIN_START, 1), MIN_START, List.of(OLD, NEW));
    assertTrue(broken.stream().anyMatch(v -> v.contains("epoch 0 (after 1)")), broken.toString());
    // an epoch beyond the incarnations
    lines = restarted();
    lines.add(op("add", "ok", 2, 2, NEW));
    broken = history(lines).violations(memory(2, MIN_START, 1), MIN_START, List.of(OLD, NEW));
    assertTrue(broken.stream().anyMatch(v -> v.contains("epoch 2")), broken.toString());
  }

  @Test
  void aRunWithoutRestartIsOneIncarnation() throws IOException {
    FaultHistory h =
        history(
            List.of(
                op("add", "ok", 0, 0, OLD),
                op("min", "ok", 5, 0, OLD),
                op("lock", "uncertain", 0, 0, OLD)));
    assertEquals(List.of(), h.violations(memory(1, 5, 1), MIN_START, List.of(OLD)));
    assertEquals(1, h.fewestIncarnations());
  }
}
