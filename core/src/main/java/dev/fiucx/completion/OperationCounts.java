package dev.fiucx.completion;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import dev.fiucx.semantics.AtomicCell;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One endpoint's plain counts of its operations, for metrics: operations and elements by cell and
 * outcome, refused calls and CQ error entries by errno, and operations in flight. The hot path only
 * moves longs here: no allocation, no lock, no read-modify-write instruction, no Micrometer. While
 * a {@link LatencyRecorder} is set, each operation's time from post to end goes to it as well (two
 * clock reads and the recorder's own cost); with none set no clock is read.
 *
 * <p>Two threads may write: the posting thread (calls, and operations it finishes itself) and the
 * one that progresses (completions; under automatic progress the progress thread or a reader, one
 * at a time). Each writes only its own {@link Side}, so a count is a plain load and an opaque
 * store; readers (a metrics scrape, any thread) add both sides with opaque loads. The sides are
 * separate arrays padded at both ends, so the two writers never share a cache line.
 */
public final class OperationCounts {
  private static final int OPS = FiOp.values().length;
  private static final int TYPES = FiDatatype.values().length;

  /** How many cell indexes there are: every (family, op, datatype), valid or not. */
  public static final int CELLS = AtomicFamily.values().length * OPS * TYPES;

  /** Errnos counted one by one; anything larger (none is today) counts as {@link #ERRNOS} - 1. */
  public static final int ERRNOS = 512;

  private static final int PAD = 16; // 128 bytes of longs before and after each array
  private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

  private final Side poster = new Side();
  private final Side progress = new Side();
  private final int[] slotCell;
  private final long[] slotElements;
  private final long[] slotStart;
  private volatile LatencyRecorder recorder;

  /**
   * @param slots the size of the endpoint's {@link PendingOperations} (a power of two)
   */
  public OperationCounts(int slots) {
    int n = Integer.highestOneBit(Math.max(2, slots) - 1) << 1;
    slotCell = new int[n];
    slotElements = new long[n];
    slotStart = new long[n];
  }

  /** The index of a cell in the counts: (family, op, datatype), in declaration order. */
  public static int index(AtomicFamily family, FiOp op, FiDatatype datatype) {
    return (family.ordinal() * OPS + op.ordinal()) * TYPES + datatype.ordinal();
  }

  private static int index(AtomicCell cell) {
    return index(cell.family(), cell.op(), cell.datatype());
  }

  /**
   * Where operations' latencies go from now on; null stops timing (the hot path reads no clock).
   */
  public void timeLatency(LatencyRecorder recorder) {
    this.recorder = recorder;
  }

  /** A start time for {@link #opened} or {@link #done}: the clock when latency is timed, else 0. */
  public long start() {
    return recorder != null ? System.nanoTime() : 0;
  }

  // --- the posting thread ---

  /**
   * The poster opened {@code slot} for an operation of {@code elements} elements on {@code cell}:
   * before it posts, since the completion may come at once on another thread.
   */
  public void opened(int slot, AtomicCell cell, long elements, long start) {
    slotCell[slot] = index(cell);
    slotElements[slot] = elements;
    slotStart[slot] = start;
    poster.add(Side.OPENED, 1);
  }

  /** An opened slot posted nothing after all (the call was refused): it never finishes. */
  public void cancelled() {
    poster.add(Side.OPENED, -1);
  }

  /** One element on {@code cell} finished at once without a slot: an operation done, ok. */
  public void done(AtomicCell cell, long start) {
    doneAt(index(cell), start);
  }

  /** {@link #done} for the cell whose {@link #index} is {@code c}. */
  public void doneAt(int c, long start) {
    poster.add(Side.cellAt(c, true), 1); // one element: nothing beyond the operation's own
    record(c, start);
  }

  private void record(int cell, long start) {
    if (start == 0) {
      return; // not timed: no clock was read at the start
    }
    LatencyRecorder r = recorder;
    if (r != null) {
      r.record(cell, System.nanoTime() - start);
    }
  }

  /**
   * An operation on {@code cell} of {@code elements} elements that ended with {@code status} (a
   * negative errno) before it was posted: a call deferred by {@code FI_FENCE} that was cancelled or
   * could no longer start. Counted as an operation that ended so, never as opened.
   */
  public void endedUnposted(AtomicCell cell, long elements, int status) {
    int at = Side.cellAt(index(cell), status == 0);
    poster.add(at, 1);
    if (elements != 1) {
      poster.add(at + 1, elements - 1);
    }
    if (status != 0) {
      poster.add(Side.completionErrorAt(-status), 1);
    }
  }

  /** Counts a refused call's {@code rc} when negative; returns it. */
  public int refused(int rc) {
    if (rc < 0) {
      poster.add(Side.callErrorAt(-rc), 1);
    }
    return rc;
  }

  // --- whoever finishes a slot ---

  /**
   * The operation in {@code slot} finished with {@code status} (0 or a negative errno), {@code
   * uncertain} when it failed and may have changed the target; {@code byPoster} when the posting
   * thread finishes it, else progress does.
   */
  public void finished(int slot, int status, boolean uncertain, boolean byPoster) {
    Side side = byPoster ? poster : progress;
    int c = slotCell[slot];
    int at = Side.cellAt(c, status == 0);
    side.add(at, 1);
    long elements = slotElements[slot];
    if (elements != 1) {
      side.add(at + 1, elements - 1);
    }
    side.add(Side.FINISHED, 1);
    if (status != 0) {
      side.add(Side.completionErrorAt(-status), 1);
      if (uncertain) {
        side.add(Side.UNCERTAIN, 1);
      }
    }
    record(c, slotStart[slot]);
  }

  // --- readers (any thread) ---

  /** Operations on cell {@code cell} that ended ok, or with an error entry. */
  public long operations(int cell, boolean ok) {
    return sum(Side.cellAt(cell, ok));
  }

  /** Elements of those operations. */
  public long elements(int cell, boolean ok) {
    int at = Side.cellAt(cell, ok);
    return sum(at) + sum(at + 1);
  }

  /** Calls refused with {@code -errno}. */
  public long callErrors(int errno) {
    return sum(Side.callErrorAt(errno));
  }

  /** CQ error entries (operations that failed) with {@code errno}. */
  public long completionErrors(int errno) {
    return sum(Side.completionErrorAt(errno));
  }

  /**
   * Operations that failed with an error entry that is {@link dev.fiucx.CqErrEntry#uncertain}: the
   * target may have been changed.
   */
  public long uncertain() {
    return sum(Side.UNCERTAIN);
  }

  /** Operations posted and not yet finished (those done at once never count). */
  public long outstanding() {
    return Math.max(0, sum(Side.OPENED) - sum(Side.FINISHED));
  }

  private long sum(int at) {
    return poster.get(at) + progress.get(at);
  }

  /** One writer's counts. */
  private static final class Side {
    static final int OPENED = PAD;
    static final int FINISHED = PAD + 1;
    static final int UNCERTAIN = PAD + 2;
    private static final int CELLS_AT = PAD + 3;
    private static final int CALL_ERRORS_AT = CELLS_AT + CELLS * 4;
    private static final int COMPLETION_ERRORS_AT = CALL_ERRORS_AT + ERRNOS;
    private static final int LENGTH = COMPLETION_ERRORS_AT + ERRNOS + PAD;

    private final long[] counts = new long[LENGTH];

    /**
     * Operations of {@code cell} by outcome; at the next index, their elements beyond one each (so
     * that a one-element operation, the common case, moves one count, not two).
     */
    static int cellAt(int cell, boolean ok) {
      return CELLS_AT + cell * 4 + (ok ? 0 : 2);
    }

    static int callErrorAt(int errno) {
      return CALL_ERRORS_AT + Math.min(errno, ERRNOS - 1);
    }

    static int completionErrorAt(int errno) {
      return COMPLETION_ERRORS_AT + Math.min(errno, ERRNOS - 1);
    }

    void add(int at, long n) {
      LONGS.setOpaque(counts, at, counts[at] + n);
    }

    long get(int at) {
      return (long) LONGS.getOpaque(counts, at);
    }
  }
}
