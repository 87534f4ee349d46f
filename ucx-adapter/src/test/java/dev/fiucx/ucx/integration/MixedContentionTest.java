package dev.fiucx.ucx.integration;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.AtomicFamily;
import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.DomainAttr;
import dev.fiucx.EmulationCounts;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiOp;
import dev.fiucx.Mechanism;
import dev.fiucx.conformance.remote.FetchAddProcess;
import dev.fiucx.conformance.remote.Initiator;
import dev.fiucx.conformance.remote.JavaCommand;
import dev.fiucx.conformance.remote.RemoteTarget;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.io.DataInputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Atomicity across processes when mechanisms mix on the same bytes: the target lives in one
 * process, a child initiator hammers an element, and this process runs CAS loops on the same word
 * for as long as the child runs, so the two overlap for the child's whole run. The ops are chosen
 * so that every interleaving gives one exact final value and exact fetched values: a lost or torn
 * update shows as a wrong byte.
 */
@RequiresProvider("ucx")
class MixedContentionTest {
  private static final long HIGH = 0xFFFF_FFFF_0000_0000L;

  @TempDir Path dir;

  /**
   * The child adds 1 to an INT64 N times with native fetch SUMs (the low half counts them); this
   * process, with CAS loops on the same INT64, sets the high half to k with MSWAP (mask: the high
   * half), then does a MAX and a MIN that must change nothing but still read a consistent value.
   * Final: {@code k << 32 | N}; the child fetched exactly 0..N-1 in its low half; this process
   * fetched exactly k-1 in the high half at its k-th MSWAP.
   *
   * <p>The paths mix too: over shm both initiators map the target's region (CPU atomics on the
   * mapping); with a target on shared memory and tcp, one initiator maps it while the other's
   * atomics travel over tcp and the target executes them, and with the direct path off every op
   * goes through UCX.
   */
  @ParameterizedTest(
      name = "target {0}, child {1}, this {2}: {3} native fetch SUMs against CAS MSWAP, MAX, MIN")
  @CsvSource({
    "shm, shm, shm, 1000000",
    "shm, shm-ucp, shm-ucp, 1000000",
    "tcp, tcp, tcp, 20000",
    "'sm,self,tcp', shm, tcp, 20000",
    "'sm,self,tcp', tcp, shm, 20000"
  })
  void nativeSumAgainstCasOpsOnOneInt64(
      String targetTransport, String childTransport, String transport, int n) throws Exception {
    try (RemoteTarget target =
            new RemoteTarget("ucx", targetTransport, 64, false, false, List.of());
        Initiator me = new Initiator("ucx", Initiator.manual(transport));
        Arena arena = Arena.ofConfined()) {
      assertEquals(Mechanism.NATIVE, mechanism(me, AtomicFamily.FETCH, FiOp.SUM));
      assertEquals(Mechanism.CAS_LOOP, mechanism(me, AtomicFamily.COMPARE, FiOp.MSWAP));
      assertEquals(Mechanism.CAS_LOOP, mechanism(me, AtomicFamily.FETCH, FiOp.MAX));
      assertEquals(Mechanism.CAS_LOOP, mechanism(me, AtomicFamily.FETCH, FiOp.MIN));
      long peer = me.av.insert(target.address());
      long key = target.key();
      assertEquals(path(transport), me.ep.atomicPath(peer, key), "this initiator's path");
      Path out = dir.resolve("sums.bin");
      Process child = start(target, childTransport, n, out, 0, FiDatatype.INT64, FiOp.SUM, 1);
      MemorySegment operand = arena.allocate(8, 8);
      MemorySegment compare = arena.allocate(8, 8);
      compare.set(JAVA_LONG, 0, HIGH);
      MemorySegment result = arena.allocate(8, 8);
      Caller call = new Caller(me);
      long k = 0;
      long lastLow = 0;
      do {
        k++;
        operand.set(JAVA_LONG, 0, k << 32);
        call.check(
            me.ep.compareAtomic(
                operand,
                1,
                null,
                compare,
                null,
                result,
                null,
                peer,
                0,
                key,
                FiDatatype.INT64,
                FiOp.MSWAP,
                null));
        long seen = result.get(JAVA_LONG, 0);
        assertEquals(k - 1, seen >>> 32, "MSWAP " + k + " fetched the high half it left");
        lastLow = atLeast(lastLow, seen);
        call.check(
            me.ep.fetchAtomic(
                operand, 1, null, result, null, peer, 0, key, FiDatatype.INT64, FiOp.MAX, null));
        seen = result.get(JAVA_LONG, 0);
        assertEquals(k, seen >>> 32, "MAX after MSWAP " + k);
        lastLow = atLeast(lastLow, seen);
        operand.set(JAVA_LONG, 0, (k << 32) | 0xFFFF_FFFFL);
        call.check(
            me.ep.fetchAtomic(
                operand, 1, null, result, null, peer, 0, key, FiDatatype.INT64, FiOp.MIN, null));
        seen = result.get(JAVA_LONG, 0);
        assertEquals(k, seen >>> 32, "MIN after MSWAP " + k);
        lastLow = atLeast(lastLow, seen);
      } while (child.isAlive());
      assertEquals(0, finish(child), "child initiator exit status");
      long finalValue = littleEndianLong(target.get(0, 8));
      assertEquals((k << 32) | n, finalValue, "high half: the last MSWAP; low half: every SUM");
      long[] sums = read(out, n);
      long lastHigh = 0;
      for (int i = 0; i < n; i++) {
        assertEquals(i, sums[i] & 0xFFFF_FFFFL, "SUM " + i + " fetched the count before it");
        assertTrue(sums[i] >>> 32 >= lastHigh && sums[i] >>> 32 <= k, "high halves only grow");
        lastHigh = sums[i] >>> 32;
      }
      report(transport, "native SUM x " + n + " vs CAS x " + 3 * k, me);
    }
  }

  /**
   * Two processes do fetching SUMs of 1 on neighbouring INT8 bytes of one 4-byte word (the CAS loop
   * swaps the whole word each time); the word's other two bytes are nobody's. Each byte ends at its
   * own count mod 256, each process fetched exactly 0, 1, 2, ... mod 256, and the two other bytes
   * are unchanged.
   */
  @ParameterizedTest(name = "{0}: {1} INT8 fetch SUMs per byte")
  @CsvSource({"shm, 1000000", "tcp, 20000"})
  void casOnNeighbouringBytesOfOneWord(String transport, int n) throws Exception {
    try (RemoteTarget target = new RemoteTarget("ucx", transport, 64, false, false, List.of());
        Initiator me = new Initiator("ucx", transport, DomainAttr.Progress.MANUAL);
        Arena arena = Arena.ofConfined()) {
      assertEquals(
          Mechanism.CAS_LOOP,
          me.domain
              .queryAtomic(FiDatatype.INT8, FiOp.SUM, AtomicFamily.FETCH.queryFlag())
              .mechanism());
      target.set(0, new byte[] {0, 0, 0x5A, (byte) 0xA5, 0x11, 0x22, 0x33, 0x44});
      long peer = me.av.insert(target.address());
      Path out = dir.resolve("byte1.bin");
      Process child = start(target, transport, n, out, 1, FiDatatype.INT8, FiOp.SUM, 1);
      MemorySegment one = arena.allocate(1, 1).fill((byte) 1);
      MemorySegment result = arena.allocate(1, 1);
      Caller call = new Caller(me);
      long mine = 0;
      do {
        call.check(
            me.ep.fetchAtomic(
                one,
                1,
                null,
                result,
                null,
                peer,
                0,
                target.key(),
                FiDatatype.INT8,
                FiOp.SUM,
                null));
        assertEquals((byte) mine, result.get(JAVA_BYTE, 0), "my SUM " + mine);
        mine++;
      } while (child.isAlive() || mine < n);
      assertEquals(0, finish(child), "child initiator exit status");
      byte[] word = target.get(0, 8);
      assertEquals((byte) mine, word[0], "my byte");
      assertEquals((byte) n, word[1], "the child's byte");
      assertEquals(0x5A, word[2], "nobody's byte");
      assertEquals((byte) 0xA5, word[3], "nobody's byte");
      assertEquals(0x44332211, ByteBuffer.wrap(word, 4, 4).order(ByteOrder.LITTLE_ENDIAN).getInt());
      long[] theirs = read(out, n);
      for (int i = 0; i < n; i++) {
        assertEquals(i & 0xFF, theirs[i], "the child's SUM " + i);
      }
      report(transport, "INT8 SUM x " + mine + " beside INT8 SUM x " + n, me);
    }
  }

  private static Mechanism mechanism(Initiator f, AtomicFamily family, FiOp op) {
    return f.domain.queryAtomic(FiDatatype.INT64, op, family.queryFlag()).mechanism();
  }

  /** Low halves (the SUM count) never go back. */
  private static long atLeast(long lastLow, long seen) {
    long low = seen & 0xFFFF_FFFFL;
    assertTrue(low >= lastLow, "the SUM count went back from " + lastLow + " to " + low);
    return low;
  }

  /** Waits for each call's completion, failing on an error. */
  private static final class Caller {
    private final Initiator f;
    private final CqEntry[] entries = {new CqEntry()};

    Caller(Initiator f) {
      this.f = f;
    }

    void check(int rc) {
      assertEquals(0, rc, () -> FiErrno.errorString(rc));
      int n = f.cq.sread(entries, 1, 10_000);
      if (n == -FiErrno.EAVAIL) {
        CqErrEntry e = new CqErrEntry();
        f.cq.readErr(e);
        throw new AssertionError("error completion: " + e);
      }
      assertEquals(1, n, () -> "no completion: " + FiErrno.errorString(n));
    }
  }

  private static Process start(
      RemoteTarget target,
      String transport,
      int n,
      Path out,
      long offset,
      FiDatatype datatype,
      FiOp op,
      long operand)
      throws IOException {
    return JavaCommand.inheritingIo(
            JavaCommand.of(
                List.of(),
                FetchAddProcess.class,
                "ucx",
                transport,
                HexFormat.of().formatHex(target.address()),
                Long.toString(target.key()),
                Integer.toString(n),
                out.toString(),
                Long.toString(offset),
                datatype.fiName(),
                op.fiName(),
                Long.toString(operand)))
        .start();
  }

  private static int finish(Process child) throws InterruptedException {
    if (!child.waitFor(120, TimeUnit.SECONDS)) {
      child.destroyForcibly();
      throw new AssertionError("the child initiator did not finish");
    }
    return child.exitValue();
  }

  private static long littleEndianLong(byte[] b) {
    return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getLong();
  }

  private static long[] read(Path file, int n) throws IOException {
    long[] v = new long[n];
    try (DataInputStream in =
        new DataInputStream(new java.io.BufferedInputStream(Files.newInputStream(file)))) {
      for (int i = 0; i < n; i++) {
        v[i] = in.readLong();
      }
    }
    return v;
  }

  /** The path an initiator on {@code transport} takes to a region the target allocated. */
  private static String path(String transport) {
    return transport.equals("shm") ? "mapped" : "ucp";
  }

  private static void report(String transport, String what, Initiator me) {
    EmulationCounts c = me.domain.emulationCounts();
    System.err.printf(
        "MixedContentionTest %s, %s: this process posted %d swaps, %d retries, %d skipped%n",
        transport, what, c.casAttempts(), c.casRetries(), c.swapsSkipped());
  }
}
