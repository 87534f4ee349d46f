package dev.fiucx.conformance.ucx;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.AtomicFamily;
import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.Mechanism;
import dev.fiucx.MemoryRegion;
import dev.fiucx.conformance.remote.FetchAddProcess;
import dev.fiucx.conformance.remote.Initiator;
import dev.fiucx.conformance.remote.JavaCommand;
import dev.fiucx.conformance.remote.LockHolderProcess;
import dev.fiucx.emulation.EmulationCounters;
import dev.fiucx.emulation.LockWords;
import dev.fiucx.engine.EngineDomain;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The remote lock across processes: DOUBLE_COMPLEX SUMs from two processes on one element, and a
 * process killed while it holds a lock, over shared memory (no failure detection: the lease frees
 * the lock) and TCP (the target sees the connection fail and frees it at once).
 */
class RemoteLockOverUcxTest {
  private static final long ACCESS = FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE;
  private static final long LEASE_MS = 400;

  @TempDir Path dir;

  /**
   * A child process adds (1, 0) and this one (0, 1), each {@code n} times, to one DOUBLE_COMPLEX
   * under its lock. Final: (n, n) exactly. The child fetched exactly 0, 1, ..., n-1 as real parts
   * and this process exactly 0, 1, ..., n-1 as imaginary parts, in order: no update was lost and
   * none was seen half-done.
   */
  @ParameterizedTest(name = "{0}: {1} DOUBLE_COMPLEX SUMs from each side")
  @CsvSource({"shm, 100000", "tcp, 3000"})
  void doubleComplexSumFromBothSides(String transport, int n) throws Exception {
    try (Domain target = openTarget(transport);
        Initiator me = new Initiator("ucx", transport, DomainAttr.Progress.MANUAL);
        Arena arena = Arena.ofConfined()) {
      assertEquals(
          Mechanism.REMOTE_LOCK,
          me.domain
              .queryAtomic(FiDatatype.DOUBLE_COMPLEX, FiOp.SUM, FiFlags.FETCH_ATOMIC)
              .mechanism());
      MemoryRegion region = target.allocateMemory(64, ACCESS);
      byte[] address = target.openEndpoint().name();
      long peer = me.av.insert(address);
      MemorySegment operand = arena.allocate(16, 16);
      operand.set(JAVA_DOUBLE, 8, 1.0);
      MemorySegment result = arena.allocate(16, 16);
      Path out = dir.resolve("child.bin");
      Process child =
          JavaCommand.inheritingIo(
                  JavaCommand.of(
                      List.of(),
                      FetchAddProcess.class,
                      "ucx",
                      transport,
                      HexFormat.of().formatHex(address),
                      Long.toString(region.key()),
                      Integer.toString(n),
                      out.toString(),
                      "16",
                      FiDatatype.DOUBLE_COMPLEX.fiName(),
                      FiOp.SUM.fiName(),
                      "000000000000f03f0000000000000000")) // (1.0, 0.0)
              .start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (region.segment().get(JAVA_DOUBLE, 16) == 0 && System.nanoTime() - deadline < 0) {
        Thread.onSpinWait(); // start once the child is adding, so that both sides overlap
      }
      double firstReal = -1;
      double lastReal = 0;
      for (int i = 0; i < n; i++) {
        assertEquals(
            0,
            me.post(
                AtomicFamily.FETCH,
                FiOp.SUM,
                FiDatatype.DOUBLE_COMPLEX,
                1,
                operand,
                null,
                result,
                peer,
                16,
                region.key(),
                null));
        me.awaitCompletion();
        assertEquals(i, result.get(JAVA_DOUBLE, 8), "imaginary part before my SUM " + i);
        double real = result.get(JAVA_DOUBLE, 0);
        assertTrue(real >= lastReal, "the child's count went back");
        lastReal = real;
        if (i == 0) {
          firstReal = real;
        }
      }
      assertTrue(lastReal > firstReal, "the child's SUMs landed between mine");
      assertTrue(child.waitFor(300, TimeUnit.SECONDS), "the child did not finish");
      assertEquals(0, child.exitValue());
      try (DataInputStream in = new DataInputStream(Files.newInputStream(out))) {
        for (int i = 0; i < n; i++) {
          assertEquals(i, Double.longBitsToDouble(in.readLong()), "real part before its SUM " + i);
        }
      }
      assertEquals(n, region.segment().get(JAVA_DOUBLE, 16), "final real part");
      assertEquals(n, region.segment().get(JAVA_DOUBLE, 24), "final imaginary part");
      EmulationCounters c = counters(me.domain);
      assertEquals(n, c.lockElements());
      assertEquals(0, c.locksTakenOver());
      assertEquals(0, c.locksLost());
      System.err.printf(
          "RemoteLockOverUcxTest %s: %d lock elements here, %d waited, %d restarts%n",
          transport, c.lockElements(), c.lockWaits(), c.lockRestarts());
    }
  }

  /**
   * A process takes the lock of an element and is killed holding it. The target learns of the death
   * (over TCP the connection fails; over shared memory, where UCX says nothing, it sees the
   * holder's process gone) and frees the lock itself, so the next initiator does not wait for the
   * lease and computes on the element's true value.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"shm", "tcp"})
  void aProcessKilledHoldingALockBlocksNoLongerThanTheLease(String transport) throws Exception {
    try (Domain target = openTarget(transport);
        Initiator me =
            new Initiator(
                "ucx",
                new DomainAttr(
                    transport,
                    DomainAttr.Progress.MANUAL,
                    false,
                    Map.of(EngineDomain.LOCK_LEASE_OPTION, Long.toString(LEASE_MS))));
        Arena arena = Arena.ofConfined()) {
      MemoryRegion region = target.allocateMemory(64, ACCESS);
      region.segment().set(JAVA_DOUBLE, 0, 1.5);
      region.segment().set(JAVA_DOUBLE, 8, -2.0);
      byte[] address = target.openEndpoint().name();
      int stripe = LockWords.stripe(region.segment().address());
      MemorySegment locks = lockWords(target);

      Process holder =
          JavaCommand.inheritingIo(
                  JavaCommand.of(
                      List.of(),
                      LockHolderProcess.class,
                      "ucx",
                      transport,
                      HexFormat.of().formatHex(address),
                      Integer.toString(stripe)))
              .redirectOutput(ProcessBuilder.Redirect.PIPE)
              .start();
      String line;
      try (BufferedReader r =
          new BufferedReader(
              new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8))) {
        line = r.readLine();
      }
      assertTrue(line != null && line.startsWith("HELD "), "the holder said " + line);
      int owner = Integer.parseUnsignedInt(line.substring(5));
      assertEquals(LockWords.taken(0, owner), locks.get(JAVA_LONG, LockWords.offset(stripe)));
      holder.destroyForcibly();
      assertTrue(holder.waitFor(30, TimeUnit.SECONDS));

      EmulationCounters targetCounters = counters(target);
      // both transports find the dead holder: tcp by UCX, shm by a look at the holder's process
      {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (targetCounters.locksReclaimed() == 0 && System.nanoTime() - deadline < 0) {
          Thread.sleep(10);
        }
        assertEquals(1, targetCounters.locksReclaimed(), "the target freed the dead holder's lock");
        assertTrue(LockWords.isFree(locks.get(JAVA_LONG, LockWords.offset(stripe))));
      }

      long peer = me.av.insert(address);
      MemorySegment operand = arena.allocate(16, 16);
      operand.set(JAVA_DOUBLE, 0, 1.0);
      operand.set(JAVA_DOUBLE, 8, 1.0);
      MemorySegment result = arena.allocate(16, 16);
      long start = System.nanoTime();
      assertEquals(
          0,
          me.post(
              AtomicFamily.FETCH,
              FiOp.SUM,
              FiDatatype.DOUBLE_COMPLEX,
              1,
              operand,
              null,
              result,
              peer,
              0,
              region.key(),
              null));
      me.awaitCompletion();
      long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertEquals(1.5, result.get(JAVA_DOUBLE, 0));
      assertEquals(-2.0, result.get(JAVA_DOUBLE, 8));
      assertEquals(2.5, region.segment().get(JAVA_DOUBLE, 0));
      assertEquals(-1.0, region.segment().get(JAVA_DOUBLE, 8));
      EmulationCounters mine = counters(me.domain);
      assertEquals(0, mine.locksTakenOver());
      assertEquals(0, mine.lockWaits());
      assertTrue(waitedMs < LEASE_MS, "blocked " + waitedMs + " ms");
      // the stripe is free again and nothing else is held: the next call does not wait
      assertEquals(
          0,
          me.post(
              AtomicFamily.FETCH,
              FiOp.SUM,
              FiDatatype.DOUBLE_COMPLEX,
              1,
              operand,
              null,
              result,
              peer,
              0,
              region.key(),
              null));
      me.awaitCompletion();
      assertEquals(3.5, region.segment().get(JAVA_DOUBLE, 0));
      assertEquals(0, mine.lockWaits());
      assertTrue(LockWords.isFree(locks.get(JAVA_LONG, LockWords.offset(stripe))));
      System.err.printf(
          "RemoteLockOverUcxTest %s: the killed holder's lock blocked the next caller %d ms%n",
          transport, waitedMs);
    }
  }

  private static Domain openTarget(String transport) {
    return Fabric.openDomain(
        "ucx", new DomainAttr(transport, DomainAttr.Progress.AUTO, false, Map.of()));
  }

  private static EmulationCounters counters(Domain d) {
    return ((EngineDomain) d).emulationCounters();
  }

  /** The target's lock words, read in place. */
  private static MemorySegment lockWords(Domain target) {
    return ((EngineDomain) target).lockRegion();
  }
}
