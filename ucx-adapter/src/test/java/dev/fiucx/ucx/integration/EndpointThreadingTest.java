package dev.fiucx.ucx.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.CompletionQueue;
import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.MemoryRegion;
import dev.fiucx.conformance.remote.Initiator;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * An endpoint's threading model through the public API: under {@code threading=safe} N threads
 * share one endpoint and one completion queue and every call completes once with its own context
 * and exact totals; under the default model (one thread at a time) a manual-progress domain refuses
 * a second thread, posting or reading, with {@code -FI_EBUSY}, and what it took is still exact.
 */
@RequiresProvider("ucx")
class EndpointThreadingTest {
  private static final int THREADS = 4;
  private static final int CALLS = 1500;

  /** A target domain in this process: one UINT64 at offset 0 that every call adds 1 to. */
  private record Target(Domain domain, MemoryRegion region, byte[] address)
      implements AutoCloseable {
    static Target open(String transport) {
      Domain d =
          Fabric.openDomain(
              "ucx", new DomainAttr(transport, DomainAttr.Progress.AUTO, false, null));
      MemoryRegion r = d.allocateMemory(64, FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE);
      return new Target(d, r, d.openEndpoint().name());
    }

    long value() {
      return region.segment().get(ValueLayout.JAVA_LONG, 0);
    }

    @Override
    public void close() {
      region.close();
      domain.close();
    }
  }

  @ParameterizedTest(name = "{0}, {1} progress")
  @CsvSource({"shm, AUTO", "shm, MANUAL", "tcp, AUTO", "tcp, MANUAL"})
  void threadsSharingASafeEndpointGetEveryCompletionWithItsOwnContext(
      String transport, DomainAttr.Progress progress) throws Exception {
    try (Target target = Target.open(transport);
        Initiator ini =
            new Initiator(
                "ucx", new DomainAttr(transport, progress, false, Map.of("threading", "safe")));
        Arena arena = Arena.ofShared()) {
      long peer = ini.av.insert(target.address());
      long key = target.region().key();
      MemorySegment one = arena.allocate(8, 8);
      one.set(ValueLayout.JAVA_LONG, 0, 1);
      MemorySegment results = arena.allocate((long) THREADS * CALLS * 8, 8);
      Set<Object> completed = ConcurrentHashMap.newKeySet();
      List<String> problems = new CopyOnWriteArrayList<>();
      Thread[] threads = new Thread[THREADS];
      for (int t = 0; t < THREADS; t++) {
        int thread = t;
        threads[t] =
            new Thread(
                () -> {
                  CqEntry[] entries = entries(8);
                  for (int i = 0; i < CALLS; i++) {
                    int slot = thread * CALLS + i;
                    int rc;
                    while ((rc =
                            ini.ep.fetchAtomic(
                                one,
                                1,
                                null,
                                results.asSlice(slot * 8L, 8),
                                null,
                                peer,
                                0,
                                key,
                                FiDatatype.UINT64,
                                FiOp.SUM,
                                slot))
                        == -FiErrno.EAGAIN) {
                      drain(ini.cq, entries, completed, problems);
                    }
                    if (rc != 0) {
                      problems.add("call " + slot + ": " + FiErrno.errorString(rc));
                    }
                    drain(ini.cq, entries, completed, problems);
                  }
                },
                "safe-" + t);
        threads[t].start();
      }
      for (Thread t : threads) {
        t.join();
      }
      CqEntry[] entries = entries(8);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (completed.size() < THREADS * CALLS && System.nanoTime() < deadline) {
        drain(ini.cq, entries, completed, problems);
      }
      assertEquals(List.of(), problems);
      assertEquals(THREADS * CALLS, completed.size(), "completions, each with its own context");
      for (int slot = 0; slot < THREADS * CALLS; slot++) {
        assertTrue(completed.contains(slot), "the completion of call " + slot);
      }
      long[] fetched = new long[THREADS * CALLS];
      for (int i = 0; i < fetched.length; i++) {
        fetched[i] = results.getAtIndex(ValueLayout.JAVA_LONG, i);
      }
      Arrays.sort(fetched);
      for (int i = 0; i < fetched.length; i++) {
        assertEquals(i, fetched[i], "every value of the element fetched once");
      }
      assertEquals(THREADS * CALLS, target.value());
      assertTrue(
          ini.domain.describe().get("threading").startsWith("safe"),
          ini.domain.describe().get("threading"));
    }
  }

  /**
   * {@code threading=domain} ({@code FI_THREAD_DOMAIN}): the application serializes every call
   * (here with a lock of its own around each call and read), fiucx checks nothing, and threads that
   * take turns get every completion with its own context and every ticket exactly once.
   */
  @ParameterizedTest(name = "{0}, {1} progress")
  @CsvSource({"shm, AUTO", "shm, MANUAL", "tcp, AUTO", "tcp, MANUAL"})
  void threadsTakingTurnsOnADomainThreadedEndpointGetEveryTicketOnce(
      String transport, DomainAttr.Progress progress) throws Exception {
    try (Target target = Target.open(transport);
        Initiator ini =
            new Initiator(
                "ucx", new DomainAttr(transport, progress, false, Map.of("threading", "domain")));
        Arena arena = Arena.ofShared()) {
      long peer = ini.av.insert(target.address());
      long key = target.region().key();
      MemorySegment one = arena.allocate(8, 8);
      one.set(ValueLayout.JAVA_LONG, 0, 1);
      MemorySegment results = arena.allocate((long) THREADS * CALLS * 8, 8);
      Set<Object> completed = ConcurrentHashMap.newKeySet();
      List<String> problems = new CopyOnWriteArrayList<>();
      java.util.concurrent.locks.ReentrantLock application =
          new java.util.concurrent.locks.ReentrantLock();
      Thread[] threads = new Thread[THREADS];
      for (int t = 0; t < THREADS; t++) {
        int thread = t;
        threads[t] =
            new Thread(
                () -> {
                  CqEntry[] entries = entries(8);
                  for (int i = 0; i < CALLS; i++) {
                    int slot = thread * CALLS + i;
                    int rc = -FiErrno.EAGAIN;
                    while (rc == -FiErrno.EAGAIN) {
                      application.lock();
                      try {
                        rc =
                            ini.ep.fetchAtomic(
                                one,
                                1,
                                null,
                                results.asSlice(slot * 8L, 8),
                                null,
                                peer,
                                0,
                                key,
                                FiDatatype.UINT64,
                                FiOp.SUM,
                                slot);
                        drain(ini.cq, entries, completed, problems);
                      } finally {
                        application.unlock();
                      }
                    }
                    if (rc != 0) {
                      problems.add("call " + slot + ": " + FiErrno.errorString(rc));
                    }
                  }
                },
                "domain-" + t);
        threads[t].start();
      }
      for (Thread t : threads) {
        t.join();
      }
      CqEntry[] entries = entries(8);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (completed.size() < THREADS * CALLS && System.nanoTime() < deadline) {
        drain(ini.cq, entries, completed, problems);
      }
      assertEquals(List.of(), problems);
      assertEquals(THREADS * CALLS, completed.size(), "completions, each with its own context");
      long[] fetched = new long[THREADS * CALLS];
      for (int i = 0; i < fetched.length; i++) {
        fetched[i] = results.getAtIndex(ValueLayout.JAVA_LONG, i);
      }
      Arrays.sort(fetched);
      for (int i = 0; i < fetched.length; i++) {
        assertEquals(i, fetched[i], "every value of the element fetched once");
      }
      assertEquals(THREADS * CALLS, target.value());
      assertTrue(
          ini.domain.describe().get("threading").startsWith("domain"),
          ini.domain.describe().get("threading"));
    }
  }

  /**
   * Two threads each post and read on one manual-progress domain (whose UCX worker is one
   * thread's): every call and read is taken or refused with {@code -FI_EBUSY} (or finds the queue
   * full or empty), never anything else, and what was taken completes exactly.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource({"shm", "tcp"})
  void aManualDomainRefusesASecondThread(String transport) throws Exception {
    try (Target target = Target.open(transport);
        Initiator ini = new Initiator("ucx", transport, DomainAttr.Progress.MANUAL);
        Arena arena = Arena.ofShared()) {
      long peer = ini.av.insert(target.address());
      long key = target.region().key();
      MemorySegment one = arena.allocate(8, 8);
      one.set(ValueLayout.JAVA_LONG, 0, 1);
      MemorySegment results = arena.allocate(2L * CALLS * 8, 8);
      Set<Object> completed = ConcurrentHashMap.newKeySet();
      Set<Object> taken = ConcurrentHashMap.newKeySet();
      AtomicInteger refused = new AtomicInteger();
      List<String> problems = new CopyOnWriteArrayList<>();
      Thread[] threads = new Thread[2];
      for (int t = 0; t < 2; t++) {
        int thread = t;
        threads[t] =
            new Thread(
                () -> {
                  CqEntry[] entries = entries(8);
                  for (int i = 0; i < CALLS; i++) {
                    int slot = thread * CALLS + i;
                    int rc =
                        ini.ep.fetchAtomic(
                            one,
                            1,
                            null,
                            results.asSlice(slot * 8L, 8),
                            null,
                            peer,
                            0,
                            key,
                            FiDatatype.UINT64,
                            FiOp.SUM,
                            slot);
                    if (rc == 0) {
                      taken.add(slot);
                    } else if (rc == -FiErrno.EBUSY) {
                      refused.incrementAndGet();
                    } else if (rc != -FiErrno.EAGAIN) {
                      problems.add("call " + slot + ": " + FiErrno.errorString(rc));
                    }
                    int n = drain(ini.cq, entries, completed, problems);
                    if (n == -FiErrno.EBUSY) {
                      refused.incrementAndGet();
                    }
                  }
                },
                "manual-" + t);
        threads[t].start();
      }
      for (Thread t : threads) {
        t.join();
      }
      CqEntry[] entries = entries(8);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (completed.size() < taken.size() && System.nanoTime() < deadline) {
        drain(ini.cq, entries, completed, problems);
      }
      assertEquals(List.of(), problems);
      assertEquals(taken, completed, "completions against calls taken");
      assertEquals(taken.size(), target.value(), "the element moved by the calls taken");
      System.err.println(
          transport
              + " manual: "
              + taken.size()
              + " calls taken, "
              + refused.get()
              + " calls or reads refused with FI_EBUSY");
    }
  }

  private static CqEntry[] entries(int n) {
    CqEntry[] e = new CqEntry[n];
    for (int i = 0; i < n; i++) {
      e[i] = new CqEntry();
    }
    return e;
  }

  /**
   * One read of {@code cq} into {@code completed}; a context seen twice, an error entry or an
   * unexpected errno is a problem. Returns what the read returned.
   */
  private static int drain(
      CompletionQueue cq, CqEntry[] entries, Set<Object> completed, List<String> problems) {
    int n = cq.read(entries, entries.length);
    for (int i = 0; i < n; i++) {
      if (!completed.add(entries[i].opContext)) {
        problems.add("completed twice: " + entries[i].opContext);
      }
    }
    if (n == -FiErrno.EAVAIL) {
      CqErrEntry e = new CqErrEntry();
      cq.readErr(e);
      problems.add("error entry: " + e);
    } else if (n < 0 && n != -FiErrno.EAGAIN && n != -FiErrno.EBUSY) {
      problems.add("read: " + FiErrno.errorString(n));
    }
    return n;
  }
}
