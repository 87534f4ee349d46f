package dev.fiucx.engine;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.AtomicFamily;
import dev.fiucx.AtomicMsg;
import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.Ioc;
import dev.fiucx.RmaIoc;
import dev.fiucx.engine.LoopbackRig.Mode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code FI_FENCE} without blocking, over the loopback transport: a slow operation is held by the
 * transport until the test releases it, and a fenced call made meanwhile returns 0 at once, is not
 * posted (its target effect absent), and starts from progress once the slow one completed; every
 * call made behind it is deferred too and starts in the order it was made; a deferred call keeps
 * copies of its operands and of the caller's arrays; and each deferred call ends exactly once, also
 * when the endpoint closes (-FI_ECANCELED) or its peer fails (-FI_ECONNRESET).
 */
class EngineEndpointFenceTest {
  private static final long FETCHED = FiFlags.ATOMIC | FiFlags.READ;
  private static final long WRITTEN = FiFlags.ATOMIC | FiFlags.WRITE;

  /** Far below the 30 s the blocking fence waited for a held operation. */
  private static final long AT_ONCE_NANOS = 2_000_000_000L;

  private LoopbackRig r;

  @AfterEach
  void close() {
    if (r != null) {
      r.close();
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = Mode.class,
      names = {"POSTED", "MAPPED", "AUTO"})
  void aFencedCallReturnsAtOnceAndStartsWhenTheEarlierOneCompleted(Mode mode) {
    r = new LoopbackRig(mode, FiFlags.TRANSMIT);
    slowSumOfOneAtZeroAndEight();
    long posts = r.transport.posts.get();
    MemorySegment result = r.longs(-1);

    long start = System.nanoTime();
    int rc = fenced(FiOp.SUM, 10, result, "fenced", FiFlags.COMPLETION);
    long took = System.nanoTime() - start;

    assertEquals(0, rc);
    assertTrue(took < AT_ONCE_NANOS, "the fenced call returned after " + took + " ns");
    r.noCompletion();
    assertEquals(posts, r.transport.posts.get(), "the fenced call is not posted yet");
    assertEquals(0, r.word(0), "neither the slow sum nor the fenced one is carried out");
    assertEquals(0, r.word(8));
    assertEquals(-1, result.get(JAVA_LONG, 0), "no result yet");

    release();
    r.completes("slow", WRITTEN);
    r.completes("fenced", FETCHED);
    assertEquals(1, result.get(JAVA_LONG, 0), "the fenced sum saw the slow one");
    assertEquals(11, r.word(0));
    assertEquals(1, r.word(8));
    assertEquals(posts + 1, r.transport.posts.get());
    assertEquals(1, r.writes.read());
    assertEquals(1, r.reads.read());
    r.noCompletion();
  }

  @Test
  void aFencedCallWithNothingInFlightStartsInTheCall() {
    r = new LoopbackRig(Mode.POSTED, FiFlags.TRANSMIT);
    long posts = r.transport.posts.get();
    MemorySegment result = r.longs(-1);
    assertEquals(0, fenced(FiOp.SUM, 10, result, "fenced", FiFlags.COMPLETION));
    assertEquals(posts + 1, r.transport.posts.get(), "posted in the call");
    assertEquals(10, r.word(0));
    r.completes("fenced", FETCHED);
    assertEquals(0, result.get(JAVA_LONG, 0));
  }

  /**
   * Behind a fence, one call of every form (a plain one on the route that the mapped mode would do
   * in place, a swap, an inject, a vector fetch whose iov arrays the caller then reuses, the typed
   * layer's in-call element) returns 0 and is carried out only after the fenced one, in the order
   * the calls were made: each fetch sees the one before it.
   */
  @ParameterizedTest
  @EnumSource(
      value = Mode.class,
      names = {"POSTED", "MAPPED", "AUTO"})
  void laterCallsStartBehindTheFenceInTheOrderTheyWereMade(Mode mode) {
    r = new LoopbackRig(mode, FiFlags.TRANSMIT);
    MemorySegment warm = r.zeroed(8);
    assertEquals(0, fetch(FiOp.SUM, 0, warm, "warm"), "the route to (FETCH, SUM, word 0)");
    r.completes("warm", FETCHED);
    slowSumOfOneAtZeroAndEight();
    long posts = r.transport.posts.get();

    MemorySegment swapped = r.longs(-1);
    MemorySegment summed = r.longs(-1);
    MemorySegment swappedAgain = r.longs(-1);
    MemorySegment vectorResult = r.longs(-1);
    MemorySegment otherResult = r.longs(-1);
    MemorySegment inCallResult = r.longs(-1);
    assertEquals(0, fenced(FiOp.ATOMIC_WRITE, 100, swapped, "fenced", FiFlags.COMPLETION));
    assertEquals(0, fetch(FiOp.SUM, 5, summed, "sum"));
    assertEquals(0, fetch(FiOp.ATOMIC_WRITE, 7, swappedAgain, "swap"));
    assertEquals(
        0, r.ep.injectAtomic(r.longs(1), 1, r.peer, 0, r.key, FiDatatype.UINT64, FiOp.SUM));
    Ioc[] iov = {new Ioc(r.longs(2), 1)};
    Ioc[] resultv = {new Ioc(vectorResult, 1)};
    assertEquals(
        0,
        r.ep.fetchAtomicv(
            iov, null, 1, resultv, null, 1, r.peer, 0, r.key, FiDatatype.UINT64, FiOp.SUM, "v"));
    iov[0] = new Ioc(r.longs(1000), 1); // the caller's arrays are its own again
    resultv[0] = new Ioc(otherResult, 1);
    int inCall =
        ((InCallAtomics) r.ep)
            .postInCall(
                AtomicFamily.FETCH,
                FiOp.SUM,
                FiDatatype.UINT64,
                r.longs(3),
                null,
                inCallResult,
                r.peer,
                0,
                r.key);
    assertEquals(0, inCall, "deferred, so not done in the call: its completion comes");
    r.noCompletion();
    assertEquals(posts, r.transport.posts.get(), "nothing posted behind the fence");
    assertEquals(0, r.word(0));

    release();
    r.completes("slow", WRITTEN);
    r.completes("fenced", FETCHED);
    r.completes("sum", FETCHED);
    r.completes("swap", FETCHED);
    r.completes("v", FETCHED);
    r.completes(null, FETCHED);
    LoopbackRig.awaitCount(r.writes, 2);
    r.noCompletion();
    assertEquals(1, swapped.get(JAVA_LONG, 0));
    assertEquals(100, summed.get(JAVA_LONG, 0));
    assertEquals(105, swappedAgain.get(JAVA_LONG, 0));
    assertEquals(8, vectorResult.get(JAVA_LONG, 0), "7, then the inject's 1");
    assertEquals(-1, otherResult.get(JAVA_LONG, 0), "the array's later entry is not the call's");
    assertEquals(10, inCallResult.get(JAVA_LONG, 0));
    assertEquals(13, r.word(0));
    assertEquals(1, r.word(8));
    assertEquals(6, r.reads.read());
    assertEquals(2, r.writes.read());
  }

  /** FI_INJECT with FI_FENCE: the operand is copied in the call, the message is reused at once. */
  @ParameterizedTest
  @EnumSource(
      value = Mode.class,
      names = {"POSTED", "AUTO"})
  void anInjectWithFenceHoldsACopyOfItsOperand(Mode mode) {
    r = new LoopbackRig(mode, FiFlags.TRANSMIT);
    slowSumOfOneAtZeroAndEight();
    MemorySegment operand = r.longs(5);
    AtomicMsg msg = sumAtZero(operand, null);
    assertEquals(0, r.ep.atomicmsg(msg, FiFlags.INJECT | FiFlags.FENCE));
    operand.set(JAVA_LONG, 0, 1000);
    msg.msgIov()[0] = new Ioc(r.longs(2000), 1);
    msg.rmaIov()[0] = new RmaIoc(16, 1, r.key);
    assertEquals(0, r.word(0));

    release();
    r.completes("slow", WRITTEN);
    LoopbackRig.awaitCount(r.writes, 2);
    r.noCompletion();
    assertEquals(6, r.word(0), "1, then the 5 the call was made with");
    assertEquals(0, r.word(16));
  }

  /**
   * Under automatic progress the progress thread starts the deferred call: the caller's operand and
   * compare buffers are confined to the caller, so it starts from copies (its result is written by
   * address, as the transport writes every result).
   */
  @Test
  void theProgressThreadStartsADeferredCallOnConfinedBuffers() {
    r = new LoopbackRig(Mode.AUTO, FiFlags.TRANSMIT);
    slowSumOfOneAtZeroAndEight();
    try (Arena confined = Arena.ofConfined()) {
      MemorySegment swap = confined.allocateFrom(JAVA_LONG, 50);
      MemorySegment compare = confined.allocateFrom(JAVA_LONG, 1);
      MemorySegment result = confined.allocateFrom(JAVA_LONG, -1);
      AtomicMsg msg =
          new AtomicMsg(
              new Ioc[] {new Ioc(swap, 1)},
              null,
              r.peer,
              new RmaIoc[] {new RmaIoc(0, 1, r.key)},
              FiDatatype.UINT64,
              FiOp.CSWAP,
              "fenced",
              0);
      assertEquals(
          0,
          r.ep.compareAtomicmsg(
              msg,
              new Ioc[] {new Ioc(compare, 1)},
              null,
              1,
              new Ioc[] {new Ioc(result, 1)},
              null,
              1,
              FiFlags.FENCE | FiFlags.COMPLETION));
      release();
      r.completes("slow", WRITTEN);
      r.completes("fenced", FETCHED);
      assertEquals(1, result.get(JAVA_LONG, 0));
      assertEquals(50, r.word(0), "compared equal to the slow sum's 1");
      assertEquals(0, r.domain.callErrorCount(), "nothing thrown on the progress thread");
    }
  }

  /**
   * Closing the endpoint ends each deferred call once, in order, with -FI_ECANCELED and its context
   * (the inject's error entry has none), then waits for the slow one, which completes.
   */
  @ParameterizedTest
  @EnumSource(
      value = Mode.class,
      names = {"HELD", "AUTO"})
  void closingTheEndpointCancelsEachDeferredCallOnce(Mode mode) throws Exception {
    r = new LoopbackRig(mode, FiFlags.TRANSMIT);
    if (mode == Mode.HELD) {
      // held until the next progress, which the test makes no call before close
      assertEquals(0, sum(r.longs(1), 0, "slow"));
    } else {
      slowSumOfOneAtZeroAndEight();
    }
    MemorySegment result = r.longs(-1);
    assertEquals(0, fenced(FiOp.SUM, 10, result, "fenced", FiFlags.COMPLETION));
    assertEquals(0, sum(r.longs(100), 0, "after"));
    assertEquals(
        0, r.ep.injectAtomic(r.longs(1000), 1, r.peer, 0, r.key, FiDatatype.UINT64, FiOp.SUM));

    Thread releaser = null;
    if (mode == Mode.AUTO) {
      // close cancels first, then waits for the slow sum: released while it waits
      releaser =
          Thread.ofPlatform()
              .start(
                  () -> {
                    sleep(200);
                    release();
                  });
    }
    r.ep.close();
    if (releaser != null) {
      releaser.join();
    }

    CqEntry[] entries = {new CqEntry(), new CqEntry()};
    int n = r.cq.sread(entries, 2, 10_000);
    assertEquals(1, n, "the slow sum's completion: " + FiErrno.errorString(n));
    assertEquals("slow", entries[0].opContext);
    cancelled("fenced", FETCHED);
    cancelled("after", WRITTEN);
    cancelled(null, WRITTEN);
    assertEquals(-FiErrno.EAGAIN, r.cq.readErr(new CqErrEntry()), "one error entry each");
    assertEquals(-FiErrno.EAGAIN, r.cq.read(entries, 2));
    assertEquals(-1, result.get(JAVA_LONG, 0));
    assertEquals(1, r.word(0), "only the slow sum was carried out");
    assertEquals(1, r.writes.read());
    assertEquals(2, r.writes.readErr());
    assertEquals(0, r.reads.read());
    assertEquals(1, r.reads.readErr());
    r.ep.close(); // a second close ends nothing again
    assertEquals(-FiErrno.EAGAIN, r.cq.readErr(new CqErrEntry()));
  }

  @Test
  void aDeferredCallWhosePeerFailedEndsWithConnReset() {
    r = new LoopbackRig(Mode.POSTED, FiFlags.TRANSMIT);
    slowSumOfOneAtZeroAndEight();
    MemorySegment result = r.longs(-1);
    assertEquals(0, fenced(FiOp.SUM, 10, result, "fenced", FiFlags.COMPLETION));
    assertEquals(0, sum(r.longs(100), 0, "after"));
    r.transport.peersFailed = true;

    release();
    CqEntry[] entries = {new CqEntry(), new CqEntry()};
    assertEquals(1, r.cq.sread(entries, 2, 10_000));
    assertEquals("slow", entries[0].opContext);
    assertEquals(-FiErrno.EAVAIL, r.cq.read(entries, 2));
    failed("fenced", FETCHED, FiErrno.ECONNRESET);
    failed("after", WRITTEN, FiErrno.ECONNRESET);
    assertEquals(-FiErrno.EAGAIN, r.cq.readErr(new CqErrEntry()));
    assertEquals(-1, result.get(JAVA_LONG, 0));
    assertEquals(1, r.word(0));
    assertEquals(1, r.reads.readErr());
    assertEquals(1, r.writes.readErr());
  }

  /**
   * Thousands of calls under automatic progress, with a transport that carries out what was posted
   * at the next progress, newest first (so only a fence orders anything): the progress thread
   * starts deferred calls while the caller makes more. Every fenced read sees at least every sum
   * made before it and at most those made before the next fenced read; every completion comes
   * exactly once, no error entry, and the word ends at the number of sums.
   */
  @Test
  void fencesAmongManyCallsUnderAutomaticProgress() {
    r = new LoopbackRig(Mode.AUTO, FiFlags.TRANSMIT);
    r.transport.holdUntilProgress = true;
    Random random = new Random(42);
    List<long[]> reads = new ArrayList<>(); // {sums before, sums at the next}
    List<MemorySegment> results = new ArrayList<>();
    Set<Object> seen = new HashSet<>();
    CqEntry[] entries = {new CqEntry(), new CqEntry(), new CqEntry(), new CqEntry()};
    MemorySegment one = r.longs(1);
    long sums = 0;
    int expected = 0; // completions: every call but inject writes one
    int read = 0;
    for (int i = 0; i < 3000; i++) {
      int kind = random.nextInt(20);
      Integer context = i;
      int rc;
      while (true) {
        if (kind < 12) {
          rc = sum(one, 0, context);
        } else if (kind < 15) {
          rc = r.ep.injectAtomic(one, 1, r.peer, 0, r.key, FiDatatype.UINT64, FiOp.SUM);
        } else if (kind < 16) {
          rc =
              r.ep.atomicv(
                  new Ioc[] {new Ioc(one, 1)},
                  null,
                  1,
                  r.peer,
                  0,
                  r.key,
                  FiDatatype.UINT64,
                  FiOp.SUM,
                  context);
        } else {
          MemorySegment result = r.longs(-1);
          rc = fenced(FiOp.SUM, 0, result, context, FiFlags.COMPLETION);
          if (rc == 0) {
            if (!reads.isEmpty()) {
              reads.get(reads.size() - 1)[1] = sums;
            }
            reads.add(new long[] {sums, Long.MAX_VALUE});
            results.add(result);
          }
        }
        if (rc != -FiErrno.EAGAIN) {
          break;
        }
        read += readInto(entries, seen);
      }
      assertEquals(0, rc, "call " + i);
      if (kind < 16) {
        sums++;
      }
      if (kind < 12 || kind >= 15) {
        expected++;
      }
    }
    while (read < expected) {
      read += readInto(entries, seen);
    }
    assertEquals(expected, read);
    LoopbackRig.awaitCount(r.writes, sums);
    r.noCompletion();
    assertEquals(-FiErrno.EAGAIN, r.cq.readErr(new CqErrEntry()), "no error entry");
    assertEquals(sums, r.word(0));
    for (int k = 0; k < reads.size(); k++) {
      long got = results.get(k).get(JAVA_LONG, 0);
      long[] bounds = reads.get(k);
      assertTrue(
          got >= bounds[0] && got <= Math.min(bounds[1], sums),
          "fenced read " + k + " saw " + got + ", not in [" + bounds[0] + ", " + bounds[1] + "]");
    }
    assertTrue(reads.size() > 400, "fenced reads: " + reads.size());
  }

  /**
   * Fenced calls back to back under automatic progress: each finds the one before it deferred, and
   * the progress thread often starts that one between the call's look at the backlog and its taking
   * the lock; the call then finds nothing deferred but an operation in flight and defers itself
   * under the lock it already holds (taking it again hung the caller for good). Every fetch sees
   * exactly the sums of the calls before it.
   */
  @Test
  void fencedCallsBackToBackUnderAutomaticProgress() {
    int calls = 20_000;
    assertTimeoutPreemptively(
        Duration.ofSeconds(120),
        () -> {
          LoopbackRig rig = new LoopbackRig(Mode.AUTO, FiFlags.TRANSMIT);
          try {
            CqEntry[] entries = new CqEntry[64];
            for (int k = 0; k < entries.length; k++) {
              entries[k] = new CqEntry();
            }
            MemorySegment results = rig.arena.allocate(8L * calls, 16);
            MemorySegment one = rig.longs(1);
            int read = 0;
            for (int i = 0; i < calls; i++) {
              int rc;
              AtomicMsg msg =
                  new AtomicMsg(
                      new Ioc[] {new Ioc(one, 1)},
                      null,
                      rig.peer,
                      new RmaIoc[] {new RmaIoc(0, 1, rig.key)},
                      FiDatatype.UINT64,
                      FiOp.SUM,
                      i,
                      0);
              Ioc[] result = {new Ioc(results.asSlice(8L * i, 8), 1)};
              while ((rc =
                      rig.ep.fetchAtomicmsg(
                          msg, result, null, 1, FiFlags.COMPLETION | FiFlags.FENCE))
                  == -FiErrno.EAGAIN) {
                int n = rig.cq.sread(entries, entries.length, 10_000);
                assertTrue(n > 0, "a completion: " + FiErrno.errorString(n));
                read += n;
              }
              assertEquals(0, rc, "call " + i);
            }
            while (read < calls) {
              int n = rig.cq.sread(entries, entries.length, 10_000);
              assertTrue(n > 0, "a completion: " + FiErrno.errorString(n));
              read += n;
            }
            assertEquals(calls, rig.word(0));
            for (int i = 0; i < calls; i++) {
              assertEquals(i, results.getAtIndex(JAVA_LONG, i), "fetch " + i);
            }
          } finally {
            rig.close();
          }
        });
  }

  /** Reads what the queue holds (waiting up to 10 s for one); each context must be new. */
  private int readInto(CqEntry[] entries, Set<Object> seen) {
    int n = r.cq.sread(entries, entries.length, 10_000);
    assertTrue(n > 0, "a completion: " + FiErrno.errorString(n));
    for (int k = 0; k < n; k++) {
      assertTrue(seen.add(entries[k].opContext), "twice: " + entries[k].opContext);
    }
    return n;
  }

  /** A sum of 1 on words 0 and 8 (two elements: posted in every mode), held until released. */
  private void slowSumOfOneAtZeroAndEight() {
    r.transport.holdUntilReleased = true;
    assertEquals(
        0,
        r.ep.atomic(r.longs(1, 1), 2, null, r.peer, 0, r.key, FiDatatype.UINT64, FiOp.SUM, "slow"));
  }

  /** The slow operation is carried out; its completion comes with the next progress. */
  private void release() {
    r.transport.holdUntilReleased = false;
    assertEquals(2, r.transport.releaseHeld(), "the slow sum's two elements were held");
  }

  /** A fenced fetching {@code op} of {@code operand} on word 0, through fi_fetch_atomicmsg. */
  private int fenced(FiOp op, long operand, MemorySegment result, Object context, long flags) {
    AtomicMsg msg =
        new AtomicMsg(
            new Ioc[] {new Ioc(r.longs(operand), 1)},
            null,
            r.peer,
            new RmaIoc[] {new RmaIoc(0, 1, r.key)},
            FiDatatype.UINT64,
            op,
            context,
            0);
    return r.ep.fetchAtomicmsg(msg, new Ioc[] {new Ioc(result, 1)}, null, 1, flags | FiFlags.FENCE);
  }

  private int fetch(FiOp op, long operand, MemorySegment result, Object context) {
    return r.ep.fetchAtomic(
        r.longs(operand), 1, null, result, null, r.peer, 0, r.key, FiDatatype.UINT64, op, context);
  }

  private int sum(MemorySegment operand, long addr, Object context) {
    return r.ep.atomic(operand, 1, null, r.peer, addr, r.key, FiDatatype.UINT64, FiOp.SUM, context);
  }

  private AtomicMsg sumAtZero(MemorySegment operand, Object context) {
    return new AtomicMsg(
        new Ioc[] {new Ioc(operand, 1)},
        null,
        r.peer,
        new RmaIoc[] {new RmaIoc(0, 1, r.key)},
        FiDatatype.UINT64,
        FiOp.SUM,
        context,
        0);
  }

  private void cancelled(Object context, long flags) {
    failed(context, flags, FiErrno.ECANCELED);
  }

  /** The next error entry: {@code context}, {@code flags} and {@code errno}. */
  private void failed(Object context, long flags, int errno) {
    CqErrEntry e = new CqErrEntry();
    assertEquals(1, r.cq.readErr(e), "an error entry for " + context);
    if (context == null) {
      assertNull(e.opContext);
    } else {
      assertEquals(context, e.opContext);
    }
    assertEquals(flags, e.flags, "its flags");
    assertEquals(errno, e.err, FiErrno.errorString(e.err));
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
