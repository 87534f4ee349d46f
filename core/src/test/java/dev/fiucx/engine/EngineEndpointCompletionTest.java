package dev.fiucx.engine;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fiucx.AtomicMsg;
import dev.fiucx.CqEntry;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.Ioc;
import dev.fiucx.RmaIoc;
import dev.fiucx.engine.LoopbackRig.Mode;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What a call reports, over the loopback transport: which calls write a completion entry (the plain
 * forms unless the queue was bound with {@code FI_SELECTIVE_COMPLETION}, a message call with {@code
 * FI_COMPLETION}, never inject), with the call's context and flags, while the counters count every
 * operation; {@code FI_FENCE} deferring a call until the earlier ones completed (more in {@link
 * EngineEndpointFenceTest}); and virtual addresses.
 */
class EngineEndpointCompletionTest {
  private static final long FETCHED = FiFlags.ATOMIC | FiFlags.READ;
  private static final long WRITTEN = FiFlags.ATOMIC | FiFlags.WRITE;

  private LoopbackRig r;

  @AfterEach
  void close() {
    if (r != null) {
      r.close();
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void withoutSelectiveCompletionEveryCallButInjectWritesAnEntry(Mode mode) {
    r = new LoopbackRig(mode, FiFlags.TRANSMIT);
    MemorySegment one = r.longs(1);
    MemorySegment result = r.zeroed(8);
    assertEquals(0, sum(one, "plain"));
    r.completes("plain", WRITTEN);
    assertEquals(0, r.ep.atomicmsg(message(one, "msg 0"), 0));
    r.completes("msg 0", WRITTEN);
    assertEquals(0, r.ep.atomicmsg(message(one, "msg completion"), FiFlags.COMPLETION));
    r.completes("msg completion", WRITTEN);
    assertEquals(
        0,
        r.ep.fetchAtomic(
            one, 1, null, result, null, r.peer, 0, r.key, FiDatatype.UINT64, FiOp.SUM, "fetch"));
    r.completes("fetch", FETCHED);
    assertEquals(3, result.get(JAVA_LONG, 0));
    assertEquals(0, r.ep.injectAtomic(one, 1, r.peer, 0, r.key, FiDatatype.UINT64, FiOp.SUM));
    LoopbackRig.awaitCount(r.writes, 4);
    r.noCompletion();
    assertEquals(5, r.word(0));
    assertEquals(1, r.reads.read());
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void underSelectiveCompletionOnlyFiCompletionWritesAnEntry(Mode mode) {
    r = new LoopbackRig(mode, FiFlags.TRANSMIT | FiFlags.SELECTIVE_COMPLETION);
    MemorySegment one = r.longs(1);
    MemorySegment result = r.zeroed(8);
    for (int i = 0; i < 3; i++) {
      assertEquals(0, sum(one, "quiet plain"), "a run of calls to one place");
    }
    assertEquals(0, r.ep.atomicmsg(message(one, "quiet msg"), 0));
    assertEquals(
        0,
        r.ep.fetchAtomic(
            one, 1, null, result, null, r.peer, 8, r.key, FiDatatype.UINT64, FiOp.SUM, "quiet"));
    assertEquals(0, r.ep.atomicmsg(message(one, "loud"), FiFlags.COMPLETION));
    r.completes("loud", WRITTEN);
    AtomicMsg read =
        new AtomicMsg(
            new Ioc[] {new Ioc(null, 1)},
            null,
            r.peer,
            new RmaIoc[] {new RmaIoc(0, 1, r.key)},
            FiDatatype.UINT64,
            FiOp.ATOMIC_READ,
            "loud read",
            0);
    MemorySegment read1 = r.zeroed(8);
    assertEquals(
        0, r.ep.fetchAtomicmsg(read, new Ioc[] {new Ioc(read1, 1)}, null, 1, FiFlags.COMPLETION));
    r.completes("loud read", FETCHED);
    assertEquals(5, read1.get(JAVA_LONG, 0), "the read after the loud add saw the five adds");
    assertEquals(2, r.reads.read());
    assertEquals(5, r.writes.read());
    assertEquals(0, result.get(JAVA_LONG, 0), "the quiet fetch's result");
    assertEquals(1, r.word(8));
    r.noCompletion();
  }

  /**
   * The held transport carries out the newest operation first, so a read posted after three adds
   * sees none of them, and its completion comes first; fenced, it sees all three and completes
   * last.
   */
  @Test
  void aFencedReadWaitsForTheEarlierAddsAndSeesThem() {
    r = new LoopbackRig(Mode.HELD, FiFlags.TRANSMIT);
    MemorySegment one = r.longs(1);
    MemorySegment unfenced = r.zeroed(8);
    for (String c : List.of("a", "b", "c")) {
      assertEquals(0, sum(one, c));
    }
    assertEquals(0, read(unfenced, "unfenced", FiFlags.COMPLETION));
    assertEquals(List.of("unfenced", "c", "b", "a"), contexts(4));
    assertEquals(0, unfenced.get(JAVA_LONG, 0), "carried out before the adds");

    MemorySegment fenced = r.zeroed(8);
    for (String c : List.of("d", "e", "f")) {
      assertEquals(0, sum(one, c));
    }
    assertEquals(0, read(fenced, "fenced", FiFlags.COMPLETION | FiFlags.FENCE));
    assertEquals(List.of("f", "e", "d", "fenced"), contexts(4));
    assertEquals(6, fenced.get(JAVA_LONG, 0), "carried out after the adds");
    assertEquals(6, r.word(0));
    r.noCompletion();
  }

  @ParameterizedTest
  @EnumSource(
      value = Mode.class,
      names = {"POSTED", "MAPPED"})
  void virtualAddressesNameTheTargetsOwnAddresses(Mode mode) {
    r = new LoopbackRig(mode, FiFlags.TRANSMIT, true);
    r.target.set(JAVA_LONG, 24, 40);
    MemorySegment result = r.zeroed(8);
    assertEquals(
        0,
        r.ep.fetchAtomic(
            r.longs(2),
            1,
            null,
            result,
            null,
            r.peer,
            r.region.baseAddress() + 24,
            r.key,
            FiDatatype.INT64,
            FiOp.SUM,
            "va"));
    r.completes("va", FETCHED);
    assertEquals(40, result.get(JAVA_LONG, 0));
    assertEquals(42, r.word(24));
    assertEquals(
        -FiErrno.EFAULT,
        r.ep.atomic(r.longs(1), 1, null, r.peer, 24, r.key, FiDatatype.INT64, FiOp.SUM, null),
        "an offset is no virtual address");
    assertEquals(42, r.word(24));
    r.noCompletion();
  }

  private int sum(MemorySegment operand, Object context) {
    return r.ep.atomic(operand, 1, null, r.peer, 0, r.key, FiDatatype.UINT64, FiOp.SUM, context);
  }

  private int read(MemorySegment result, Object context, long flags) {
    AtomicMsg msg =
        new AtomicMsg(
            new Ioc[] {new Ioc(null, 1)},
            null,
            r.peer,
            new RmaIoc[] {new RmaIoc(0, 1, r.key)},
            FiDatatype.UINT64,
            FiOp.ATOMIC_READ,
            context,
            0);
    return r.ep.fetchAtomicmsg(msg, new Ioc[] {new Ioc(result, 1)}, null, 1, flags);
  }

  private AtomicMsg message(MemorySegment operand, Object context) {
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

  /** The contexts of the next {@code n} completions, in the order they come. */
  private List<Object> contexts(int n) {
    List<Object> seen = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      CqEntry e = r.completion();
      seen.add(e.opContext);
    }
    return seen;
  }
}
