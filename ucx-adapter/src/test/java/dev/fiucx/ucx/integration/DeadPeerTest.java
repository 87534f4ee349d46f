package dev.fiucx.ucx.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.fiucx.AtomicFamily;
import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.DomainAttr;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.Mechanism;
import dev.fiucx.conformance.remote.Initiator;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A target process killed with operations of every mechanism in flight (native, CAS loop, remote
 * lock; fetching and compare calls), through the public API: within 5 s every operation ends
 * exactly once (a completion, or an error entry FI_ECONNRESET with its own context), nothing stays
 * pending, later calls are refused with -FI_ECONNRESET, and closing takes well under a second.
 *
 * <p>The target is frozen (SIGSTOP) before the operations are posted, so that every one that waits
 * for the target is really in flight when it dies. Over shared memory UCX never reports the death;
 * fiucx sees the target's process gone.
 */
@RequiresProvider("ucx")
class DeadPeerTest {
  private static final long FIVE_SECONDS = 5_000_000_000L;
  private static final int PER_MECHANISM = 4;

  /** One call shape per mechanism, each on elements of its own. */
  private record Call(AtomicFamily family, FiOp op, FiDatatype datatype, long addr, Mechanism m) {}

  private static final List<Call> CALLS =
      List.of(
          new Call(AtomicFamily.FETCH, FiOp.SUM, FiDatatype.UINT64, 0, Mechanism.NATIVE),
          new Call(AtomicFamily.COMPARE, FiOp.CSWAP, FiDatatype.UINT64, 64, Mechanism.NATIVE),
          new Call(AtomicFamily.FETCH, FiOp.MIN, FiDatatype.INT64, 128, Mechanism.CAS_LOOP),
          new Call(AtomicFamily.COMPARE, FiOp.CSWAP_LT, FiDatatype.INT32, 192, Mechanism.CAS_LOOP),
          new Call(
              AtomicFamily.FETCH, FiOp.SUM, FiDatatype.DOUBLE_COMPLEX, 256, Mechanism.REMOTE_LOCK),
          new Call(
              AtomicFamily.FETCH, FiOp.MAX, FiDatatype.LONG_DOUBLE, 320, Mechanism.REMOTE_LOCK));

  @ParameterizedTest(name = "{0}, {1} memory, {2} progress")
  @CsvSource({
    "shm,register,MANUAL",
    "shm,allocate,MANUAL",
    "tcp,allocate,MANUAL",
    "tcp,register,MANUAL",
    "shm,register,AUTO",
    "tcp,register,AUTO"
  })
  void everyOperationToAKilledTargetEndsOnceAndLaterCallsAreRefused(
      String transport, String memory, DomainAttr.Progress progress) throws Exception {
    killWithOperationsInFlight(transport, memory, progress, List.of());
  }

  /**
   * The same with the target in a pid namespace of its own, as in a container on this host. Its pid
   * means nothing in this process's /proc, and UCX 1.13 reaches it only over tcp (its shared-memory
   * transports cannot: NamespacesTest), where UCX's peer-failure handling reports the death.
   */
  @ParameterizedTest(name = "tcp, {0} memory, {1} progress, the target in its own pid namespace")
  @CsvSource({"register,MANUAL", "allocate,AUTO"})
  void aTargetInAnotherPidNamespaceEndsTheSameWay(String memory, DomainAttr.Progress progress)
      throws Exception {
    assumeTrue(ServingTarget.pidNamespacesAvailable(), "needs root and util-linux's unshare");
    killWithOperationsInFlight("tcp", memory, progress, ServingTarget.OWN_PID_NAMESPACE);
  }

  private void killWithOperationsInFlight(
      String transport, String memory, DomainAttr.Progress progress, List<String> prefix)
      throws Exception {
    ServingTarget target = ServingTarget.start(transport, memory.equals("register"), 4096, prefix);
    Initiator ini =
        new Initiator("ucx", new DomainAttr(transport, progress, false, java.util.Map.of()));
    boolean closed = false;
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment operand = arena.allocate(32, 16);
      MemorySegment compare = arena.allocate(32, 16);
      MemorySegment results = arena.allocate(32L * CALLS.size() * (PER_MECHANISM + 1), 16);
      long peer = ini.av.insert(target.address);
      for (Call c : CALLS) {
        long flags =
            c.family() == AtomicFamily.COMPARE ? FiFlags.COMPARE_ATOMIC : FiFlags.FETCH_ATOMIC;
        assertEquals(
            c.m(), ini.domain.queryAtomic(c.datatype(), c.op(), flags).mechanism(), "" + c);
        // once alive: keys and the lock region resolved, so what follows waits only for the target
        assertEquals(0, post(ini, c, operand, compare, results, peer, target.key, "warm " + c));
        assertEquals("warm " + c, ini.awaitCompletion());
      }

      target.freeze();
      Map<Object, Integer> ended = new IdentityHashMap<>();
      List<Object> posted = new ArrayList<>();
      int slot = 0;
      for (int i = 0; i < PER_MECHANISM; i++) {
        for (Call c : CALLS) {
          Object context = new String(c + " #" + i);
          MemorySegment result = results.asSlice(32L * slot++, 32);
          int rc = post(ini, c, operand, compare, result, peer, target.key, context);
          assertEquals(0, rc, "posted to a frozen, living target: " + c);
          posted.add(context);
        }
      }
      target.kill();
      long killed = System.nanoTime();

      CqEntry[] entries = {new CqEntry()};
      CqErrEntry error = new CqErrEntry();
      int errors = 0;
      while (ended.size() < posted.size()) {
        assertTrue(
            System.nanoTime() - killed < FIVE_SECONDS,
            (posted.size() - ended.size()) + " operations still pending 5 s after the kill");
        int n = ini.cq.read(entries, 1);
        Object context;
        if (n == -FiErrno.EAVAIL) {
          assertEquals(1, ini.cq.readErr(error));
          assertEquals(FiErrno.ECONNRESET, error.err, "error entry " + error);
          context = error.opContext;
          errors++;
        } else if (n == 1) {
          context = entries[0].opContext;
        } else {
          assertEquals(-FiErrno.EAGAIN, n);
          continue;
        }
        assertTrue(posted.stream().anyMatch(p -> p == context), "no such operation: " + context);
        assertEquals(null, ended.put(context, n), "ended twice: " + context);
      }
      long endedMs = (System.nanoTime() - killed) / 1_000_000;
      if (!memory.equals("allocate") || transport.equals("tcp")) {
        assertTrue(errors > 0, "operations that waited for the dead target end in error entries");
      }

      // later calls: refused once the death is known (at once, or after a few calls that the
      // direct path still did into the mapping of the dead target's memory)
      for (Call c : CALLS) {
        int rc;
        while ((rc = post(ini, c, operand, compare, results, peer, target.key, "late")) == 0) {
          assertTrue(System.nanoTime() - killed < FIVE_SECONDS, "calls still accepted: " + c);
          ini.awaitCompletion();
        }
        assertEquals(-FiErrno.ECONNRESET, rc, "" + c);
      }
      for (int i = 0; i < 100; i++) {
        assertEquals(-FiErrno.EAGAIN, ini.cq.read(entries, 1), "nothing more ends");
      }

      long t0 = System.nanoTime();
      ini.close();
      closed = true;
      long closing = System.nanoTime() - t0;
      assertTrue(closing < 1_000_000_000L, "closing took " + closing / 1_000_000 + " ms");
      System.err.printf(
          "DeadPeerTest %s %s %s%s: %d operations ended %d ms after the kill (%d error entries),"
              + " closed in %d ms%n",
          transport,
          memory,
          progress,
          prefix.isEmpty() ? "" : " (own pid namespace)",
          posted.size(),
          endedMs,
          errors,
          closing / 1_000_000);
    } finally {
      if (!closed) {
        ini.close();
      }
      if (target.process.isAlive()) {
        target.kill();
      }
    }
  }

  private static int post(
      Initiator ini,
      Call c,
      MemorySegment operand,
      MemorySegment compare,
      MemorySegment result,
      long peer,
      long key,
      Object context) {
    return ini.post(
        c.family(),
        c.op(),
        c.datatype(),
        1,
        operand,
        compare,
        result,
        peer,
        c.addr(),
        key,
        context);
  }
}
