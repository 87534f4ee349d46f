package dev.fiucx.ucx.integration;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.fiucx.AddressVector;
import dev.fiucx.AtomicMsg;
import dev.fiucx.CompletionQueue;
import dev.fiucx.Counter;
import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.Endpoint;
import dev.fiucx.Fabric;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.Ioc;
import dev.fiucx.MemoryRegion;
import dev.fiucx.RmaIoc;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every call form of fi_atomic(3) on native cells over UCX, one process (a target domain with its
 * own progress thread beside the initiator's): vectors, messages with several iovs on both sides,
 * inject, selective completion, counters, fence, virtual addresses. Each asserts the exact values.
 */
@RequiresProvider("ucx")
class CallFormsTest {
  private static final long RW = FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE;

  private final Arena arena = Arena.ofShared();
  private Domain targetDomain;
  private Domain domain;
  private MemoryRegion region;
  private MemorySegment target;
  private CompletionQueue cq;
  private Counter reads;
  private Counter writes;
  private Endpoint ep;
  private long peer;
  private final CqEntry[] entries = {new CqEntry(), new CqEntry(), new CqEntry(), new CqEntry()};

  private void open(String transport, long cqFlags, boolean virtualAddressing) {
    targetDomain =
        Fabric.openDomain(
            "ucx", new DomainAttr(transport, DomainAttr.Progress.AUTO, false, Map.of()));
    region = targetDomain.allocateMemory(256, RW);
    target = region.segment();
    domain =
        Fabric.openDomain(
            "ucx",
            new DomainAttr(transport, DomainAttr.Progress.MANUAL, virtualAddressing, Map.of()));
    cq = domain.openCompletionQueue(64);
    reads = domain.openCounter();
    writes = domain.openCounter();
    AddressVector av = domain.openAddressVector();
    ep = domain.openEndpoint();
    ep.bind(av);
    ep.bind(cq, cqFlags);
    ep.bind(reads, FiFlags.READ);
    ep.bind(writes, FiFlags.WRITE);
    ep.enable();
    peer = av.insert(targetDomain.openEndpoint().name());
  }

  @AfterEach
  void close() {
    if (domain != null) {
      domain.close();
      targetDomain.close();
    }
    arena.close();
  }

  private MemorySegment longs(long... values) {
    MemorySegment s = arena.allocate(8L * Math.max(values.length, 1), 8);
    for (int i = 0; i < values.length; i++) {
      s.setAtIndex(JAVA_LONG, i, values[i]);
    }
    return s;
  }

  private Object completion() {
    int n = cq.sread(entries, 1, 10_000);
    if (n == -FiErrno.EAVAIL) {
      CqErrEntry e = new CqErrEntry();
      cq.readErr(e);
      throw new AssertionError("error completion " + e);
    }
    assertEquals(1, n, "one completion");
    return entries[0].opContext;
  }

  @ParameterizedTest
  @ValueSource(strings = {"shm", "tcp"})
  void atomicvSpreadsSeveralIovsOverConsecutiveElements(String transport) {
    open(transport, FiFlags.TRANSMIT, false);
    for (int i = 0; i < 5; i++) {
      target.setAtIndex(JAVA_LONG, i, 100 * i);
    }
    Ioc[] iov = {new Ioc(longs(1, 2), 2), new Ioc(longs(3, 4, 5), 3)};
    assertEquals(
        0, ep.atomicv(iov, null, 2, peer, 0, region.key(), FiDatatype.INT64, FiOp.SUM, "atomicv"));
    assertSame("atomicv", completion());
    long[] expected = {1, 102, 203, 304, 405};
    for (int i = 0; i < 5; i++) {
      assertEquals(expected[i], target.getAtIndex(JAVA_LONG, i));
    }
    assertEquals(1, writes.read());
    assertEquals(0, reads.read());
    assertEquals(FiFlags.ATOMIC | FiFlags.WRITE, entries[0].flags);
  }

  @ParameterizedTest
  @ValueSource(strings = {"shm", "tcp"})
  void fetchAtomicmsgMapsLocalIovsOntoSeveralRemoteIovs(String transport) {
    open(transport, FiFlags.TRANSMIT, false);
    for (int i = 0; i < 32; i++) {
      target.setAtIndex(JAVA_INT, i, 1000 + i);
    }
    // three elements: two at offset 0, one at offset 64 (element 16)
    AtomicMsg msg =
        new AtomicMsg(
            new Ioc[] {new Ioc(arena.allocate(4, 4).fill((byte) 0), 1), new Ioc(ints(5, 7), 2)},
            null,
            peer,
            new RmaIoc[] {new RmaIoc(0, 2, region.key()), new RmaIoc(64, 1, region.key())},
            FiDatatype.UINT32,
            FiOp.SUM,
            "msg",
            0);
    MemorySegment r1 = arena.allocate(8, 4);
    MemorySegment r2 = arena.allocate(4, 4);
    Ioc[] results = {new Ioc(r1, 2), new Ioc(r2, 1)};
    assertEquals(0, ep.fetchAtomicmsg(msg, results, null, 2, FiFlags.COMPLETION));
    assertSame("msg", completion());
    assertEquals(1000, target.getAtIndex(JAVA_INT, 0));
    assertEquals(1006, target.getAtIndex(JAVA_INT, 1));
    assertEquals(1023, target.getAtIndex(JAVA_INT, 16));
    assertEquals(1000, r1.getAtIndex(JAVA_INT, 0));
    assertEquals(1001, r1.getAtIndex(JAVA_INT, 1));
    assertEquals(1016, r2.getAtIndex(JAVA_INT, 0));
    assertEquals(1, reads.read());
    assertEquals(FiFlags.ATOMIC | FiFlags.READ, entries[0].flags);
  }

  private MemorySegment ints(int... values) {
    MemorySegment s = arena.allocate(4L * values.length, 4);
    for (int i = 0; i < values.length; i++) {
      s.setAtIndex(JAVA_INT, i, values[i]);
    }
    return s;
  }

  @ParameterizedTest
  @ValueSource(strings = {"shm", "tcp"})
  void compareAtomicvSwapsOnlyWhereTheCompareMatches(String transport) {
    open(transport, FiFlags.TRANSMIT, false);
    target.setAtIndex(JAVA_LONG, 0, 10);
    target.setAtIndex(JAVA_LONG, 1, 20);
    target.setAtIndex(JAVA_LONG, 2, 30);
    MemorySegment result = arena.allocate(24, 8);
    assertEquals(
        0,
        ep.compareAtomicv(
            new Ioc[] {new Ioc(longs(11, 21, 31), 3)},
            null,
            1,
            new Ioc[] {new Ioc(longs(10), 1), new Ioc(longs(99, 30), 2)},
            null,
            2,
            new Ioc[] {new Ioc(result, 3)},
            null,
            1,
            peer,
            0,
            region.key(),
            FiDatatype.UINT64,
            FiOp.CSWAP,
            "cswap"));
    assertSame("cswap", completion());
    assertEquals(11, target.getAtIndex(JAVA_LONG, 0));
    assertEquals(20, target.getAtIndex(JAVA_LONG, 1));
    assertEquals(31, target.getAtIndex(JAVA_LONG, 2));
    assertEquals(10, result.getAtIndex(JAVA_LONG, 0));
    assertEquals(20, result.getAtIndex(JAVA_LONG, 1));
    assertEquals(30, result.getAtIndex(JAVA_LONG, 2));
  }

  @ParameterizedTest
  @ValueSource(strings = {"shm", "tcp"})
  void injectCopiesTheOperandAndWritesNoCompletion(String transport) {
    open(transport, FiFlags.TRANSMIT, false);
    MemorySegment operand = longs(5);
    assertEquals(
        0, ep.injectAtomic(operand, 1, peer, 8, region.key(), FiDatatype.UINT64, FiOp.SUM));
    operand.set(JAVA_LONG, 0, 1000); // the buffer is the caller's again
    assertEquals(0, writes.waitFor(1, 10_000));
    assertEquals(5, target.getAtIndex(JAVA_LONG, 1));
    assertEquals(-FiErrno.EAGAIN, cq.read(entries, 4), "inject writes no completion");
  }

  @ParameterizedTest
  @ValueSource(strings = {"shm", "tcp"})
  void selectiveCompletionWritesOnlyWhatAsksForOne(String transport) {
    open(transport, FiFlags.TRANSMIT | FiFlags.SELECTIVE_COMPLETION, false);
    MemorySegment one = longs(1);
    assertEquals(
        0, ep.atomic(one, 1, null, peer, 0, region.key(), FiDatatype.UINT64, FiOp.SUM, "quiet"));
    AtomicMsg msg =
        new AtomicMsg(
            new Ioc[] {new Ioc(one, 1)},
            null,
            peer,
            new RmaIoc[] {new RmaIoc(0, 1, region.key())},
            FiDatatype.UINT64,
            FiOp.SUM,
            "loud",
            0);
    assertEquals(0, ep.atomicmsg(msg, FiFlags.COMPLETION));
    assertEquals(0, writes.waitFor(2, 10_000));
    assertSame("loud", completion());
    assertEquals(-FiErrno.EAGAIN, cq.read(entries, 4));
    assertEquals(2, target.getAtIndex(JAVA_LONG, 0));
  }

  @ParameterizedTest
  @ValueSource(strings = {"shm", "tcp"})
  void aFencedReadSeesEveryEarlierWrite(String transport) {
    open(transport, FiFlags.TRANSMIT, false);
    MemorySegment one = longs(1);
    for (int i = 0; i < 50; i++) {
      assertEquals(
          0, ep.atomic(one, 1, null, peer, 0, region.key(), FiDatatype.UINT64, FiOp.SUM, null));
    }
    MemorySegment result = arena.allocate(8, 8);
    AtomicMsg read =
        new AtomicMsg(
            new Ioc[] {new Ioc(null, 1)},
            null,
            peer,
            new RmaIoc[] {new RmaIoc(0, 1, region.key())},
            FiDatatype.UINT64,
            FiOp.ATOMIC_READ,
            "fenced",
            0);
    assertEquals(
        0,
        ep.fetchAtomicmsg(
            read, new Ioc[] {new Ioc(result, 1)}, null, 1, FiFlags.COMPLETION | FiFlags.FENCE));
    int seen = 0;
    while (seen < 51) {
      int n = cq.sread(entries, 4, 10_000);
      assertEquals(true, n > 0, "completions: " + n);
      seen += n;
    }
    assertEquals(50, result.get(JAVA_LONG, 0));
  }

  @ParameterizedTest
  @ValueSource(strings = {"shm", "tcp"})
  void virtualAddressesNameTheTargetsOwnAddresses(String transport) {
    open(transport, FiFlags.TRANSMIT, true);
    target.setAtIndex(JAVA_LONG, 3, 40);
    MemorySegment result = arena.allocate(8, 8);
    assertEquals(
        0,
        ep.fetchAtomic(
            longs(2),
            1,
            null,
            result,
            null,
            peer,
            region.baseAddress() + 24,
            region.key(),
            FiDatatype.INT64,
            FiOp.SUM,
            "va"));
    assertSame("va", completion());
    assertEquals(40, result.get(JAVA_LONG, 0));
    assertEquals(42, target.getAtIndex(JAVA_LONG, 3));
    assertEquals(
        -FiErrno.EFAULT,
        ep.atomic(longs(1), 1, null, peer, 24, region.key(), FiDatatype.INT64, FiOp.SUM, null),
        "an offset is no virtual address");
  }
}
