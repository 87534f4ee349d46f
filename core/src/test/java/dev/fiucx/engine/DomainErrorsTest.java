package dev.fiucx.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.AddressVector;
import dev.fiucx.CompletionQueue;
import dev.fiucx.CqEntry;
import dev.fiucx.DomainAttr;
import dev.fiucx.Endpoint;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.MemoryRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * An exception in progress is counted, reaches the application's handler, and progress goes on: the
 * progress thread keeps serving, and a manual reader gets no exception.
 */
class DomainErrorsTest {
  private static final long WAIT_NANOS = 5_000_000_000L;

  private LoopbackTransport transport;

  private EngineDomain open(DomainAttr.Progress progress) {
    return new EngineDomain(
        "loopback",
        new DomainAttr(null, progress, false, Map.of()),
        completions -> transport = new LoopbackTransport(completions));
  }

  @Test
  void theProgressThreadSurvivesAnExceptionAndKeepsServing() throws Exception {
    try (EngineDomain domain = open(DomainAttr.Progress.AUTO);
        Arena arena = Arena.ofConfined()) {
      List<Throwable> seen = new CopyOnWriteArrayList<>();
      domain.setErrorHandler(seen::add);
      RuntimeException injected = new IllegalStateException("injected into progress");
      transport.throwOnce.set(injected);
      long deadline = System.nanoTime() + WAIT_NANOS;
      while (seen.isEmpty()) {
        assertTrue(System.nanoTime() - deadline < 0, "the handler never heard of it");
        Thread.sleep(1);
      }
      assertEquals(1, seen.size());
      assertSame(injected, seen.get(0));
      assertEquals(1, domain.errorCount());
      assertTrue(domain.describe().get("errors").contains("progress 1, "));

      int callsAfter = transport.progressThreadCalls.get();
      while (transport.progressThreadCalls.get() < callsAfter + 10) {
        assertTrue(System.nanoTime() - deadline < 0, "the progress thread stopped");
        Thread.sleep(1);
      }
      assertEquals(7L, fetchAddSeven(domain, arena), "an operation after the exception completes");
      assertEquals(1, domain.errorCount());
    }
  }

  @Test
  void underManualProgressAReadNeverThrowsAndTheNextOneServes() {
    try (EngineDomain domain = open(DomainAttr.Progress.MANUAL);
        Arena arena = Arena.ofConfined()) {
      List<Throwable> seen = new CopyOnWriteArrayList<>();
      domain.setErrorHandler(seen::add);
      transport.throwOnce.set(new IllegalStateException("injected"));
      assertEquals(0, domain.progress());
      assertEquals(1, seen.size());
      assertEquals(1, domain.errorCount());
      assertEquals(7L, fetchAddSeven(domain, arena));
    }
  }

  @Test
  void aHandlerThatThrowsIsSurvivedToo() {
    try (EngineDomain domain = open(DomainAttr.Progress.MANUAL)) {
      domain.setErrorHandler(
          t -> {
            throw new IllegalStateException("the handler fails");
          });
      transport.throwOnce.set(new IllegalStateException("injected"));
      assertEquals(0, domain.progress());
      assertEquals(1, domain.errorCount());
    }
  }

  @Test
  void theDefaultHandlerLogsARecurringExceptionSparsely() {
    java.util.logging.Logger jul = java.util.logging.Logger.getLogger("dev.fiucx.engine");
    List<java.util.logging.LogRecord> errors = new CopyOnWriteArrayList<>();
    java.util.logging.Handler capture =
        new java.util.logging.Handler() {
          @Override
          public void publish(java.util.logging.LogRecord r) {
            if (r.getLevel() == java.util.logging.Level.SEVERE) {
              errors.add(r);
            }
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    jul.addHandler(capture);
    try (EngineDomain domain = open(DomainAttr.Progress.MANUAL)) {
      for (int i = 0; i < 100; i++) {
        transport.throwOnce.set(new IllegalStateException("again"));
        domain.progress();
      }
      assertEquals(100, domain.errorCount());
      assertEquals(13, errors.size(), "1..10, 16, 32, 64");
      assertTrue(errors.get(12).getMessage().contains("exception number 64 in PROGRESS"));
    } finally {
      jul.removeHandler(capture);
    }
  }

  @Test
  void aCompletionForNoEndpointIsCountedNotThrownIntoTheTransport() {
    try (EngineDomain domain = open(DomainAttr.Progress.MANUAL)) {
      List<Throwable> seen = new CopyOnWriteArrayList<>();
      domain.setErrorHandler(seen::add);
      domain.completed(5L << 32, 0); // no endpoint 5
      assertEquals(1, seen.size());
      assertTrue(domain.describe().get("errors").contains("completion 1"));
    }
  }

  /** Opens an endpoint to the domain itself and fetch-adds 7 to a fresh zeroed word. */
  private static long fetchAddSeven(EngineDomain domain, Arena arena) {
    try (MemoryRegion mr = domain.allocateMemory(8, FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE);
        AddressVector av = domain.openAddressVector();
        CompletionQueue cq = domain.openCompletionQueue(8);
        Endpoint ep = domain.openEndpoint()) {
      ep.bind(av);
      ep.bind(cq, FiFlags.TRANSMIT);
      ep.enable();
      long peer = av.insert(ep.name());
      MemorySegment operand = arena.allocate(8, 8);
      operand.set(ValueLayout.JAVA_LONG, 0, 7);
      MemorySegment result = arena.allocate(8, 8);
      int rc =
          ep.fetchAtomic(
              operand, 1, null, result, null, peer, 0, mr.key(), FiDatatype.UINT64, FiOp.SUM, "c");
      assertEquals(0, rc);
      CqEntry[] entries = {new CqEntry()};
      long deadline = System.nanoTime() + WAIT_NANOS;
      int n;
      while ((n = cq.read(entries, 1)) == -FiErrno.EAGAIN) {
        assertTrue(System.nanoTime() - deadline < 0, "no completion");
      }
      assertEquals(1, n);
      assertEquals("c", entries[0].opContext);
      assertEquals(0L, result.get(ValueLayout.JAVA_LONG, 0));
      return mr.segment().get(ValueLayout.JAVA_LONG, 0);
    }
  }
}
