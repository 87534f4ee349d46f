package dev.fiucx.dispatch;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiErrno;
import dev.fiucx.FiOp;
import dev.fiucx.Mechanism;
import dev.fiucx.completion.PendingOperations;
import dev.fiucx.emulation.CasLoop;
import dev.fiucx.emulation.RemoteLock;
import dev.fiucx.semantics.AtomicCell;
import dev.fiucx.semantics.ElementSemantics;
import dev.fiucx.spi.MappedWords;
import dev.fiucx.spi.RemoteAtomicOp;
import dev.fiucx.spi.RemoteRegion;
import dev.fiucx.spi.TransportPeer;
import java.lang.foreign.MemorySegment;

/**
 * Carries out a validated call element by element, by the mechanism its cell names. A NATIVE
 * element is one remote atomic; a CAS_LOOP element is started in the endpoint's {@link CasLoop},
 * which posts its read and carries on as completions come; a REMOTE_LOCK element is started in the
 * endpoint's {@link RemoteLock}, which posts the acquire of its stripe. Every element is posted
 * before any is waited for. An endpoint owns one dispatcher and fills its element walks for each
 * call, so a call allocates nothing.
 */
public final class Dispatcher {
  public final LocalElements operands = new LocalElements();
  public final LocalElements compares = new LocalElements();
  public final LocalElements results = new LocalElements();
  public final RemoteElements targets = new RemoteElements();

  /** Where a base-family ATOMIC_WRITE's unwanted old value goes: UCX's SWAP always fetches. */
  private final long discardAddress;

  private final CasLoop casLoop;
  private final RemoteLock remoteLock;

  /**
   * @param discardAddress 8 bytes of native memory that the transport may write at any time
   * @param casLoop the endpoint's CAS-loop engine
   * @param remoteLock the endpoint's remote-lock engine
   */
  public Dispatcher(long discardAddress, CasLoop casLoop, RemoteLock remoteLock) {
    this.discardAddress = discardAddress;
    this.casLoop = casLoop;
    this.remoteLock = remoteLock;
  }

  /**
   * Posts all {@code elements} of the call to {@code peer} with {@code token}. Returns how many
   * went out pending (the transport reports each later) when at least one element went out (a later
   * failure is then recorded in {@code slot} of {@code pending} and reaches the completion queue),
   * or the negative {@code fi_errno} of the first element when nothing did ({@code -FI_EAGAIN} when
   * an emulation engine has no room for the call's elements now).
   *
   * @param locks the peer's lock region, resolved (REMOTE_LOCK cells; else ignored, may be null)
   */
  public int post(
      AtomicCell cell,
      TransportPeer peer,
      RemoteRegion locks,
      long elements,
      PendingOperations pending,
      int slot,
      long token) {
    Mechanism mechanism = cell.mechanism();
    boolean emulated = mechanism == Mechanism.CAS_LOOP;
    boolean locked = mechanism == Mechanism.REMOTE_LOCK;
    if (!emulated && !locked && mechanism != Mechanism.NATIVE) {
      return -FiErrno.EOPNOTSUPP;
    }
    if (emulated && !casLoop.reserve(elements) || locked && !remoteLock.reserve(elements)) {
      return -FiErrno.EAGAIN;
    }
    int size = cell.size();
    boolean readsOperand = cell.op() != dev.fiucx.FiOp.ATOMIC_READ;
    boolean fetches = cell.family() != AtomicFamily.BASE;
    boolean compares = cell.family() == AtomicFamily.COMPARE;
    targets.rewind(size);
    operands.rewind(size);
    this.compares.rewind(size);
    results.rewind(size);
    int rc = 0;
    int pendingElements = 0;
    for (long e = 0; e < elements; e++) {
      targets.next();
      if (readsOperand) {
        operands.next();
      }
      if (fetches) {
        results.next();
      }
      if (compares) {
        this.compares.next();
      }
      try {
        rc =
            emulated
                ? startEmulated(cell, peer, size, readsOperand, fetches, compares, slot)
                : locked
                    ? startLocked(cell, peer, locks, readsOperand, fetches, compares, slot)
                    : postNative(cell, peer, size, readsOperand, fetches, compares, token);
      } catch (RuntimeException ex) {
        // a buffer closed by a racing thread after the endpoint checked it: this element fails
        // like one the transport refused, so the slot still finishes (its earlier elements may be
        // in flight); the element's own room in an emulation engine is given back here
        rc = -FiErrno.EINVAL;
        if (emulated) {
          casLoop.unreserve(1);
        } else if (locked) {
          remoteLock.unreserve(1);
        }
      }
      if (rc == TransportPeer.PENDING) {
        pendingElements++;
      } else if (rc < 0) {
        if (emulated) {
          casLoop.unreserve(elements - e - 1); // the failed element gave its own room back
        } else if (locked) {
          remoteLock.unreserve(elements - e - 1);
        }
        if (e == 0) {
          break;
        }
        pending.failAfterPosting(slot, rc); // the elements before it are posted
        rc = 0;
        break;
      }
    }
    forget();
    return rc < 0 ? rc : pendingElements;
  }

  private int postNative(
      AtomicCell cell,
      TransportPeer peer,
      int size,
      boolean readsOperand,
      boolean fetches,
      boolean compares,
      long token) {
    RemoteAtomicOp op = cell.nativeOp();
    long value =
        readsOperand ? ElementSemantics.load(operands.segment, operands.elementOffset, size) : 0;
    if (compares) {
      // Only CSWAP is native in the compare family.
      long expected =
          ElementSemantics.load(this.compares.segment, this.compares.elementOffset, size);
      return peer.postCompareSwap(
          targets.region, targets.elementOffset, size, expected, value, results.address(), token);
    }
    long resultAddress =
        fetches ? results.address() : op == RemoteAtomicOp.SWAP ? discardAddress : 0;
    return peer.postAtomic(
        targets.region, targets.elementOffset, op, size, value, resultAddress, token);
  }

  /**
   * Carries out the one element of a count-1 call whose buffers and range were checked, by its
   * cell's mechanism: {@link TransportPeer#DONE}, {@link TransportPeer#PENDING} or a negative
   * {@code fi_errno}.
   *
   * @param locks the peer's lock region, resolved (REMOTE_LOCK cells; else ignored, may be null)
   * @param slot the operation's slot, which a CAS-loop element reports to
   * @param token the token a native element's transport completion carries
   */
  public int postOne(
      AtomicCell cell,
      TransportPeer peer,
      RemoteRegion region,
      long offset,
      RemoteRegion locks,
      MemorySegment operand,
      MemorySegment compare,
      MemorySegment result,
      int slot,
      long token) {
    if (cell.mechanism() != Mechanism.NATIVE) {
      return startOneEmulated(cell, peer, region, offset, locks, operand, compare, result, slot);
    }
    int size = cell.size();
    boolean readsOperand = cell.op() != FiOp.ATOMIC_READ;
    boolean fetches = result != null && cell.family() != AtomicFamily.BASE;
    RemoteAtomicOp op = cell.nativeOp();
    MemorySegment mapping = peer.mapped(region);
    if (mapping != null) {
      return runMapped(
          mapping,
          offset,
          op,
          size,
          readsOperand ? operand : null,
          compare,
          fetches ? result : null);
    }
    long value = readsOperand ? ElementSemantics.load(operand, 0, size) : 0;
    if (cell.family() == AtomicFamily.COMPARE) {
      long expected = ElementSemantics.load(compare, 0, size);
      return peer.postCompareSwap(region, offset, size, expected, value, result.address(), token);
    }
    long resultAddress =
        fetches ? result.address() : op == RemoteAtomicOp.SWAP ? discardAddress : 0;
    return peer.postAtomic(region, offset, op, size, value, resultAddress, token);
  }

  /**
   * A native element on a region mapped into this process ({@link TransportPeer#mapped}): this
   * CPU's atomic on the mapping ({@link MappedWords#element}), its old value written through the
   * caller's result buffer: {@link #postOne}'s and the one-element route's (the elements of a call
   * of more go to the transport, which does its own on a mapping). Returns {@link
   * TransportPeer#DONE}.
   *
   * @param op the cell's remote atomic
   * @param operand the operand, or null for none (ATOMIC_READ: a fetching add of 0)
   * @param compare the compare value (CSWAP), else ignored
   * @param result where the old value goes, or null when the call does not fetch
   */
  public static int runMapped(
      MemorySegment mapping,
      long offset,
      RemoteAtomicOp op,
      int size,
      MemorySegment operand,
      MemorySegment compare,
      MemorySegment result) {
    long value = operand == null ? 0 : ElementSemantics.load(operand, 0, size);
    long expected = op == RemoteAtomicOp.CSWAP ? ElementSemantics.load(compare, 0, size) : 0;
    long old = MappedWords.element(mapping, offset, op, size, value, expected);
    if (result != null) {
      ElementSemantics.store(result, 0, size, old);
    }
    return TransportPeer.DONE;
  }

  /** What {@link #runInPlace} returns when the element must go through its engine's steps. */
  public static final int CONTENDED = 2;

  /**
   * A CAS_LOOP or REMOTE_LOCK element of a one-element call, carried out in place when its region
   * (and for the lock, the peer's lock region) is mapped into this process and no element of its
   * engine is in flight ({@link CasLoop#runMapped}, {@link RemoteLock#runMapped}): {@link
   * TransportPeer#DONE}, a negative {@code fi_errno} (nothing changed), or {@link #CONTENDED}
   * (nothing done: not mapped, an element in flight, a lost race or a held stripe).
   *
   * @param mapping the region's mapping ({@link TransportPeer#mapped}), or null
   */
  public int runInPlace(
      AtomicCell cell,
      TransportPeer peer,
      RemoteRegion region,
      MemorySegment mapping,
      long offset,
      RemoteRegion locks,
      MemorySegment operand,
      MemorySegment compare,
      MemorySegment result) {
    if (mapping == null) {
      return CONTENDED;
    }
    boolean fetches = cell.family() != AtomicFamily.BASE;
    boolean compares = cell.family() == AtomicFamily.COMPARE;
    if (cell.mechanism() == Mechanism.REMOTE_LOCK) {
      MemorySegment lockMapping = peer.mapped(locks);
      if (lockMapping == null || !remoteLock.nothingInFlight()) {
        return CONTENDED;
      }
      int rc =
          remoteLock.runMapped(
              cell,
              region,
              mapping,
              offset,
              lockMapping,
              operand,
              compares ? compare : null,
              fetches ? result : null);
      return rc == RemoteLock.CONTENDED ? CONTENDED : rc;
    }
    if (!casLoop.nothingInFlight()) {
      return CONTENDED;
    }
    int size = cell.size();
    long value = cell.op() == FiOp.ATOMIC_READ ? 0 : ElementSemantics.load(operand, 0, size);
    long expected = compares ? ElementSemantics.load(compare, 0, size) : 0;
    int rc =
        casLoop.runMapped(cell, region, mapping, offset, value, expected, fetches ? result : null);
    return rc == CasLoop.CONTENDED ? CONTENDED : rc;
  }

  /** {@link #postOne} of a CAS_LOOP or REMOTE_LOCK cell: kept apart so the native path is short. */
  private int startOneEmulated(
      AtomicCell cell,
      TransportPeer peer,
      RemoteRegion region,
      long offset,
      RemoteRegion locks,
      MemorySegment operand,
      MemorySegment compare,
      MemorySegment result,
      int slot) {
    int rc =
        runInPlace(
            cell, peer, region, peer.mapped(region), offset, locks, operand, compare, result);
    if (rc != CONTENDED) {
      return rc;
    }
    boolean fetches = cell.family() != AtomicFamily.BASE;
    if (cell.mechanism() == Mechanism.REMOTE_LOCK) {
      if (!remoteLock.reserve(1)) {
        return -FiErrno.EAGAIN;
      }
      return remoteLock.start(
          cell,
          peer,
          region,
          offset,
          locks,
          cell.op() == FiOp.ATOMIC_READ ? null : operand,
          0,
          cell.family() == AtomicFamily.COMPARE ? compare : null,
          0,
          fetches ? result : null,
          0,
          slot);
    }
    int size = cell.size();
    long value = cell.op() == FiOp.ATOMIC_READ ? 0 : ElementSemantics.load(operand, 0, size);
    long expected =
        cell.family() == AtomicFamily.COMPARE ? ElementSemantics.load(compare, 0, size) : 0;
    if (!casLoop.reserve(1)) {
      return -FiErrno.EAGAIN;
    }
    return casLoop.start(
        cell, peer, region, offset, value, expected, fetches ? result : null, 0, slot);
  }

  /**
   * A CAS-loop element: its operand and compare bits are copied now (so FI_INJECT and buffer reuse
   * are safe), its old value goes to the result buffer when it finishes.
   */
  private int startEmulated(
      AtomicCell cell,
      TransportPeer peer,
      int size,
      boolean readsOperand,
      boolean fetches,
      boolean compares,
      int slot) {
    long value =
        readsOperand ? ElementSemantics.load(operands.segment, operands.elementOffset, size) : 0;
    long expected =
        compares
            ? ElementSemantics.load(this.compares.segment, this.compares.elementOffset, size)
            : 0;
    return casLoop.start(
        cell,
        peer,
        targets.region,
        targets.elementOffset,
        value,
        expected,
        fetches ? results.segment : null,
        results.elementOffset,
        slot);
  }

  /** A REMOTE_LOCK element: the engine copies its operand and compare bytes now. */
  private int startLocked(
      AtomicCell cell,
      TransportPeer peer,
      RemoteRegion locks,
      boolean readsOperand,
      boolean fetches,
      boolean compares,
      int slot) {
    return remoteLock.start(
        cell,
        peer,
        targets.region,
        targets.elementOffset,
        locks,
        readsOperand ? operands.segment : null,
        operands.elementOffset,
        compares ? this.compares.segment : null,
        this.compares.elementOffset,
        fetches ? results.segment : null,
        results.elementOffset,
        slot);
  }

  /** Drops the references to the caller's buffers that a call left in the element walks. */
  public void forget() {
    operands.forget();
    compares.forget();
    results.forget();
    targets.forget();
  }
}
