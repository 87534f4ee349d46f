package dev.fiucx.ucx.integration;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.fiucx.AtomicFamily;
import dev.fiucx.CqErrEntry;
import dev.fiucx.DomainAttr;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiOp;
import dev.fiucx.conformance.remote.Initiator;
import dev.fiucx.conformance.remote.LocalTarget;
import dev.fiucx.conformance.replay.ReferenceEngine;
import dev.fiucx.conformance.replay.ReplayEngine;
import dev.fiucx.conformance.suite.RequiresProvider;
import dev.fiucx.conformance.vectors.VectorCase;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Arbitrary arguments to the plain atomic calls over UCX shared memory, as a careless or hostile
 * application would pass them: any family, op and datatype, counts from -2 to 600, addresses in and
 * around the region and anywhere, right and wrong keys and peers, missing, short, heap, read-only
 * and foreign buffers. Each call either is refused with one of libfabric's errnos and leaves the
 * target's bytes as they were, or completes and leaves exactly what the reference semantics compute
 * from the same bytes, in the target and in the result. Nothing throws, nothing hangs. CI replays
 * the inputs under {@code CallArgumentsFuzzTestInputs}; {@code JAZZER_FUZZ=1} fuzzes for the test's
 * duration.
 */
@RequiresProvider("ucx")
class CallArgumentsFuzzTest {
  private static final int REGION = 4096;

  /** What a refused call may say: each names something wrong with its arguments. */
  private static final Set<Integer> REFUSALS =
      Set.of(
          FiErrno.EINVAL,
          FiErrno.EFAULT,
          FiErrno.EOPNOTSUPP,
          FiErrno.EMSGSIZE,
          FiErrno.EADDRNOTAVAIL,
          FiErrno.EKEYREJECTED,
          FiErrno.EACCES);

  private static LocalTarget target;
  private static Initiator initiator;
  private static long peer;
  private static final ReplayEngine REFERENCE = new ReferenceEngine();

  @BeforeAll
  static void open() {
    target = new LocalTarget("ucx", "shm", REGION);
    initiator = new Initiator("ucx", "shm", DomainAttr.Progress.MANUAL);
    peer = initiator.av.insert(target.address());
  }

  private static long refused;
  private static long completed;

  @AfterAll
  static void close() {
    System.out.printf(
        "CallArgumentsFuzzTest: %d calls refused, %d completed exact%n", refused, completed);
    initiator.close();
    target.close();
  }

  @FuzzTest(maxDuration = "120s")
  void everyCallIsRefusedUnchangedOrExact(FuzzedDataProvider data) {
    AtomicFamily family = data.pickValue(AtomicFamily.values());
    FiOp op = data.pickValue(FiOp.values());
    FiDatatype dt = data.pickValue(FiDatatype.values());
    int size = dt.size();
    // mostly calls that could be right, so that both outcomes are exercised
    int count = data.consumeBoolean() ? data.consumeInt(1, 8) : data.consumeInt(-2, 600);
    long addr =
        switch (data.consumeInt(0, 3)) {
          case 0, 1 -> (long) data.consumeInt(0, REGION / size - 1) * size;
          case 2 -> data.consumeLong(-64, REGION + 64);
          default -> data.consumeLong();
        };
    long key = data.consumeInt(0, 7) != 0 ? target.key() : data.consumeLong();
    long to = data.consumeInt(0, 7) != 0 ? peer : data.consumeLong(-2, 8);
    int exact = Math.max(0, count) * size;
    int[] kinds = {data.consumeInt(0, 9), data.consumeInt(0, 9), data.consumeInt(0, 9)};
    int[] lengths = new int[3];
    for (int i = 0; i < 3; i++) {
      lengths[i] = data.consumeInt(0, 3) != 0 ? exact : data.consumeInt(0, 600 * 32 + 8);
    }
    // contents last: what is left of the input, repeated (the target's bytes, then the buffers')
    byte[] rest = data.consumeRemainingAsBytes();
    target.set(0, filled(rest, REGION));
    byte[] before = target.get(0, REGION);
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment operand = buffer(kinds[0], lengths[0], rest, 1, arena);
      MemorySegment compare = buffer(kinds[1], lengths[1], rest, 2, arena);
      MemorySegment result = buffer(kinds[2], lengths[2], rest, 3, arena);
      byte[] operandBytes = bytesOf(operand);
      byte[] compareBytes = bytesOf(compare);
      int rc =
          initiator.post(family, op, dt, count, operand, compare, result, to, addr, key, "call");
      if (rc < 0) {
        assertTrue(REFUSALS.contains(-rc), "refused with " + FiErrno.errorString(rc));
        assertArrayEquals(before, target.get(0, REGION), "a refused call changed the target");
        refused++;
        return;
      }
      assertEquals(0, rc);
      int n = initiator.cq.sread(new dev.fiucx.CqEntry[] {new dev.fiucx.CqEntry()}, 1, 10_000);
      if (n == -FiErrno.EAVAIL) {
        CqErrEntry e = new CqErrEntry();
        initiator.cq.readErr(e);
        throw new AssertionError("an accepted call failed: " + FiErrno.errorString(e.err));
      }
      assertEquals(1, n, "one completion within 10 s");
      int bytes = count * size;
      int at = (int) addr; // accepted: within the region
      VectorCase c =
          new VectorCase(
              "fuzz",
              family,
              op,
              dt,
              count,
              java.util.Arrays.copyOfRange(before, at, at + bytes),
              operandBytes == null ? null : java.util.Arrays.copyOf(operandBytes, bytes),
              compareBytes == null || !op.isCompareOp()
                  ? null
                  : java.util.Arrays.copyOf(compareBytes, bytes),
              null,
              null,
              false);
      ReplayEngine.Outcome expected = REFERENCE.run(c);
      assertEquals(ReplayEngine.Status.RAN, expected.status(), expected.detail());
      byte[] after = target.get(0, REGION);
      assertArrayEquals(
          expected.finalTarget(), java.util.Arrays.copyOfRange(after, at, at + bytes), "target");
      assertArrayEquals(
          java.util.Arrays.copyOfRange(before, 0, at),
          java.util.Arrays.copyOfRange(after, 0, at),
          "bytes before the call's elements");
      assertArrayEquals(
          java.util.Arrays.copyOfRange(before, at + bytes, REGION),
          java.util.Arrays.copyOfRange(after, at + bytes, REGION),
          "bytes after the call's elements");
      if (family != AtomicFamily.BASE) {
        assertArrayEquals(
            expected.result(), result.asSlice(0, bytes).toArray(ValueLayout.JAVA_BYTE), "result");
      }
      completed++;
    }
  }

  /**
   * Kind 0: null; 1: a heap buffer (the transport cannot write it); 2: a native one, misaligned; 3:
   * a read-only view; else native and 16-byte aligned. Filled from {@code content}, rotated by
   * {@code shift} so that operand, compare and target differ.
   */
  private static MemorySegment buffer(
      int kind, int length, byte[] content, int shift, Arena arena) {
    if (kind == 0) {
      return null;
    }
    byte[] full = filled(content, length + shift);
    MemorySegment s =
        switch (kind) {
          case 1 -> MemorySegment.ofArray(new byte[length]);
          case 2 -> arena.allocate(length + 1, 8).asSlice(1, length);
          default -> arena.allocate(Math.max(1, length), 16).asSlice(0, length);
        };
    MemorySegment.copy(full, shift, s, ValueLayout.JAVA_BYTE, 0, length);
    return kind == 3 ? s.asReadOnly() : s;
  }

  /** {@code length} bytes of {@code content} repeated (zeros when it is empty). */
  private static byte[] filled(byte[] content, int length) {
    byte[] b = new byte[length];
    if (content.length > 0) {
      for (int i = 0; i < length; i++) {
        b[i] = content[i % content.length];
      }
    }
    return b;
  }

  private static byte[] bytesOf(MemorySegment s) {
    return s == null ? null : s.toArray(ValueLayout.JAVA_BYTE);
  }
}
