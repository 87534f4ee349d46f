package dev.fiucx.engine;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.DomainAttr;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.completion.OperationClock;
import dev.fiucx.engine.LoopbackRig.Mode;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code operation_timeout_ms}: an operation whose transport never answers ends with {@code
 * FI_ETIMEDOUT}, once, marked uncertain when it writes (its request is still out), and its late
 * answer, if one comes, ends nothing a second time. The transport here holds what is posted until
 * the test releases it, as a peer cut off by the network does.
 */
class EngineEndpointTimeoutTest {
  private static final long TIMEOUT_MS = 300;

  private LoopbackRig r;

  @AfterEach
  void close() {
    if (r != null) {
      r.close();
    }
  }

  private void rig(Mode mode) {
    r =
        new LoopbackRig(
            mode,
            FiFlags.TRANSMIT,
            false,
            Map.of(DomainAttr.OPERATION_TIMEOUT_OPTION, Long.toString(TIMEOUT_MS)));
    r.transport.holdUntilReleased = true;
  }

  @ParameterizedTest
  @EnumSource(
      value = Mode.class,
      names = {"POSTED", "AUTO"})
  void anOperationNobodyAnswersEndsWithTimedOutOnceAndUncertain(Mode mode) {
    rig(mode);
    MemorySegment result = r.longs(-1);
    long start = System.nanoTime();
    assertEquals(0, fetch(FiOp.SUM, 5, result, "unanswered"));
    CqErrEntry e = awaitError();
    long tookMs = (System.nanoTime() - start) / 1_000_000;
    assertEquals("unanswered", e.opContext);
    assertEquals(FiErrno.ETIMEDOUT, e.err, FiErrno.errorString(e.err));
    assertEquals(FiFlags.ATOMIC | FiFlags.READ, e.flags);
    assertTrue(e.uncertain, "its request is still out: it may yet apply");
    assertTrue(
        tookMs >= TIMEOUT_MS - OperationClock.TICK_MILLIS,
        "ended after " + tookMs + " ms, before its timeout");
    assertEquals(1, r.reads.readErr());
    assertEquals(
        1,
        java.util.Arrays.stream(r.domain.operationCounts())
            .mapToLong(dev.fiucx.completion.OperationCounts::uncertain)
            .sum());

    assertEquals(0, r.transport.releaseHeld(), "abandoned: the peer's requests were cancelled");
    r.noCompletion(); // and ended nothing again
    assertEquals(0, r.word(0), "not applied here, which uncertain allows");
    assertEquals(-1, result.get(JAVA_LONG, 0), "its result buffer is not written after its end");
    assertEquals(0, r.reads.read());

    r.transport.holdUntilReleased = false;
    assertEquals(
        -FiErrno.ECONNRESET,
        fetch(FiOp.SUM, 1, result, "refused"),
        "the peer was given up on: posts fail as to a dead one");
    r.av.remove(r.peer);
    long again = r.av.insert(r.ep.name());
    assertEquals(
        0,
        r.ep.fetchAtomic(
            r.longs(1),
            1,
            null,
            result,
            null,
            again,
            0,
            r.key,
            FiDatatype.UINT64,
            FiOp.SUM,
            "next"));
    r.completes("next", FiFlags.ATOMIC | FiFlags.READ);
    assertEquals(0, result.get(JAVA_LONG, 0), "inserted again, the peer serves");
    assertEquals(1, r.word(0));
    assertEquals(1, r.domain.abandonedPeers());
    assertEquals(1, r.domain.reconnects(), "the address came back after its peer was given up");
  }

  @Test
  void aReadThatTimesOutIsCertain() {
    rig(Mode.POSTED);
    assertEquals(0, fetch(FiOp.ATOMIC_READ, 0, r.longs(-1), "read"));
    CqErrEntry e = awaitError();
    assertEquals(FiErrno.ETIMEDOUT, e.err);
    assertFalse(e.uncertain, "a read changes nothing");
  }

  @Test
  void aFencedCallBehindATimedOutOperationStartsOnceItTimedOut() {
    rig(Mode.POSTED);
    assertEquals(0, fetch(FiOp.SUM, 1, r.longs(-1), "unanswered"));
    r.transport.holdUntilReleased = false; // what comes next is answered
    MemorySegment result = r.longs(-1);
    assertEquals(
        0,
        r.ep.fetchAtomicmsg(
            new dev.fiucx.AtomicMsg(
                new dev.fiucx.Ioc[] {new dev.fiucx.Ioc(r.longs(10), 1)},
                null,
                r.peer,
                new dev.fiucx.RmaIoc[] {new dev.fiucx.RmaIoc(8, 1, r.key)},
                FiDatatype.UINT64,
                FiOp.SUM,
                "fenced",
                0),
            new dev.fiucx.Ioc[] {new dev.fiucx.Ioc(result, 1)},
            null,
            1,
            FiFlags.FENCE | FiFlags.COMPLETION));
    CqErrEntry e = awaitError();
    assertEquals("unanswered", e.opContext);
    assertEquals(FiErrno.ETIMEDOUT, e.err);
    e = awaitError();
    assertEquals("fenced", e.opContext, "started once the earlier one ended, to a peer given up");
    assertEquals(FiErrno.ECONNRESET, e.err);
    assertFalse(e.uncertain, "refused when it started: nothing was posted");
    assertEquals(0, r.word(8));
    assertEquals(-1, result.get(JAVA_LONG, 0));
    r.noCompletion();
  }

  private int fetch(FiOp op, long operand, MemorySegment result, Object context) {
    return r.ep.fetchAtomic(
        r.longs(operand), 1, null, result, null, r.peer, 0, r.key, FiDatatype.UINT64, op, context);
  }

  /** Reads the queue (which progresses) until an error entry comes; 10 s at most. */
  private CqErrEntry awaitError() {
    CqEntry[] entries = {new CqEntry()};
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (System.nanoTime() - deadline < 0) {
      int n = r.cq.read(entries, 1);
      if (n == -FiErrno.EAVAIL) {
        CqErrEntry e = new CqErrEntry();
        assertEquals(1, r.cq.readErr(e));
        return e;
      }
      assertEquals(-FiErrno.EAGAIN, n, "no success before the timeout");
      Thread.onSpinWait();
    }
    throw new AssertionError("no error entry within 10 s");
  }
}
