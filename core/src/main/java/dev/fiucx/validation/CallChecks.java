package dev.fiucx.validation;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiOp;
import dev.fiucx.Mechanism;
import dev.fiucx.semantics.AtomicCell;
import dev.fiucx.semantics.AtomicTable;
import dev.fiucx.spi.RemoteRegion;
import dev.fiucx.spi.TransportPeer;
import dev.fiucx.validation.LocalChecks.Need;
import java.lang.foreign.MemorySegment;

/**
 * The checks of an atomic call in the one order every call is checked in, so that of several
 * defects the first in this order decides the errno: the endpoint enabled and open, the flags, an
 * op and a datatype, their cell in the provider's table, the remote side's iovs, the element count,
 * the operands, the results and the compare values (each holding as many elements as the remote
 * side), the peer in the address vector and alive, every remote range (key, access, bounds,
 * alignment), the peer's lock region (remote-lock cells), and a completion queue for a call that
 * wants a completion. Nothing is posted before all have passed, so a refused call changes nothing.
 * {@code FI_FENCE} is no check: a fenced call that passed is started or deferred by the endpoint,
 * and its call returns as any other does.
 *
 * <p>One per endpoint, used by the thread inside its calls; it allocates nothing. A call comes in
 * one of two forms with the same checks: {@link #check} reads the buffers and ranges from the
 * call's sides (the dispatcher's element walks, which the caller fills first); {@link #checkOne}
 * takes a one-element call's three buffers and its remote address as plain values. The peer, the
 * regions and the lock region are looked up ({@link Lookups}, {@link RemoteSide#region}) only when
 * the checks before them have passed (a first lookup of a key or lock region is a round trip to the
 * peer). After a call passed, {@link #cell}, {@link #elements}, {@link #peer} and {@link #locks}
 * (and for one element {@link #region} and {@link #offset}) hold what it was checked on; after a
 * refusal, {@link #takeFailedCheck} names the check.
 */
public final class CallChecks {
  /** One local side of a call (operands, compare values or results), as the checks see it. */
  public interface LocalSide {
    /**
     * {@return the elements the side's buffers hold, or {@code -FI_EINVAL}} ({@link
     * LocalChecks#elements})
     */
    long check(int elementSize, Need need);
  }

  /** The remote side of a call: (address, count, key) ranges at one peer. */
  public interface RemoteSide {
    /** {@return the elements of all ranges, or {@code -FI_EINVAL} for a negative count or none} */
    long total();

    /**
     * Resolves each range's key at {@code peer} and checks the range ({@link RemoteChecks#range});
     * returns 0 or the first negative {@code fi_errno}.
     */
    int resolve(TransportPeer peer, AtomicCell cell, boolean virtualAddressing, long access);

    /**
     * {@return the region behind {@code key} at {@code peer} (asking the peer on first use), or
     * null with {@link #lastError} set}
     */
    RemoteRegion region(TransportPeer peer, long key);

    /** {@return why {@link #region} returned null: a negative {@code fi_errno}} */
    int lastError();
  }

  /** What the checks ask of the endpoint on the way, in the order they ask. */
  public interface Lookups {
    /** {@return the peer at {@code destAddr} in the endpoint's address vector, or null} */
    TransportPeer peer(long destAddr);

    /** {@return the peer's lock region, resolved; null with {@link #lockError} set} */
    RemoteRegion lockRegion(TransportPeer peer, long destAddr);

    /** {@return why {@link #lockRegion} returned null: a negative {@code fi_errno}} */
    int lockError();
  }

  // the checks' names in the refusals' DEBUG log lines
  static final String NOT_ENABLED = "the endpoint is closed or not enabled";
  static final String FLAGS = "the flags";
  static final String NO_CELL = "a null op or datatype";
  static final String NOT_CARRIED_OUT = "the cell (op, datatype) is not carried out";
  static final String REMOTE_IOV = "the remote iov (count, entries)";
  static final String COUNT = "the element count";
  static final String LOCAL_BUFFERS =
      "a local buffer (null, closed, another thread's, too small, or not native for results)";
  static final String NO_PEER = "dest_addr is not in the address vector";
  static final String PEER_FAILED = "the peer at dest_addr has failed";
  static final String REMOTE_RANGE =
      "the remote range (key, bounds, alignment, access) or its key's resolution";
  static final String LOCK_REGION = "the peer's remote lock region did not resolve";
  static final String NO_CQ = "a completion is wanted and no completion queue is bound";

  private final AtomicTable table;
  private final boolean virtualAddressing;
  private final LocalSide operands;
  private final LocalSide compares;
  private final LocalSide results;
  private final RemoteSide targets;
  private final Lookups lookups;

  private AtomicCell cell;
  private long elements;
  private TransportPeer peer;
  private RemoteRegion locks;
  private RemoteRegion region;
  private long offset;
  private String failedCheck;

  /**
   * @param table the provider's table: which cells are carried out, and how
   * @param virtualAddressing whether remote addresses are virtual addresses at the peer (else
   *     offsets into the region)
   */
  public CallChecks(
      AtomicTable table,
      boolean virtualAddressing,
      LocalSide operands,
      LocalSide compares,
      LocalSide results,
      RemoteSide targets,
      Lookups lookups) {
    this.table = table;
    this.virtualAddressing = virtualAddressing;
    this.operands = operands;
    this.compares = compares;
    this.results = results;
    this.targets = targets;
    this.lookups = lookups;
  }

  /**
   * Checks a call whose sides are the filled walks: 0 when it may be posted, else the negative
   * {@code fi_errno} of the first check that failed.
   *
   * @param enabled whether the endpoint is enabled and not closed
   * @param flags the call's operation flags
   * @param destAddr the target peer's {@code fi_addr}
   * @param wantsCompletion whether the call writes a completion entry
   * @param hasQueue whether a completion queue is bound
   */
  public int check(
      boolean enabled,
      AtomicFamily family,
      FiOp op,
      FiDatatype datatype,
      long flags,
      long destAddr,
      boolean wantsCompletion,
      boolean hasQueue) {
    return sequence(
        enabled,
        family,
        op,
        datatype,
        flags,
        destAddr,
        wantsCompletion,
        hasQueue,
        false,
        null,
        null,
        null,
        0,
        0);
  }

  /**
   * {@link #check} for a call of one element given as plain values, the walks unused: its operand,
   * compare value and result buffers (each holding one element, as {@link LocalChecks#readable} and
   * {@link LocalChecks#writable} say) and its one remote element at {@code (addr, key)}. After it
   * passed, {@link #region} and {@link #offset} hold where the element goes.
   */
  public int checkOne(
      boolean enabled,
      AtomicFamily family,
      FiOp op,
      FiDatatype datatype,
      long flags,
      long destAddr,
      boolean wantsCompletion,
      boolean hasQueue,
      MemorySegment operand,
      MemorySegment compare,
      MemorySegment result,
      long addr,
      long key) {
    return sequence(
        enabled,
        family,
        op,
        datatype,
        flags,
        destAddr,
        wantsCompletion,
        hasQueue,
        true,
        operand,
        compare,
        result,
        addr,
        key);
  }

  /**
   * The checks in their order, for both forms: {@code one} says whether the local and remote sides
   * are the plain values given (one element) or the walks. The outputs are stored only when they
   * change: a reference store costs the collector's write barrier, and calls in a row mostly go to
   * the same cell, peer and region.
   */
  private int sequence(
      boolean enabled,
      AtomicFamily family,
      FiOp op,
      FiDatatype datatype,
      long flags,
      long destAddr,
      boolean wantsCompletion,
      boolean hasQueue,
      boolean one,
      MemorySegment operand,
      MemorySegment compare,
      MemorySegment result,
      long addr,
      long key) {
    if (!enabled) {
      return refuse(-FiErrno.EOPBADSTATE, NOT_ENABLED);
    }
    int rc = LocalChecks.flags(flags);
    if (rc < 0) {
      return refuse(rc, FLAGS);
    }
    if (op == null || datatype == null) {
      return refuse(-FiErrno.EINVAL, NO_CELL);
    }
    AtomicCell c = table.cell(family, op, datatype);
    rc = LocalChecks.cell(c);
    if (rc < 0) {
      return refuse(rc, NOT_CARRIED_OUT);
    }
    long n = one ? 1 : targets.total();
    if (n < 0) {
      return refuse((int) n, REMOTE_IOV);
    }
    rc = LocalChecks.count(c, n);
    if (rc < 0) {
      return refuse(rc, COUNT);
    }
    rc = one ? oneElementBuffers(c, operand, compare, result) : localSides(c, n);
    if (rc < 0) {
      return refuse(rc, LOCAL_BUFFERS);
    }
    TransportPeer p = lookups.peer(destAddr);
    if (p == null) {
      return refuse(-FiErrno.EADDRNOTAVAIL, NO_PEER);
    }
    if (p.failed()) {
      return refuse(-FiErrno.ECONNRESET, PEER_FAILED);
    }
    long access = RemoteChecks.accessFor(family.fetches(), op == FiOp.ATOMIC_READ);
    rc = one ? oneRange(p, c, addr, key, access) : targets.resolve(p, c, virtualAddressing, access);
    if (rc < 0) {
      return refuse(rc, REMOTE_RANGE);
    }
    RemoteRegion l = null;
    if (c.mechanism() == Mechanism.REMOTE_LOCK) {
      l = lookups.lockRegion(p, destAddr);
      if (l == null) {
        return refuse(lookups.lockError(), LOCK_REGION);
      }
    }
    if (wantsCompletion && !hasQueue) {
      return refuse(-FiErrno.ENOCQ, NO_CQ);
    }
    if (cell != c) {
      cell = c;
    }
    if (peer != p) {
      peer = p;
    }
    if (locks != l) {
      locks = l;
    }
    elements = n;
    return 0;
  }

  /**
   * {@link #localSides} for one element in single buffers: the same rules ({@link
   * LocalChecks#readable} and {@link LocalChecks#writable} are {@link LocalChecks#elements}'s for
   * one buffer of one element), in the same order.
   */
  private static int oneElementBuffers(
      AtomicCell c, MemorySegment operand, MemorySegment compare, MemorySegment result) {
    int size = c.size();
    Thread caller = Thread.currentThread();
    boolean usable =
        (c.op() == FiOp.ATOMIC_READ || LocalChecks.readable(operand, size, caller))
            && (c.family() == AtomicFamily.BASE || LocalChecks.writable(result, size, caller))
            && (c.family() != AtomicFamily.COMPARE || LocalChecks.readable(compare, size, caller));
    return usable ? 0 : -FiErrno.EINVAL;
  }

  /**
   * {@link RemoteSide#resolve} for one element at {@code (addr, key)}: the region behind the key,
   * and the element's range in it ({@link RemoteChecks#range}); sets {@link #region} and {@link
   * #offset}.
   */
  private int oneRange(TransportPeer p, AtomicCell c, long addr, long key, long access) {
    RemoteRegion r = targets.region(p, key);
    if (r == null) {
      return targets.lastError();
    }
    long off = virtualAddressing ? addr - r.base() : addr;
    int rc = RemoteChecks.range(r, off, c.size(), c.alignment(), access);
    if (rc == 0) {
      if (region != r) {
        region = r;
      }
      offset = off;
    }
    return rc;
  }

  /**
   * Operands, then results, then compare values: usable, and as many elements as the remote side.
   */
  private int localSides(AtomicCell c, long n) {
    int size = c.size();
    long held = operands.check(size, c.op() == FiOp.ATOMIC_READ ? Need.COUNT_ONLY : Need.READABLE);
    int rc = held < 0 ? (int) held : LocalChecks.sameCount(n, held);
    if (rc == 0 && c.family() != AtomicFamily.BASE) {
      held = results.check(size, Need.NATIVE);
      rc = held < 0 ? (int) held : LocalChecks.sameCount(n, held);
    }
    if (rc == 0 && c.family() == AtomicFamily.COMPARE) {
      held = compares.check(size, Need.READABLE);
      rc = held < 0 ? (int) held : LocalChecks.sameCount(n, held);
    }
    return rc;
  }

  private int refuse(int rc, String check) {
    failedCheck = check;
    return rc;
  }

  /** {@return the cell of the call that passed last} */
  public AtomicCell cell() {
    return cell;
  }

  /** {@return the elements of the call that passed last} */
  public long elements() {
    return elements;
  }

  /** {@return the peer of the call that passed last} */
  public TransportPeer peer() {
    return peer;
  }

  /** {@return the peer's lock region for the call that passed last (remote-lock cells), or null} */
  public RemoteRegion locks() {
    return locks;
  }

  /** {@return the region of the one-element call that passed last ({@link #checkOne})} */
  public RemoteRegion region() {
    return region;
  }

  /** {@return the offset in {@link #region} of the one-element call that passed last} */
  public long offset() {
    return offset;
  }

  /**
   * {@return the name of the check that refused the last call, for its DEBUG log line, or null when
   * none did since the last take}
   */
  public String takeFailedCheck() {
    String check = failedCheck;
    failedCheck = null;
    return check;
  }
}
