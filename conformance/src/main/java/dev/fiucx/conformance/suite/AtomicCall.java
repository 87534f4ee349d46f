package dev.fiucx.conformance.suite;

import dev.fiucx.AtomicFamily;
import dev.fiucx.AtomicMsg;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.Ioc;
import dev.fiucx.RmaIoc;
import dev.fiucx.semantics.ElementSemantics;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;

/**
 * One call of one form with given element images, posted through the public API and checked byte
 * for byte: the target window (elements and the bytes around them), the fetched values, the
 * completion's context and flags, and the counters. The expected images come from the reference
 * semantics ({@link ElementSemantics}) applied to a copy of the same window.
 */
final class AtomicCall {
  /** Where the first remote element lives: not 0, so offsets are exercised. */
  static final long REMOTE_BASE = 64;

  /** Bytes past the last element that are checked to be untouched. */
  private static final int GUARD = 64;

  /** What the result buffer holds before the call, so bytes the provider never wrote show. */
  private static final byte UNWRITTEN = (byte) 0xEE;

  private final AtomicFamily family;
  private final FiOp op;
  private final FiDatatype dt;
  private final CallForm form;
  private final int count;
  private final byte[] targetImage;
  private final byte[] operand;
  private final byte[] compare;
  private final long[] remoteOffsets;
  private final int[] remoteCounts;

  /**
   * @param targetImage the {@code count} elements the target holds before the call
   * @param operand the {@code buf} elements, null for ATOMIC_READ
   * @param compare the {@code compare} elements (compare family), else null
   */
  AtomicCall(
      AtomicFamily family,
      FiOp op,
      FiDatatype dt,
      CallForm form,
      byte[] targetImage,
      byte[] operand,
      byte[] compare) {
    this.family = family;
    this.op = op;
    this.dt = dt;
    this.form = form;
    this.count = targetImage.length / dt.size();
    this.targetImage = targetImage;
    this.operand = operand;
    this.compare = compare;
    if (form == CallForm.MSG && count >= 2) {
      // two remote iovs with a gap between them, split elsewhere than the local iovs
      int first = count / 2;
      long gapStart = REMOTE_BASE + (long) first * dt.size();
      remoteOffsets = new long[] {REMOTE_BASE, align(gapStart + 96, 32)};
      remoteCounts = new int[] {first, count - first};
    } else {
      remoteOffsets = new long[] {REMOTE_BASE};
      remoteCounts = new int[] {count};
    }
  }

  /** The end of the last remote element. */
  long remoteEnd() {
    int last = remoteOffsets.length - 1;
    return remoteOffsets[last] + (long) remoteCounts[last] * dt.size();
  }

  /** Posts the call on {@code rig}, waits for it and checks everything: null, or what differed. */
  String run(Rig rig, Object context) {
    int size = dt.size();
    int windowBytes = (int) remoteEnd() + GUARD;
    byte[] window = background(windowBytes);
    for (int i = 0; i < count; i++) {
      System.arraycopy(targetImage, i * size, window, (int) remoteOffset(i), size);
    }
    rig.target.set(0, window);

    MemorySegment buf = operand == null ? null : rig.operand(operand);
    MemorySegment cmp = compare == null ? null : rig.compare(compare);
    MemorySegment result = family.fetches() ? rig.result(count * size, UNWRITTEN) : null;
    long reads = rig.reads.read();
    long writes = rig.writes.read();

    int rc = post(rig, buf, cmp, result, context);
    if (rc != 0) {
      return form.callName(family) + " returned " + FiErrno.errorString(rc);
    }
    String problem;
    if (form == CallForm.INJECT) {
      if (buf != null) {
        buf.fill((byte) 0x5A); // an injected buffer is the caller's again once the call returned
      }
      problem = Rig.awaitCount(rig.writes, writes + 1, "write");
      if (problem == null) {
        problem = rig.expectNoCompletion(rig.cq);
      }
    } else {
      long flags = FiFlags.ATOMIC | (family.fetches() ? FiFlags.READ : FiFlags.WRITE);
      problem = rig.awaitCompletion(context, flags);
      if (problem == null) {
        problem = countersMoved(rig, reads, writes);
      }
    }
    if (problem != null) {
      return problem;
    }

    MemorySegment expectedWindow = MemorySegment.ofArray(window.clone());
    MemorySegment expectedResult =
        family.fetches() ? MemorySegment.ofArray(new byte[count * size]) : null;
    MemorySegment operandCopy = operand == null ? null : MemorySegment.ofArray(operand);
    MemorySegment compareCopy = compare == null ? null : MemorySegment.ofArray(compare);
    for (int i = 0; i < count; i++) {
      long e = (long) i * size;
      ElementSemantics.apply(
          op,
          dt,
          expectedWindow,
          remoteOffset(i),
          operandCopy,
          e,
          compareCopy,
          e,
          expectedResult,
          e);
    }
    String diff =
        ImageComparison.difference(
            "target",
            dt,
            expectedWindow.toArray(ValueLayout.JAVA_BYTE),
            rig.target.get(0, windowBytes));
    if (diff == null && result != null) {
      diff =
          ImageComparison.difference(
              "fetched",
              dt,
              expectedResult.toArray(ValueLayout.JAVA_BYTE),
              result.toArray(ValueLayout.JAVA_BYTE));
    }
    return diff;
  }

  /**
   * Posts the call and checks that it is refused with {@code -expectedErrno} and changes nothing:
   * no target byte, no completion, no counter. Null, or what happened instead.
   */
  String runRefused(Rig rig, int expectedErrno, Object context) {
    int windowBytes = (int) remoteEnd() + GUARD;
    byte[] window = background(windowBytes);
    rig.target.set(0, window);
    MemorySegment buf = operand == null ? null : rig.operand(operand);
    MemorySegment cmp = compare == null ? null : rig.compare(compare);
    MemorySegment result = family.fetches() ? rig.result(count * dt.size(), UNWRITTEN) : null;
    long reads = rig.reads.read();
    long writes = rig.writes.read();
    int rc = post(rig, buf, cmp, result, context);
    if (rc == 0) {
      // it was posted: let it finish so the next check starts clean
      if (form == CallForm.INJECT) {
        Rig.awaitCount(rig.writes, writes + 1, "write");
      } else {
        rig.awaitCompletion(context, 0);
      }
    }
    if (rc != -expectedErrno) {
      return form.callName(family)
          + " returned "
          + FiErrno.errorString(rc)
          + ", expected "
          + FiErrno.errorString(-expectedErrno);
    }
    String problem = rig.expectNoCompletion(rig.cq);
    if (problem == null && (rig.reads.read() != reads || rig.writes.read() != writes)) {
      problem = "a refused call moved the counters";
    }
    if (problem == null) {
      problem =
          ImageComparison.difference(
              "target after a refused call",
              FiDatatype.UINT8,
              window,
              rig.target.get(0, windowBytes));
    }
    if (problem == null && result != null) {
      byte[] untouched = new byte[count * dt.size()];
      java.util.Arrays.fill(untouched, UNWRITTEN);
      problem =
          ImageComparison.difference(
              "result buffer after a refused call",
              FiDatatype.UINT8,
              untouched,
              result.toArray(ValueLayout.JAVA_BYTE));
    }
    return problem;
  }

  /** Fetch and compare calls count one read, base calls one write, whatever their count. */
  private String countersMoved(Rig rig, long reads, long writes) {
    long expectReads = reads + (family.fetches() ? 1 : 0);
    long expectWrites = writes + (family.fetches() ? 0 : 1);
    if (rig.reads.read() != expectReads || rig.writes.read() != expectWrites) {
      return "counters read "
          + (rig.reads.read() - reads)
          + " and write "
          + (rig.writes.read() - writes)
          + ", expected "
          + (expectReads - reads)
          + " and "
          + (expectWrites - writes);
    }
    return null;
  }

  private int post(
      Rig rig, MemorySegment buf, MemorySegment cmp, MemorySegment result, Object ctx) {
    var ep = rig.ep;
    long addr = REMOTE_BASE;
    return switch (form) {
      case PLAIN ->
          switch (family) {
            case BASE -> ep.atomic(buf, count, null, rig.peer, addr, rig.key, dt, op, ctx);
            case FETCH ->
                ep.fetchAtomic(
                    buf, count, null, result, null, rig.peer, addr, rig.key, dt, op, ctx);
            case COMPARE ->
                ep.compareAtomic(
                    buf, count, null, cmp, null, result, null, rig.peer, addr, rig.key, dt, op,
                    ctx);
          };
      case INJECT -> ep.injectAtomic(buf, count, rig.peer, addr, rig.key, dt, op);
      case VECTOR -> {
        Ioc[] iov = iovs(buf, count / 3, 2 * count / 3);
        yield switch (family) {
          case BASE -> ep.atomicv(iov, null, iov.length, rig.peer, addr, rig.key, dt, op, ctx);
          case FETCH -> {
            Ioc[] res = iovs(result, 1);
            yield ep.fetchAtomicv(
                iov, null, iov.length, res, null, res.length, rig.peer, addr, rig.key, dt, op, ctx);
          }
          case COMPARE -> {
            Ioc[] cv = iovs(cmp, count / 2);
            Ioc[] res = iovs(result, count - 1);
            yield ep.compareAtomicv(
                iov,
                null,
                iov.length,
                cv,
                null,
                cv.length,
                res,
                null,
                res.length,
                rig.peer,
                addr,
                rig.key,
                dt,
                op,
                ctx);
          }
        };
      }
      case MSG -> {
        RmaIoc[] rma = new RmaIoc[remoteOffsets.length];
        for (int s = 0; s < rma.length; s++) {
          rma[s] = new RmaIoc(remoteOffsets[s], remoteCounts[s], rig.key);
        }
        AtomicMsg msg = new AtomicMsg(iovs(buf, count / 3), null, rig.peer, rma, dt, op, ctx, 0);
        yield switch (family) {
          case BASE -> ep.atomicmsg(msg, 0);
          case FETCH -> {
            Ioc[] res = iovs(result, 1, count - 1);
            yield ep.fetchAtomicmsg(msg, res, null, res.length, 0);
          }
          case COMPARE -> {
            Ioc[] cv = iovs(cmp, count - 2);
            Ioc[] res = iovs(result, count / 2);
            yield ep.compareAtomicmsg(msg, cv, null, cv.length, res, null, res.length, 0);
          }
        };
      }
    };
  }

  /**
   * The elements of {@code s} as iovs split at {@code cuts} (element indexes; cuts outside (0,
   * count) or repeated are dropped). A null segment (ATOMIC_READ's buf) gives null iovs.
   */
  private Ioc[] iovs(MemorySegment s, int... cuts) {
    java.util.List<Ioc> out = new java.util.ArrayList<>();
    int from = 0;
    for (int cut : cuts) {
      if (cut > from && cut < count) {
        out.add(ioc(s, from, cut));
        from = cut;
      }
    }
    out.add(ioc(s, from, count));
    return out.toArray(Ioc[]::new);
  }

  private Ioc ioc(MemorySegment s, int from, int to) {
    int size = dt.size();
    return new Ioc(
        s == null ? null : s.asSlice((long) from * size, (long) (to - from) * size), to - from);
  }

  /** The target offset of element {@code i}: the remote iovs laid out in order. */
  private long remoteOffset(int i) {
    int s = 0;
    while (i >= remoteCounts[s]) {
      i -= remoteCounts[s];
      s++;
    }
    return remoteOffsets[s] + (long) i * dt.size();
  }

  private byte[] background(int bytes) {
    byte[] b = new byte[bytes];
    new Random(bytes * 31L + count).nextBytes(b);
    return b;
  }

  private static long align(long v, int to) {
    return (v + to - 1) / to * to;
  }
}
