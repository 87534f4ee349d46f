package dev.fiucx.ucx.integration;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.AtomicFamily;
import dev.fiucx.AtomicMsg;
import dev.fiucx.CqEntry;
import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.EmulationCounts;
import dev.fiucx.Fabric;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.Ioc;
import dev.fiucx.Mechanism;
import dev.fiucx.MemoryRegion;
import dev.fiucx.RmaIoc;
import dev.fiucx.conformance.remote.FetchAddProcess;
import dev.fiucx.conformance.remote.Initiator;
import dev.fiucx.conformance.remote.JavaCommand;
import dev.fiucx.conformance.suite.RequiresProvider;
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
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The remote lock across processes: DOUBLE_COMPLEX SUMs from two processes on one element, and a
 * process killed while it holds a lock, over shared memory (no failure detection: the lease frees
 * the lock) and TCP (the target sees the connection fail and frees it at once).
 */
@RequiresProvider("ucx")
class RemoteLockOverUcxTest {
  private static final long ACCESS = FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE;
  private static final long LEASE_MS = 400;
  private static final java.lang.invoke.VarHandle WORDS = JAVA_LONG.varHandle();

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
      EmulationCounts c = counters(me.domain);
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
                    Map.of(DomainAttr.LOCK_LEASE_OPTION, Long.toString(LEASE_MS))));
        Arena arena = Arena.ofConfined()) {
      MemoryRegion region = target.allocateMemory(64, ACCESS);
      region.segment().set(JAVA_DOUBLE, 0, 1.5);
      region.segment().set(JAVA_DOUBLE, 8, -2.0);
      byte[] address = target.openEndpoint().name();
      int stripe = LockWords.stripe(region.segment().address());
      MemorySegment locks = lockWords(target);

      killAfterItSays(
          "hold",
          transport,
          address,
          stripe,
          said -> {
            assertEquals("HELD", said[0]);
            int owner = Integer.parseUnsignedInt(said[1]);
            assertEquals(LockWords.taken(0, owner), locks.get(JAVA_LONG, LockWords.offset(stripe)));
          });

      EmulationCounts targetCounters = counters(target);
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
      EmulationCounts mine = counters(me.domain);
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

  /**
   * A process takes a ticket for a held stripe and is killed before its turn. When the holder (this
   * domain, so never taken over) lets go, the dead ticket's turn comes and nobody claims it: the
   * next waiter skips it after the claim time (eight turns, at least 20 us, at most an eighth of
   * the lease) and computes on the element's true value. Over TCP too: the target frees a dead
   * initiator's holdings, but cannot know its tickets.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"shm", "tcp"})
  void aProcessKilledWaitingWithATicketStallsOthersLessThanALease(String transport)
      throws Exception {
    try (Domain target = openTarget(transport);
        Initiator me =
            new Initiator(
                "ucx",
                new DomainAttr(
                    transport,
                    DomainAttr.Progress.MANUAL,
                    false,
                    Map.of(DomainAttr.LOCK_LEASE_OPTION, Long.toString(LEASE_MS))));
        Arena arena = Arena.ofConfined()) {
      MemoryRegion region = target.allocateMemory(64, ACCESS);
      region.segment().set(JAVA_DOUBLE, 0, 1.5);
      byte[] address = target.openEndpoint().name();
      int stripe = LockWords.stripe(region.segment().address());
      MemorySegment locks = lockWords(target);
      long at = LockWords.offset(stripe);
      int mine = ((EngineDomain) me.domain).lockOwner();
      locks.set(JAVA_LONG, at, LockWords.taken(0, mine)); // held by this domain: alive

      killAfterItSays(
          "ticket",
          transport,
          address,
          stripe,
          said -> {
            assertEquals("TICKET", said[0]);
            assertEquals(1, Integer.parseInt(said[1]), "the ticket after the holder's");
          });
      assertEquals(LockWords.word(2, 0, mine), locks.get(JAVA_LONG, at), "its ticket stays");

      long peer = me.av.insert(address);
      MemorySegment operand = arena.allocate(16, 16);
      operand.set(JAVA_DOUBLE, 0, 1.0);
      MemorySegment result = arena.allocate(16, 16);
      assertEquals(0, fetchSum(me, operand, result, peer, region));
      CqEntry[] entries = {new CqEntry()};
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (locks.get(JAVA_LONG, at) != LockWords.word(3, 0, mine)
          && System.nanoTime() - deadline < 0) {
        assertEquals(-FiErrno.EAGAIN, me.cq.read(entries, 1), "waits behind the holder");
      }
      assertEquals(LockWords.word(3, 0, mine), locks.get(JAVA_LONG, at), "with ticket 2");
      for (int i = 0; i < 100; i++) {
        assertEquals(-FiErrno.EAGAIN, me.cq.read(entries, 1), "waits behind the holder");
      }
      long w = locks.get(JAVA_LONG, at);
      // the holder lets go with a compare-and-swap, as its release would
      assertTrue((boolean) WORDS.compareAndSet(locks, at, w, LockWords.released(w)));
      long released = System.nanoTime();
      me.awaitCompletion();
      long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);
      assertEquals(1.5, result.get(JAVA_DOUBLE, 0));
      assertEquals(2.5, region.segment().get(JAVA_DOUBLE, 0));
      EmulationCounts c = counters(me.domain);
      assertEquals(1, c.turnsSkipped(), "the dead ticket's turn");
      assertEquals(0, c.locksTakenOver());
      assertEquals(2, c.maxLockTurns(), "the holder's turn and the dead ticket's");
      assertEquals(LockWords.word(3, 3, 0), locks.get(JAVA_LONG, at), "free");
      assertTrue(waitedMs < 5_000, "blocked " + waitedMs + " ms");
      System.err.printf(
          "RemoteLockOverUcxTest %s: the killed waiter's ticket blocked the next one %d ms"
              + " (lease %d ms)%n",
          transport, waitedMs, LEASE_MS);
    }
  }

  /**
   * Eight initiators (threads, each with a domain of its own under manual progress, as bench runs
   * them) keep eight fetch SUMs each in flight on one DOUBLE_COMPLEX. It ends exact, every value
   * before a SUM is fetched exactly once, and no ticket had more turns ahead of it than there are
   * other elements in flight: tickets are served in order. (More threads than cores: a waiter whose
   * thread is set aside when its turn comes loses the turn and takes a new ticket; those are
   * counted and printed, with the wait per op.)
   */
  @ParameterizedTest(name = "{0}: 8 threads x 8 in flight x {1} SUMs on one DOUBLE_COMPLEX")
  @CsvSource({"shm, 2000", "tcp, 25"})
  void contendedSumsAreExactAndWaitNoMoreTurnsThanContenders(String transport, int perThread)
      throws Exception {
    int threads = 8;
    int window = 8;
    int total = threads * perThread;
    AtomicIntegerArray fetched = new AtomicIntegerArray(total);
    List<Initiator> initiators = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try (Domain target = openTarget(transport)) {
      MemoryRegion region = target.allocateMemory(64, ACCESS);
      byte[] address = target.openEndpoint().name();
      long[] waits = new long[2]; // sum and max, in nanoseconds
      try {
        for (int t = 0; t < threads; t++) {
          initiators.add(
              new Initiator(
                  "ucx",
                  new DomainAttr(
                      transport,
                      DomainAttr.Progress.MANUAL,
                      false,
                      Map.of(DomainAttr.LOCK_LEASE_OPTION, "60000"))));
        }
        CountDownLatch go = new CountDownLatch(1);
        List<Future<long[]>> runs = new ArrayList<>();
        for (Initiator ini : initiators) {
          long peer = ini.av.insert(address);
          runs.add(
              pool.submit(
                  () -> sumsInFlight(ini, peer, region.key(), perThread, window, fetched, go)));
        }
        go.countDown();
        for (Future<long[]> run : runs) {
          long[] w = run.get(300, TimeUnit.SECONDS);
          waits[0] += w[0];
          waits[1] = Math.max(waits[1], w[1]);
        }
        long elements = 0;
        long turns = 0;
        long maxTurns = 0;
        long maxTicketTurns = 0;
        long tickets = 0;
        long skipped = 0;
        for (Initiator ini : initiators) {
          EmulationCounts c = counters(ini.domain);
          elements += c.lockElements();
          turns += c.lockTurns();
          maxTurns = Math.max(maxTurns, c.maxLockTurns());
          maxTicketTurns = Math.max(maxTicketTurns, c.maxTicketTurns());
          tickets += c.tickets();
          skipped += c.turnsSkipped();
          assertEquals(0, c.locksTakenOver());
          assertEquals(0, c.locksLost());
          assertEquals(0, c.lockRestarts());
        }
        assertEquals(total, elements);
        assertEquals(total, region.segment().get(JAVA_DOUBLE, 16), "real part: every SUM");
        assertEquals(0.0, region.segment().get(JAVA_DOUBLE, 24));
        for (int v = 0; v < total; v++) {
          assertEquals(1, fetched.get(v), "value " + v + " fetched");
        }
        assertTrue(
            maxTicketTurns <= threads * window - 1,
            "a ticket had " + maxTicketTurns + " ahead of it, more than the other elements");
        System.err.printf(
            "RemoteLockOverUcxTest %s contention: %d SUMs, wait per op mean %.1f us, max %.1f ms;"
                + " turns per op mean %.2f, max %d (per ticket max %d); %d tickets,"
                + " %d unclaimed turns skipped%n",
            transport,
            total,
            waits[0] / 1e3 / total,
            waits[1] / 1e6,
            (double) turns / total,
            maxTurns,
            maxTicketTurns,
            tickets,
            skipped);
      } finally {
        pool.shutdownNow(); // the loops stop at interruption: no domain is closed under a thread
        assertTrue(pool.awaitTermination(60, TimeUnit.SECONDS));
        for (Initiator ini : initiators) {
          ini.close();
        }
      }
    }
  }

  /**
   * One initiator's loop: up to {@code window} fetch SUMs of (1, 0) in flight on element 16 until
   * {@code n} completed; marks each fetched real part and returns the sum and the maximum of the
   * times from post to completion.
   */
  private static long[] sumsInFlight(
      Initiator ini,
      long peer,
      long key,
      int n,
      int window,
      AtomicIntegerArray fetched,
      CountDownLatch go)
      throws InterruptedException {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment operand = arena.allocate(16, 16);
      operand.set(JAVA_DOUBLE, 0, 1.0);
      MemorySegment[] results = new MemorySegment[window];
      Integer[] contexts = new Integer[window];
      int[] free = new int[window];
      CqEntry[] entries = new CqEntry[window];
      for (int i = 0; i < window; i++) {
        results[i] = arena.allocate(16, 16);
        contexts[i] = i;
        free[i] = i;
        entries[i] = new CqEntry();
      }
      long[] postedAt = new long[window];
      int freeSlots = window;
      int posted = 0;
      int done = 0;
      long sum = 0;
      long max = 0;
      go.await();
      while (done < n) {
        if (Thread.interrupted()) {
          throw new InterruptedException("stopped with " + (posted - done) + " in flight");
        }
        while (posted < n && freeSlots > 0) {
          int slot = free[freeSlots - 1];
          postedAt[slot] = System.nanoTime();
          int rc =
              ini.ep.fetchAtomic(
                  operand,
                  1,
                  null,
                  results[slot],
                  null,
                  peer,
                  16,
                  key,
                  FiDatatype.DOUBLE_COMPLEX,
                  FiOp.SUM,
                  contexts[slot]);
          if (rc == -FiErrno.EAGAIN) {
            break;
          }
          assertEquals(0, rc);
          freeSlots--;
          posted++;
        }
        int k = ini.cq.read(entries, window);
        assertTrue(k >= 0 || k == -FiErrno.EAGAIN, "cq read: " + k);
        long now = System.nanoTime();
        for (int i = 0; i < k; i++) {
          int slot = (Integer) entries[i].opContext;
          long waited = now - postedAt[slot];
          sum += waited;
          max = Math.max(max, waited);
          double before = results[slot].get(JAVA_DOUBLE, 0);
          int v = (int) before;
          assertEquals(v, before, "a whole count");
          fetched.incrementAndGet(v);
          free[freeSlots++] = slot;
          done++;
        }
      }
      return new long[] {sum, max};
    }
  }

  /**
   * The target's lock region answers to no user call: its key (the last 8 bytes of the address) is
   * refused by every call form exactly as a key the target never gave out, with the same errno in
   * the same order, before and after the engine resolved the lock region itself. The lock words and
   * the region stay as they were, nothing the domains describe shows the key, and the same endpoint
   * then does exact ops.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"shm", "tcp"})
  void theLockKeyIsRefusedByEveryCallAsAnUnknownKey(String transport) {
    try (Domain target = openTarget(transport);
        Initiator me = new Initiator("ucx", transport, DomainAttr.Progress.MANUAL);
        Arena arena = Arena.ofConfined()) {
      MemoryRegion region = target.allocateMemory(64, ACCESS);
      byte[] address = target.openEndpoint().name();
      long peer = me.av.insert(address);
      long lockKey = LockHolderProcess.lockKey(address);
      long unknownKey = ~lockKey;
      assertTrue(unknownKey != region.key());
      MemorySegment locks = lockWords(target);
      MemorySegment operand = arena.allocate(64, 16);
      operand.fill((byte) 1);
      MemorySegment result = arena.allocate(64, 16);
      for (int round = 0; round < 2; round++) {
        byte[] wordsBefore = locks.toArray(JAVA_BYTE);
        byte[] regionBefore = region.segment().toArray(JAVA_BYTE);
        for (long key : new long[] {lockKey, unknownKey}) {
          String k = key == lockKey ? "lock key" : "unknown key";
          assertRefused(
              -FiErrno.EKEYREJECTED,
              k + ", fi_atomic UINT64",
              () ->
                  me.ep.atomic(operand, 1, null, peer, 0, key, FiDatatype.UINT64, FiOp.SUM, null));
          assertRefused(
              -FiErrno.EKEYREJECTED,
              k + ", fi_inject_atomic UINT64",
              () -> me.ep.injectAtomic(operand, 1, peer, 8, key, FiDatatype.UINT64, FiOp.SUM));
          assertRefused(
              -FiErrno.EKEYREJECTED,
              k + ", fi_fetch_atomic DOUBLE_COMPLEX",
              () ->
                  me.ep.fetchAtomic(
                      operand,
                      1,
                      null,
                      result,
                      null,
                      peer,
                      0,
                      key,
                      FiDatatype.DOUBLE_COMPLEX,
                      FiOp.SUM,
                      null));
          assertRefused(
              -FiErrno.EKEYREJECTED,
              k + ", fi_compare_atomic UINT64",
              () ->
                  me.ep.compareAtomic(
                      operand,
                      1,
                      null,
                      operand,
                      null,
                      result,
                      null,
                      peer,
                      0,
                      key,
                      FiDatatype.UINT64,
                      FiOp.CSWAP,
                      null));
          assertRefused(
              -FiErrno.EKEYREJECTED,
              k + ", fi_atomic INT8 x4 (general path)",
              () -> me.ep.atomic(operand, 4, null, peer, 0, key, FiDatatype.INT8, FiOp.MIN, null));
          assertRefused(
              -FiErrno.EKEYREJECTED,
              k + ", second rma iov of fi_fetch_atomicmsg",
              () ->
                  me.ep.fetchAtomicmsg(
                      new AtomicMsg(
                          new Ioc[] {new Ioc(operand, 2)},
                          null,
                          peer,
                          new RmaIoc[] {new RmaIoc(0, 1, region.key()), new RmaIoc(8, 1, key)},
                          FiDatatype.UINT64,
                          FiOp.SUM,
                          null,
                          0),
                      new Ioc[] {new Ioc(result, 2)},
                      null,
                      1,
                      0));
          // the order of the checks: the peer, then local buffers, then the key, then the range
          assertRefused(
              -FiErrno.EADDRNOTAVAIL,
              k + ", no such peer",
              () ->
                  me.ep.fetchAtomic(
                      operand,
                      1,
                      null,
                      result,
                      null,
                      peer + 7,
                      0,
                      key,
                      FiDatatype.DOUBLE_COMPLEX,
                      FiOp.SUM,
                      null));
          assertRefused(
              -FiErrno.EINVAL,
              k + ", result too short",
              () ->
                  me.ep.fetchAtomic(
                      operand,
                      1,
                      null,
                      result.asSlice(0, 8),
                      null,
                      peer,
                      0,
                      key,
                      FiDatatype.DOUBLE_COMPLEX,
                      FiOp.SUM,
                      null));
          assertRefused(
              -FiErrno.EKEYREJECTED,
              k + ", out of range as well",
              () ->
                  me.ep.fetchAtomic(
                      operand,
                      1,
                      null,
                      result,
                      null,
                      peer,
                      1L << 40,
                      key,
                      FiDatatype.UINT64,
                      FiOp.SUM,
                      null));
          FiException e =
              org.junit.jupiter.api.Assertions.assertThrows(
                  FiException.class, () -> me.ep.atomicPath(peer, key));
          assertEquals(FiErrno.EKEYREJECTED, e.errno(), k + ", atomicPath");
        }
        assertArrayEquals(wordsBefore, locks.toArray(JAVA_BYTE), "lock words unchanged");
        assertArrayEquals(regionBefore, region.segment().toArray(JAVA_BYTE), "region unchanged");
        // exact ops on the same endpoint; the first also makes the engine resolve the lock region
        operand.set(JAVA_DOUBLE, 0, 1.0);
        operand.set(JAVA_DOUBLE, 8, -1.0);
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
        assertEquals(round, result.get(JAVA_DOUBLE, 0));
        assertEquals(-round, result.get(JAVA_DOUBLE, 8));
        assertEquals(round + 1.0, region.segment().get(JAVA_DOUBLE, 16));
        operand.set(JAVA_LONG, 0, 5);
        assertEquals(
            0,
            me.post(
                AtomicFamily.FETCH,
                FiOp.SUM,
                FiDatatype.UINT64,
                1,
                operand,
                null,
                result,
                peer,
                0,
                region.key(),
                null));
        me.awaitCompletion();
        assertEquals(5L * round, result.get(JAVA_LONG, 0));
        assertEquals(5L * (round + 1), region.segment().get(JAVA_LONG, 0));
        operand.fill((byte) 1);
      }
      String printed = me.domain.describe() + " " + target.describe();
      for (String form :
          List.of(
              "%016x".formatted(lockKey),
              Long.toHexString(lockKey),
              Long.toUnsignedString(lockKey),
              Long.toString(lockKey))) {
        assertFalse(printed.contains(form), "describe shows the lock key " + form);
      }
    }
  }

  private static void assertRefused(int errno, String what, java.util.function.IntSupplier call) {
    assertEquals(errno, call.getAsInt(), what);
  }

  private static int fetchSum(
      Initiator me, MemorySegment operand, MemorySegment result, long peer, MemoryRegion region) {
    return me.post(
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
        null);
  }

  /**
   * Runs {@link LockHolderProcess} in {@code mode} on {@code stripe}, reads the line it prints,
   * checks its words while it lives, kills it, and removes the shared-memory files it left behind.
   */
  private static void killAfterItSays(
      String mode,
      String transport,
      byte[] address,
      int stripe,
      java.util.function.Consumer<String[]> whileAlive)
      throws Exception {
    Process child =
        JavaCommand.inheritingIo(
                JavaCommand.of(
                    List.of(),
                    LockHolderProcess.class,
                    mode,
                    transport,
                    HexFormat.of().formatHex(address),
                    Integer.toString(stripe)))
            .redirectOutput(ProcessBuilder.Redirect.PIPE)
            .start();
    Set<Path> itsFiles = Set.of();
    try {
      String line;
      try (BufferedReader r =
          new BufferedReader(
              new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
        line = r.readLine();
      }
      assertTrue(line != null, "the " + mode + " process said nothing");
      itsFiles = shmFilesMappedBy(child.pid());
      whileAlive.accept(line.split(" "));
    } finally {
      child.destroyForcibly();
      assertTrue(child.waitFor(30, TimeUnit.SECONDS));
      Set<Path> ours = shmFilesMappedBy(ProcessHandle.current().pid());
      for (Path f : itsFiles) {
        if (!ours.contains(f)) {
          Files.deleteIfExists(f); // the killed process's UCX shared memory (never unlinked)
        }
      }
    }
  }

  /** The UCX posix shared-memory files a process has mapped. */
  private static Set<Path> shmFilesMappedBy(long pid) throws java.io.IOException {
    try (var lines = Files.lines(Path.of("/proc/" + pid + "/maps"))) {
      return lines
          .map(l -> l.substring(l.lastIndexOf(' ') + 1))
          .filter(f -> f.startsWith("/dev/shm/ucx_shm_posix_"))
          .map(Path::of)
          .collect(java.util.stream.Collectors.toSet());
    }
  }

  private static Domain openTarget(String transport) {
    return Fabric.openDomain(
        "ucx", new DomainAttr(transport, DomainAttr.Progress.AUTO, false, Map.of()));
  }

  private static EmulationCounts counters(Domain d) {
    return d.emulationCounts();
  }

  /** The target's lock words, read in place. */
  private static MemorySegment lockWords(Domain target) {
    return ((EngineDomain) target).lockRegion();
  }
}
