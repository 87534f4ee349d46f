package dev.fiucx.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.dispatch.LocalElements;
import dev.fiucx.dispatch.RemoteElements;
import dev.fiucx.semantics.AtomicTable;
import dev.fiucx.spi.RemoteAtomicOp;
import dev.fiucx.spi.RemoteRegion;
import dev.fiucx.spi.TransportPeer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The one sequence of checks: each defect alone gives its errno, of two defects the one earlier in
 * the order decides, a one-element call given as plain values ({@link CallChecks#checkOne}) is
 * refused exactly as the same call through the element walks ({@link CallChecks#check}), and a
 * lookup is made only when the checks before it passed.
 */
class CallChecksTest {
  private static final long KEY = 0x1111;
  private static final long READ_ONLY_KEY = 0x2222;
  private static final long RW = FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE;

  /** A resolved region as a transport would describe it. */
  private record Region(long base, long length, long access, boolean revoked)
      implements RemoteRegion {
    @Override
    public String path() {
      return "fake";
    }
  }

  private static final Region WRITABLE = new Region(0x1000, 64, RW, false);
  private static final Region READ_ONLY = new Region(0x2000, 64, FiFlags.REMOTE_READ, false);
  private static final Region LOCKS = new Region(0x3000, 64, RW, false);

  /** Knows two keys; counts what it is asked to resolve. */
  private static final class Peer implements TransportPeer {
    boolean failed;
    int resolves;

    @Override
    public RemoteRegion cached(long key) {
      return key == KEY ? WRITABLE : key == READ_ONLY_KEY ? READ_ONLY : null;
    }

    @Override
    public int resolve(long key) {
      resolves++;
      return cached(key) == null ? -FiErrno.EKEYREJECTED : 0;
    }

    @Override
    public int postAtomic(
        RemoteRegion r, long o, RemoteAtomicOp op, int size, long v, long res, long token) {
      throw new UnsupportedOperationException();
    }

    @Override
    public int postCompareSwap(
        RemoteRegion r, long o, int size, long compare, long swap, long res, long token) {
      throw new UnsupportedOperationException();
    }

    @Override
    public int postGet(RemoteRegion r, long o, int length, long local, long token) {
      throw new UnsupportedOperationException();
    }

    @Override
    public int postPut(RemoteRegion r, long o, int length, long local, long token) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void abandon(int errno, String why) {}

    @Override
    public boolean failed() {
      return failed;
    }

    @Override
    public void close() {}
  }

  /** The peer at fi_addr 0; counts the lookups. */
  private static final class Lookups implements CallChecks.Lookups {
    final Peer peer = new Peer();
    boolean lockFails;
    int peerLookups;
    int lockLookups;

    @Override
    public TransportPeer peer(long destAddr) {
      peerLookups++;
      return destAddr == 0 ? peer : null;
    }

    @Override
    public RemoteRegion lockRegion(TransportPeer p, long destAddr) {
      lockLookups++;
      return lockFails ? null : LOCKS;
    }

    @Override
    public int lockError() {
      return -FiErrno.EIO;
    }
  }

  /**
   * One call's arguments, starting as a valid compare call of one element (CSWAP_GE: defined on
   * UINT64 and LONG_DOUBLE, not on DOUBLE_COMPLEX).
   */
  private final class Call {
    boolean enabled = true;
    AtomicFamily family = AtomicFamily.COMPARE;
    FiOp op = FiOp.CSWAP_GE;
    FiDatatype datatype = FiDatatype.UINT64;
    long flags;
    long destAddr;
    boolean wantsCompletion = true;
    boolean hasQueue = true;
    MemorySegment operand = arena.allocate(16, 16);
    MemorySegment compare = arena.allocate(16, 16);
    MemorySegment result = arena.allocate(16, 16);
    long addr = 16;
    long key = KEY;
    boolean peerFails;
    boolean lockFails;
  }

  private final Arena arena = Arena.ofConfined();

  /** A defect of a call, with the errno it alone gives; {@code field} names what it changes. */
  private record Defect(String name, String field, int errno, Consumer<Call> apply) {}

  /** Every defect a one-element call can have, in the order of the checks. */
  private final List<Defect> inOrder =
      List.of(
          new Defect("not enabled", "enabled", -FiErrno.EOPBADSTATE, c -> c.enabled = false),
          new Defect("a flag", "flags", -FiErrno.EBADFLAGS, c -> c.flags |= FiFlags.TAGGED),
          new Defect("no op", "op", -FiErrno.EINVAL, c -> c.op = null),
          new Defect(
              "no such cell",
              "datatype",
              -FiErrno.EOPNOTSUPP,
              c -> c.datatype = FiDatatype.DOUBLE_COMPLEX),
          new Defect("no operand", "operand", -FiErrno.EINVAL, c -> c.operand = null),
          new Defect(
              "read-only result", "result", -FiErrno.EINVAL, c -> c.result = c.result.asReadOnly()),
          new Defect(
              "short compare", "compare", -FiErrno.EINVAL, c -> c.compare = arena.allocate(4, 4)),
          new Defect("no peer", "destAddr", -FiErrno.EADDRNOTAVAIL, c -> c.destAddr = 9),
          new Defect("failed peer", "peerFails", -FiErrno.ECONNRESET, c -> c.peerFails = true),
          new Defect("unknown key", "key", -FiErrno.EKEYREJECTED, c -> c.key = 0x9999),
          new Defect("read-only region", "key", -FiErrno.EACCES, c -> c.key = READ_ONLY_KEY),
          new Defect("past the end", "addr", -FiErrno.EFAULT, c -> c.addr = 64),
          new Defect("misaligned", "addr", -FiErrno.EINVAL, c -> c.addr = 4),
          new Defect(
              "lock region",
              "datatype",
              -FiErrno.EIO,
              c -> {
                c.datatype = FiDatatype.LONG_DOUBLE; // carried out under the remote lock
                c.lockFails = true;
              }),
          new Defect("no queue", "hasQueue", -FiErrno.ENOCQ, c -> c.hasQueue = false));

  private final LocalElements operands = new LocalElements();
  private final LocalElements compares = new LocalElements();
  private final LocalElements results = new LocalElements();
  private final RemoteElements targets = new RemoteElements();
  private final Lookups lookups = new Lookups();
  private final CallChecks checks =
      new CallChecks(AtomicTable.reference(), false, operands, compares, results, targets, lookups);

  @AfterEach
  void close() {
    arena.close();
  }

  /** The call through the element walks, as the vector, message and count-N calls are checked. */
  private int throughWalks(Call c) {
    configure(c);
    operands.set(c.operand, 1);
    if (c.family == AtomicFamily.COMPARE) {
      compares.set(c.compare, 1);
    }
    if (c.family != AtomicFamily.BASE) {
      results.set(c.result, 1);
    }
    targets.set(c.addr, 1, c.key);
    return checks.check(
        c.enabled, c.family, c.op, c.datatype, c.flags, c.destAddr, c.wantsCompletion, c.hasQueue);
  }

  /** The call as plain values, as a one-element plain call is checked. */
  private int asOneElement(Call c) {
    configure(c);
    return checks.checkOne(
        c.enabled,
        c.family,
        c.op,
        c.datatype,
        c.flags,
        c.destAddr,
        c.wantsCompletion,
        c.hasQueue,
        c.operand,
        c.compare,
        c.result,
        c.addr,
        c.key);
  }

  private void configure(Call c) {
    lookups.peer.failed = c.peerFails;
    lookups.lockFails = c.lockFails;
  }

  @Test
  void eachDefectAloneGivesItsErrnoInBothForms() {
    assertEquals(0, throughWalks(new Call()));
    assertEquals(0, asOneElement(new Call()));
    for (Defect d : inOrder) {
      Call c = new Call();
      d.apply().accept(c);
      assertEquals(d.errno(), throughWalks(c), d.name() + " through the walks");
      assertEquals(d.errno(), asOneElement(c), d.name() + " as one element");
    }
  }

  @Test
  void ofTwoDefectsTheEarlierCheckDecides() {
    int pairs = 0;
    for (int i = 0; i < inOrder.size(); i++) {
      for (int j = i + 1; j < inOrder.size(); j++) {
        Defect first = inOrder.get(i);
        Defect second = inOrder.get(j);
        if (first.field().equals(second.field())) {
          continue; // one undoes the other
        }
        for (boolean reversed : new boolean[] {false, true}) {
          Call c = new Call();
          (reversed ? second : first).apply().accept(c);
          (reversed ? first : second).apply().accept(c);
          String what = first.name() + " and " + second.name();
          assertEquals(first.errno(), throughWalks(c), what + " through the walks");
          assertEquals(first.errno(), asOneElement(c), what + " as one element");
          pairs++;
        }
      }
    }
    assertEquals(204, pairs);
  }

  /** FI_FENCE is a flag the checks accept, not a wait: the endpoint defers a fenced call. */
  @Test
  void aFencedCallPassesAsAnyOther() {
    Call c = new Call();
    c.flags = FiFlags.FENCE | FiFlags.COMPLETION;
    assertEquals(0, throughWalks(c));
    assertEquals(0, asOneElement(c));
  }

  @Test
  void theRemoteSidesShapeAndCountComeBeforeTheBuffers() {
    Call c = new Call();
    c.operand = null;
    configure(c);
    operands.set(c.operand, 1);
    compares.set(c.compare, 1);
    results.set(c.result, 1);
    targets.set(c.addr, 0, c.key);
    assertEquals(-FiErrno.EINVAL, check(c), "no elements");
    targets.set(c.addr, 513, c.key);
    assertEquals(-FiErrno.EMSGSIZE, check(c), "more than the cell's count");
    targets.set(c.addr, -1, c.key);
    assertEquals(-FiErrno.EINVAL, check(c), "a negative count");
    c.flags = FiFlags.TAGGED;
    assertEquals(-FiErrno.EBADFLAGS, check(c), "the flags before the count");
  }

  private int check(Call c) {
    return checks.check(
        c.enabled, c.family, c.op, c.datatype, c.flags, c.destAddr, c.wantsCompletion, c.hasQueue);
  }

  @Test
  void aLookupIsMadeOnlyWhenTheChecksBeforeItPassed() {
    Call badBuffer = new Call();
    badBuffer.operand = null;
    asOneElement(badBuffer);
    throughWalks(badBuffer);
    assertEquals(0, lookups.peerLookups, "no peer looked up for a bad buffer");

    Call noPeer = new Call();
    noPeer.destAddr = 9;
    noPeer.key = 0x7777;
    asOneElement(noPeer);
    assertEquals(0, lookups.peer.resolves, "no key resolved without a peer");

    Call badRange = new Call();
    badRange.datatype = FiDatatype.LONG_DOUBLE;
    badRange.addr = 64;
    assertEquals(-FiErrno.EFAULT, asOneElement(badRange));
    assertEquals(0, lookups.lockLookups, "no lock region looked up for a bad range");
  }

  @Test
  void aPassedCallLeavesWhatItWasCheckedOn() {
    Call c = new Call();
    c.datatype = FiDatatype.LONG_DOUBLE;
    c.addr = 32;
    assertEquals(0, asOneElement(c));
    assertEquals(FiDatatype.LONG_DOUBLE, checks.cell().datatype());
    assertSame(lookups.peer, checks.peer());
    assertSame(WRITABLE, checks.region());
    assertEquals(32, checks.offset());
    assertSame(LOCKS, checks.locks());
    assertEquals(1, checks.elements());
    assertNull(checks.takeFailedCheck());

    c.datatype = FiDatatype.UINT64;
    assertEquals(0, throughWalks(c));
    assertNull(checks.locks(), "no lock region for a native cell");

    c.destAddr = 9;
    assertEquals(-FiErrno.EADDRNOTAVAIL, asOneElement(c));
    assertEquals(CallChecks.NO_PEER, checks.takeFailedCheck());
    assertNull(checks.takeFailedCheck(), "taken once");
  }
}
