package dev.fiucx.ucx.integration;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.AddressVector;
import dev.fiucx.AtomicMsg;
import dev.fiucx.CompletionQueue;
import dev.fiucx.Counter;
import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.EmulationCounts;
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
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The call forms on CAS-loop cells over UCX, one process, under manual progress (the caller's reads
 * drive the loop) and automatic progress (the progress thread does): the largest vector call,
 * several iovs on both sides, inject, fence, virtual addresses, the last byte of a region, a full
 * engine, and the counters. Every value exact.
 */
@RequiresProvider("ucx")
class CasLoopCallFormsTest {
  private static final long RW = FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE;

  private final Arena arena = Arena.ofShared();
  private Domain targetDomain;
  private Domain domain;
  private MemoryRegion region;
  private MemorySegment target;
  private CompletionQueue cq;
  private Counter writes;
  private Endpoint ep;
  private AddressVector av;
  private long peer;
  private final CqEntry[] entries = {new CqEntry(), new CqEntry(), new CqEntry(), new CqEntry()};

  private void open(String transport, DomainAttr.Progress progress, boolean virtualAddressing) {
    targetDomain =
        Fabric.openDomain(
            "ucx", new DomainAttr(transport, DomainAttr.Progress.AUTO, false, Map.of()));
    region = targetDomain.allocateMemory(4096, RW);
    target = region.segment();
    domain =
        Fabric.openDomain("ucx", new DomainAttr(transport, progress, virtualAddressing, Map.of()));
    cq = domain.openCompletionQueue(64);
    writes = domain.openCounter();
    av = domain.openAddressVector();
    ep = domain.openEndpoint();
    ep.bind(av);
    ep.bind(cq, FiFlags.TRANSMIT);
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

  private EmulationCounts counters() {
    return domain.emulationCounts();
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

  @ParameterizedTest(name = "{0}, {1} progress")
  @CsvSource({"shm, MANUAL", "shm, AUTO", "tcp, MANUAL", "tcp, AUTO"})
  void theLargestCallCoversEveryByteOfTheRegion(String transport, DomainAttr.Progress progress) {
    open(transport, progress, false);
    MemorySegment operand = arena.allocate(4096, 8);
    for (int i = 0; i < 4096; i++) {
      target.set(JAVA_BYTE, i, (byte) (i * 7));
      operand.set(JAVA_BYTE, i, (byte) i);
    }
    MemorySegment result = arena.allocate(4096, 8);
    long attempts = counters().casAttempts();
    assertEquals(
        0,
        ep.fetchAtomic(
            operand,
            4096,
            null,
            result,
            null,
            peer,
            0,
            region.key(),
            FiDatatype.UINT8,
            FiOp.SUM,
            "4096"));
    assertSame("4096", completion());
    for (int i = 0; i < 4096; i++) {
      assertEquals((byte) (i * 8), target.get(JAVA_BYTE, i), "byte " + i);
      assertEquals((byte) (i * 7), result.get(JAVA_BYTE, i), "fetched " + i);
    }
    long posted = counters().casAttempts() - attempts;
    // the 16 elements whose operand is 0 change nothing and post no swap
    assertTrue(posted >= 4080, "one swap per changing element at least: " + posted);
    // a call's elements of one word contend with each other when their reads are all in flight
    // together (tcp), at most 4 + 3 + 2 + 1 swaps per word; one after the other (shm), never
    assertTrue(posted <= 10 * 1024, "swaps: " + posted);
    if (transport.equals("shm")) {
      assertEquals(4080, posted);
    }
  }

  @ParameterizedTest(name = "{0}, {1} progress")
  @CsvSource({"shm, MANUAL", "tcp, AUTO"})
  void severalIovsOnBothSidesMapOntoConsecutiveElements(
      String transport, DomainAttr.Progress progress) {
    open(transport, progress, false);
    for (int i = 0; i < 16; i++) {
      target.setAtIndex(JAVA_FLOAT, i, i);
    }
    MemorySegment a = floats(0.5f);
    MemorySegment b = floats(1.5f, -2f);
    AtomicMsg msg =
        new AtomicMsg(
            new Ioc[] {new Ioc(a, 1), new Ioc(b, 2)},
            null,
            peer,
            new RmaIoc[] {new RmaIoc(4, 2, region.key()), new RmaIoc(40, 1, region.key())},
            FiDatatype.FLOAT,
            FiOp.PROD,
            "msg",
            0);
    MemorySegment r1 = arena.allocate(4, 4);
    MemorySegment r2 = arena.allocate(8, 4);
    assertEquals(
        0,
        ep.fetchAtomicmsg(
            msg, new Ioc[] {new Ioc(r1, 1), new Ioc(r2, 2)}, null, 2, FiFlags.COMPLETION));
    assertSame("msg", completion());
    assertEquals(0.5f, target.getAtIndex(JAVA_FLOAT, 1));
    assertEquals(3f, target.getAtIndex(JAVA_FLOAT, 2));
    assertEquals(-20f, target.getAtIndex(JAVA_FLOAT, 10));
    assertEquals(0f, target.getAtIndex(JAVA_FLOAT, 0));
    assertEquals(3f, target.getAtIndex(JAVA_FLOAT, 3));
    assertEquals(1f, r1.getAtIndex(JAVA_FLOAT, 0));
    assertEquals(2f, r2.getAtIndex(JAVA_FLOAT, 0));
    assertEquals(10f, r2.getAtIndex(JAVA_FLOAT, 1));
  }

  private MemorySegment floats(float... values) {
    MemorySegment s = arena.allocate(4L * values.length, 4);
    for (int i = 0; i < values.length; i++) {
      s.setAtIndex(JAVA_FLOAT, i, values[i]);
    }
    return s;
  }

  @ParameterizedTest(name = "{0}, {1} progress")
  @CsvSource({"shm, AUTO", "tcp, MANUAL"})
  void injectCopiesTheOperandsAndAFenceWaitsForTheLoop(
      String transport, DomainAttr.Progress progress) {
    open(transport, progress, false);
    target.setAtIndex(JAVA_SHORT, 0, (short) 500);
    MemorySegment operand = arena.allocate(2, 2);
    for (short v : new short[] {400, -3, 100}) {
      operand.set(JAVA_SHORT, 0, v);
      assertEquals(
          0, ep.injectAtomic(operand, 1, peer, 0, region.key(), FiDatatype.INT16, FiOp.MIN));
      operand.set(JAVA_SHORT, 0, (short) -30000); // the buffer is the caller's again
    }
    MemorySegment result = arena.allocate(2, 2);
    AtomicMsg read =
        new AtomicMsg(
            new Ioc[] {new Ioc(null, 1)},
            null,
            peer,
            new RmaIoc[] {new RmaIoc(0, 1, region.key())},
            FiDatatype.INT16,
            FiOp.ATOMIC_READ,
            "fenced",
            0);
    assertEquals(
        0,
        ep.fetchAtomicmsg(
            read, new Ioc[] {new Ioc(result, 1)}, null, 1, FiFlags.COMPLETION | FiFlags.FENCE));
    assertSame("fenced", completion());
    assertEquals((short) -3, result.get(JAVA_SHORT, 0));
    assertEquals((short) -3, target.getAtIndex(JAVA_SHORT, 0));
    assertEquals(0, writes.waitFor(3, 10_000));
    assertEquals(-FiErrno.EAGAIN, cq.read(entries, 4), "inject writes no completion");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"shm", "tcp"})
  void virtualAddressesWorkForSmallElements(String transport) {
    open(transport, DomainAttr.Progress.MANUAL, true);
    target.set(JAVA_INT, 8, 0x04030201);
    MemorySegment result = arena.allocate(1, 1);
    assertEquals(
        0,
        ep.fetchAtomic(
            bytes((byte) 0x70),
            1,
            null,
            result,
            null,
            peer,
            region.baseAddress() + 10,
            region.key(),
            FiDatatype.UINT8,
            FiOp.BOR,
            "va"));
    assertSame("va", completion());
    assertEquals(3, result.get(JAVA_BYTE, 0));
    assertEquals(0x04730201, target.get(JAVA_INT, 8));
  }

  private MemorySegment bytes(byte... values) {
    MemorySegment s = arena.allocate(Math.max(1, values.length), 8);
    for (int i = 0; i < values.length; i++) {
      s.set(JAVA_BYTE, i, values[i]);
    }
    return s;
  }

  /**
   * The last byte and the last short of a region: their word is the region's last four bytes, which
   * exist because regions are 8-byte aligned and padded; one past is a fault.
   */
  @ParameterizedTest(name = "{0}, registered={1}")
  @CsvSource({"shm, false", "shm, true", "tcp, false", "tcp, true"})
  void theLastByteOfARegionIsReachedAndNothingBeyond(String transport, boolean registered) {
    open(transport, DomainAttr.Progress.MANUAL, false);
    int length = 24;
    MemoryRegion small =
        registered
            ? targetDomain.registerMemory(arena.allocate(length, 8), RW)
            : targetDomain.allocateMemory(length, RW);
    MemorySegment m = small.segment();
    for (int i = 0; i < length; i++) {
      m.set(JAVA_BYTE, i, (byte) (0xA0 + i));
    }
    MemorySegment result = arena.allocate(2, 2);
    assertEquals(
        0,
        ep.fetchAtomic(
            bytes((byte) 1),
            1,
            null,
            result,
            null,
            peer,
            length - 1,
            small.key(),
            FiDatatype.INT8,
            FiOp.SUM,
            "last"));
    assertSame("last", completion());
    assertEquals((byte) (0xA0 + length - 1), result.get(JAVA_BYTE, 0));
    assertEquals((byte) (0xA0 + length), m.get(JAVA_BYTE, length - 1));
    MemorySegment operand = arena.allocate(2, 2);
    operand.set(JAVA_SHORT, 0, (short) 0x7777);
    assertEquals(
        0,
        ep.atomic(
            operand,
            1,
            null,
            peer,
            length - 4,
            small.key(),
            FiDatatype.UINT16,
            FiOp.BXOR,
            "short"));
    assertSame("short", completion());
    for (int i = 0; i < length - 4; i++) {
      assertEquals((byte) (0xA0 + i), m.get(JAVA_BYTE, i), "byte " + i + " untouched");
    }
    assertEquals((short) (0xB5B4 ^ 0x7777), m.get(JAVA_SHORT, length - 4));
    assertEquals((byte) (0xA0 + length - 2), m.get(JAVA_BYTE, length - 2), "untouched");
    assertEquals((byte) (0xA0 + length), m.get(JAVA_BYTE, length - 1));
    assertEquals(
        -FiErrno.EFAULT,
        ep.atomic(
            bytes((byte) 1), 1, null, peer, length, small.key(), FiDatatype.INT8, FiOp.SUM, null));
    assertEquals(
        -FiErrno.EFAULT,
        ep.atomic(operand, 1, null, peer, length, small.key(), FiDatatype.UINT16, FiOp.BXOR, null));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"tcp"})
  void aFullLoopRefusesWithEagainUntilItDrains(String transport) {
    open(transport, DomainAttr.Progress.MANUAL, false);
    MemorySegment operand = arena.allocate(4096, 8).fill((byte) 1);
    // tcp: every read goes out pending, and nothing progresses until the queue is read
    assertEquals(
        0,
        ep.atomic(operand, 4096, null, peer, 0, region.key(), FiDatatype.INT8, FiOp.SUM, "whole"));
    assertEquals(
        -FiErrno.EAGAIN,
        ep.atomic(operand, 1, null, peer, 0, region.key(), FiDatatype.INT8, FiOp.SUM, "one"));
    // the 4096 pending reads also hold every one of the transport's 4096 request slots (tcp has
    // peer-failure detection, so UCX may purge requests and fiucx never lends it its own pool): a
    // native op, which goes out as a fetching one, is refused too rather than taking UCX's pool
    assertEquals(
        -FiErrno.EAGAIN,
        ep.atomic(longsOf(1), 1, null, peer, 0, region.key(), FiDatatype.INT64, FiOp.SUM, "nat"),
        "no request slot left");
    int seen = 0;
    while (seen < 1) {
      int n = cq.sread(entries, 4, 10_000);
      assertTrue(n > 0, "completions: " + n);
      seen += n;
    }
    assertEquals(
        0, ep.atomic(operand, 1, null, peer, 0, region.key(), FiDatatype.INT8, FiOp.SUM, "again"));
    assertSame("again", completion());
    assertEquals(
        0,
        ep.atomic(longsOf(1), 1, null, peer, 0, region.key(), FiDatatype.INT64, FiOp.SUM, "nat"));
    assertSame("nat", completion());
    assertEquals(3, target.get(JAVA_BYTE, 0));
    assertEquals(1, target.get(JAVA_BYTE, 1));
    // the native SUM on the same eight bytes, after their CAS loops, held too
    assertEquals(0x0101_0101_0101_0103L, target.get(JAVA_LONG, 0));
  }

  private MemorySegment longsOf(long v) {
    MemorySegment s = arena.allocate(8, 8);
    s.set(JAVA_LONG, 0, v);
    return s;
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"shm", "tcp"})
  void theCountersSeeSwapsAndSkips(String transport) {
    open(transport, DomainAttr.Progress.MANUAL, false);
    EmulationCounts c = counters();
    long elements = c.casElements();
    long attempts = c.casAttempts();
    long skipped = c.swapsSkipped();
    target.setAtIndex(JAVA_LONG, 0, 5);
    assertEquals(
        0, ep.atomic(longsOf(9), 1, null, peer, 0, region.key(), FiDatatype.INT64, FiOp.MIN, "no"));
    assertSame("no", completion());
    assertEquals(
        0,
        ep.atomic(longsOf(2), 1, null, peer, 0, region.key(), FiDatatype.INT64, FiOp.MIN, "yes"));
    assertSame("yes", completion());
    assertEquals(2, target.getAtIndex(JAVA_LONG, 0));
    assertEquals(2, c.casElements() - elements);
    assertEquals(1, c.casAttempts() - attempts);
    assertEquals(1, c.swapsSkipped() - skipped);
    assertEquals(0, c.casRetries());
  }
}
