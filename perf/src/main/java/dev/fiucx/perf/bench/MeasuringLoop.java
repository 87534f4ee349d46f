package dev.fiucx.perf.bench;

import dev.fiucx.CompletionQueue;
import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * One thread's measuring loop: keeps up to a window of calls in flight (posting until the window is
 * full or the endpoint says -FI_EAGAIN), reads the completion queue in batches, and records one
 * time per completed call; with a window of 1, a loop of its own posts a call and reads its
 * completion, nothing else. It allocates nothing per call: slots, contexts, CQ entries and the
 * histogram exist before it starts, and errors come back as negative fi_errno values.
 *
 * <p>What a sample is: the time from the previous completion (or the start) to this batch of
 * completions, divided among the batch. With a window of 1 that is the round trip of one call, post
 * to completion (the loop's own few instructions included, as in ucx_perftest, which also reads its
 * clock once per iteration); with a larger window it is the time per call, whose mean is the
 * inverse of the thread's rate. One clock read per batch keeps the clock out of the figures. A run
 * that records no samples (warm-up, or the clock-free runs of a comparison) reads the clock only at
 * its start and end.
 */
final class MeasuringLoop {
  /** Completions between two looks at the clock in a timed run that records nothing. */
  private static final long CLOCK_EVERY = 1024;

  /** Longest sample the histogram holds (longer ones are recorded as this): one minute. */
  static final long HIGHEST_NANOS = 60_000_000_000L;

  /** The context of each window slot: its index, so a completion frees its slot. */
  private static final class Slot {
    final int index;

    Slot(int index) {
      this.index = index;
    }
  }

  private final CallPoster poster;
  private final CompletionQueue cq;
  private final int window;
  private final Slot[] slots;
  private final int[] free;
  private final CqEntry[] entries;
  private final CqErrEntry error = new CqErrEntry();
  private final Histogram histogram = new Histogram(1, HIGHEST_NANOS, 3);
  private final AtomicLong completedSoFar;

  private long completed;
  private long startNanos;
  private long endNanos;

  /**
   * @param completedSoFar where the loop publishes its completed calls for the progress line
   */
  MeasuringLoop(CallPoster poster, CompletionQueue cq, int window, AtomicLong completedSoFar) {
    this.poster = poster;
    this.cq = cq;
    this.window = window;
    this.slots = new Slot[window];
    this.free = new int[window];
    for (int i = 0; i < window; i++) {
      slots[i] = new Slot(i);
    }
    this.entries = new CqEntry[Math.min(window, 256)];
    for (int i = 0; i < entries.length; i++) {
      entries[i] = new CqEntry();
    }
    this.completedSoFar = completedSoFar;
  }

  /**
   * Runs {@code calls} calls, or for {@code durationNanos} when it is not 0 (timed from the loop's
   * own start, so a run's measured time is never shorter than the duration asked for), then waits
   * for those in flight. Records samples only when {@code record}.
   *
   * @return 0, or the negative fi_errno of the first call or completion that failed
   */
  int run(long calls, long durationNanos, boolean record) {
    TypedCall typed = poster.typed();
    if (typed != null) {
      return runTyped(typed, calls, durationNanos, record);
    }
    return window == 1
        ? runOneInFlight(calls, durationNanos, record)
        : runWindow(calls, durationNanos, record);
  }

  /**
   * {@link #run} with one call in flight: post, read its completion, again; the shape of
   * ucx_perftest's own latency loop. The calls carry no context (NULL, which libfabric allows): the
   * one completion is the one call's. Measured in one JVM against a bare post-and-read loop on the
   * same endpoint, the window loop below cost 1.52x per call at window 1 (its slot stack, window
   * tests and batch loop, and a context through the queue); this loop costs what the bare one does.
   */
  private int runOneInFlight(long calls, long durationNanos, boolean record) {
    boolean timed = durationNanos != 0;
    CqEntry[] one = entries;
    long done = 0;
    long start = System.nanoTime();
    long deadlineNanos = start + durationNanos;
    long last = start;
    long untilLook = CLOCK_EVERY;
    CallPoster.OneCall call = poster.oneCall();
    while (timed || done < calls) {
      int rc = call.post();
      if (rc == -FiErrno.EAGAIN) {
        // nothing in flight: the read only progresses (or reports an error), then the post again
        int n = cq.read(one, 1);
        if (n < 0 && n != -FiErrno.EAGAIN) {
          return finish(failed(n), start, done);
        }
        continue;
      }
      if (rc < 0) {
        return finish(rc, start, done);
      }
      int n;
      do {
        n = cq.read(one, 1);
      } while (n == -FiErrno.EAGAIN);
      if (n < 0) {
        return finish(failed(n), start, done);
      }
      poster.completed(0);
      if ((++done & 63) == 0) {
        completedSoFar.lazySet(done); // for the progress line: a store per call costs a call 2-4%
      }
      if (record) {
        long now = System.nanoTime();
        histogram.recordValue(Math.min(now - last, HIGHEST_NANOS));
        last = now;
        if (timed && now - deadlineNanos >= 0) {
          break;
        }
      } else if (timed && --untilLook <= 0) {
        untilLook = CLOCK_EVERY;
        if (System.nanoTime() - deadlineNanos >= 0) {
          break;
        }
      }
    }
    return finish(0, start, done);
  }

  /**
   * {@link #runOneInFlight} through the typed layer: each call returns when it is done, so the loop
   * only counts, keeps and records. A failed call throws; its errno ends the run as a mirror call's
   * would.
   */
  private int runTyped(TypedCall typed, long calls, long durationNanos, boolean record) {
    boolean timed = durationNanos != 0;
    long done = 0;
    long start = System.nanoTime();
    long deadlineNanos = start + durationNanos;
    long last = start;
    long untilLook = CLOCK_EVERY;
    try {
      while (timed || done < calls) {
        poster.completedWith(typed.call());
        if ((++done & 63) == 0) {
          completedSoFar.lazySet(done);
        }
        if (record) {
          long now = System.nanoTime();
          histogram.recordValue(Math.min(now - last, HIGHEST_NANOS));
          last = now;
          if (timed && now - deadlineNanos >= 0) {
            break;
          }
        } else if (timed && --untilLook <= 0) {
          untilLook = CLOCK_EVERY;
          if (System.nanoTime() - deadlineNanos >= 0) {
            break;
          }
        }
      }
    } catch (FiException e) {
      return finish(-e.errno(), start, done);
    }
    return finish(0, start, done);
  }

  /** A read's failure: the error entry's when it says one is there, else the read's own. */
  private int failed(int n) {
    if (n != -FiErrno.EAVAIL) {
      return n;
    }
    int rc = cq.readErr(error);
    return rc < 0 ? rc : -error.err;
  }

  /** {@link #run} with a window of calls in flight. */
  private int runWindow(long calls, long durationNanos, boolean record) {
    boolean timed = durationNanos != 0;
    int top = 0;
    for (int i = window - 1; i >= 0; i--) {
      free[top++] = i;
    }
    int inFlight = 0;
    long posted = 0;
    long done = 0;
    boolean posting = timed || calls > 0;
    long start = System.nanoTime();
    long deadlineNanos = start + durationNanos;
    long last = start;
    long untilLook = CLOCK_EVERY;
    while (true) {
      while (posting && inFlight < window) {
        int slot = free[--top];
        int rc = poster.post(slot, slots[slot]);
        if (rc == -FiErrno.EAGAIN) {
          top++;
          break;
        }
        if (rc < 0) {
          return finish(rc, start, done);
        }
        inFlight++;
        posting = timed || ++posted < calls;
      }
      if (inFlight == 0 && !posting) {
        break;
      }
      // with nothing in flight (the endpoint said -FI_EAGAIN) the read only progresses
      int n = cq.read(entries, Math.min(entries.length, Math.max(inFlight, 1)));
      if (n > 0) {
        // no clock read when nothing needs it: Java's clock costs 34 ns per read here, as much as
        // a whole call on shared memory (ucx_perftest reads the TSC); a timed run that records
        // nothing (a comparison's clock-free run) looks at it every CLOCK_EVERY completions
        boolean look = record || timed && (untilLook -= n) <= 0;
        long now = look ? System.nanoTime() : 0;
        if (look) {
          untilLook = CLOCK_EVERY;
        }
        for (int i = 0; i < n; i++) {
          int slot = ((Slot) entries[i].opContext).index;
          poster.completed(slot);
          free[top++] = slot;
          entries[i].opContext = null;
        }
        if (record) {
          histogram.recordValueWithCount(Math.min((now - last) / n, HIGHEST_NANOS), n);
        }
        last = now;
        inFlight -= n;
        done += n;
        completedSoFar.lazySet(done);
        if (timed && look && now - deadlineNanos >= 0) {
          posting = false;
        }
      } else if (n != -FiErrno.EAGAIN) {
        return finish(failed(n), start, done);
      }
    }
    return finish(0, start, done);
  }

  private int finish(int rc, long start, long done) {
    completedSoFar.lazySet(done);
    startNanos = start;
    endNanos = System.nanoTime();
    completed = done;
    return rc;
  }

  /** Calls completed in the last run. */
  long completed() {
    return completed;
  }

  long startNanos() {
    return startNanos;
  }

  long endNanos() {
    return endNanos;
  }

  /** Every sample of the runs that recorded. */
  Histogram histogram() {
    return histogram;
  }
}
