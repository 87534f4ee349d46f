package dev.fiucx.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

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
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * An exception inside a call is an internal error, not bad input; a refusal says why when its
 * logger asks.
 */
class CallFailuresTest {
  private LoopbackTransport transport;

  @Test
  void anExceptionInsideACallIsCountedLoggedAndReturnedAsOther() {
    List<LogRecord> errors = new CopyOnWriteArrayList<>();
    Logger jul = Logger.getLogger("dev.fiucx.engine");
    Handler capture = capture(errors, Level.SEVERE);
    jul.addHandler(capture);
    try (EngineDomain domain = open();
        Arena arena = Arena.ofConfined();
        MemoryRegion mr = domain.allocateMemory(8, FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE);
        AddressVector av = domain.openAddressVector();
        CompletionQueue cq = domain.openCompletionQueue(8);
        Endpoint ep = domain.openEndpoint()) {
      long peer = enable(ep, av, cq);
      MemorySegment operand = arena.allocate(8, 8);
      operand.set(ValueLayout.JAVA_LONG, 0, 7);
      MemorySegment result = arena.allocate(8, 8);
      RuntimeException injected = new IllegalStateException("injected into a post");
      transport.throwOnPost.set(injected);

      int rc =
          ep.fetchAtomic(
              operand, 1, null, result, null, peer, 0, mr.key(), FiDatatype.UINT64, FiOp.SUM, "c");

      assertEquals(-FiErrno.EOTHER, rc);
      assertEquals(1, domain.callErrorCount());
      assertEquals(1, domain.errorCount());
      long refusedOther = 0;
      for (var counts : domain.operationCounts()) {
        refusedOther += counts.callErrors(FiErrno.EOTHER);
      }
      assertEquals(1, refusedOther);
      assertEquals(1, errors.size());
      assertSame(injected, errors.get(0).getThrown());
      assertEquals(
          "loopback domain caught exception number 1 in CALL and keeps serving",
          errors.get(0).getMessage());

      // the endpoint goes on: the next call posts and completes
      assertEquals(
          0,
          ep.fetchAtomic(
              operand, 1, null, result, null, peer, 0, mr.key(), FiDatatype.UINT64, FiOp.SUM, "d"));
      CqEntry[] entries = {new CqEntry()};
      while (cq.read(entries, 1) == -FiErrno.EAGAIN) {
        domain.progress();
      }
      assertEquals("d", entries[0].opContext);
      assertEquals(7L, mr.segment().get(ValueLayout.JAVA_LONG, 0));
    } finally {
      jul.removeHandler(capture);
    }
  }

  @Test
  void aRefusalSaysWhyWhenItsLoggerAsks() {
    List<LogRecord> refusals = new CopyOnWriteArrayList<>();
    Logger jul = Logger.getLogger("dev.fiucx.engine.refusals");
    Level before = jul.getLevel();
    Handler capture = capture(refusals, Level.FINE);
    jul.addHandler(capture);
    try (EngineDomain domain = open();
        Arena arena = Arena.ofConfined();
        MemoryRegion mr = domain.allocateMemory(8, FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE);
        AddressVector av = domain.openAddressVector();
        CompletionQueue cq = domain.openCompletionQueue(8);
        Endpoint ep = domain.openEndpoint()) {
      long peer = enable(ep, av, cq);
      MemorySegment operand = arena.allocate(8, 8);
      MemorySegment result = arena.allocate(8, 8);

      // off by default: nothing is logged
      assertEquals(
          -FiErrno.EADDRNOTAVAIL,
          ep.fetchAtomic(
              operand,
              1,
              null,
              result,
              null,
              peer + 99,
              0,
              mr.key(),
              FiDatatype.UINT64,
              FiOp.SUM,
              null));
      assertEquals(0, refusals.size());

      jul.setLevel(Level.FINE);
      assertEquals(
          -FiErrno.EADDRNOTAVAIL,
          ep.fetchAtomic(
              operand,
              1,
              null,
              result,
              null,
              peer + 99,
              0,
              mr.key(),
              FiDatatype.UINT64,
              FiOp.SUM,
              null));
      assertEquals(1, refusals.size());
      assertEquals(
          "FETCH SUM UINT64 refused: FI_EADDRNOTAVAIL: cannot assign requested address: dest_addr"
              + " is not in the address vector",
          refusals.get(0).getMessage());
    } finally {
      jul.setLevel(before);
      jul.removeHandler(capture);
    }
  }

  private EngineDomain open() {
    return new EngineDomain(
        "loopback",
        new DomainAttr(null, DomainAttr.Progress.MANUAL, false, Map.of()),
        completions -> transport = new LoopbackTransport(completions));
  }

  private static long enable(Endpoint ep, AddressVector av, CompletionQueue cq) {
    ep.bind(av);
    ep.bind(cq, FiFlags.TRANSMIT);
    ep.enable();
    return av.insert(ep.name());
  }

  private static Handler capture(List<LogRecord> into, Level level) {
    return new Handler() {
      @Override
      public void publish(LogRecord r) {
        if (r.getLevel() == level) {
          into.add(r);
        }
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
  }
}
