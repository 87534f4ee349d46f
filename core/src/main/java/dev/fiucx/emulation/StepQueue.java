package dev.fiucx.emulation;

/**
 * The remote lock's elements that take a step at the next drain, and how long the drainer may wait
 * before one is due. An element comes here either with a step to take now (a completion, a step the
 * transport had no room for) or as a waiter pausing until its next look at the lock word; both sit
 * on one {@link ReadyStack}, and the drain steps every one of them (a waiter whose pause has not
 * passed pushes itself again).
 *
 * <p>What it remembers since the last drain began (whether an element must step now, the earliest
 * time a waiter looks again) is read by {@link #quietNanos} to let a drainer sleep rather than spin
 * while only waiters are pausing: on a machine with fewer cores than spinning threads a spinning
 * waiter takes the core its holder needs. These are plain fields, racy under automatic progress on
 * purpose: a wrong answer costs one short wait, since the next drain resets both.
 */
final class StepQueue {
  private final ReadyStack ready;
  private boolean urgent;
  private boolean anyWaiting;
  private long waitingDue;

  /**
   * @param capacity elements in flight at most
   */
  StepQueue(int capacity) {
    this.ready = new ReadyStack(capacity);
  }

  /** Pushes an element whose step is to be taken at the next drain. */
  void pushNow(int e) {
    urgent = true;
    ready.push(e);
  }

  /** Pushes a waiter that looks again at {@code due} ({@link System#nanoTime}). */
  void pushWaiting(int e, long due) {
    if (!anyWaiting || due - waitingDue < 0) {
      waitingDue = due;
      anyWaiting = true;
    }
    ready.push(e);
  }

  /**
   * How long the drainer may wait before a step is due, after a drain: 0 when an element is ready
   * to step now; until the earliest waiter's next look when only waiters pausing between looks are
   * ready; {@link Long#MAX_VALUE} when none is (every element waits for the transport, whose events
   * end a wait by themselves).
   */
  long quietNanos(long now) {
    if (ready.isEmpty()) {
      return Long.MAX_VALUE;
    }
    return urgent || !anyWaiting ? 0 : Math.max(0, waitingDue - now);
  }

  /**
   * Takes every element pushed so far, oldest first (walk it with {@link #next}), or {@link
   * ReadyStack#EMPTY}; what the drain pushes again then says what it waits for.
   */
  int takeAll() {
    urgent = false;
    anyWaiting = false;
    return ready.takeAll();
  }

  /** The element after {@code e} in a taken chain; read it before stepping {@code e}. */
  int next(int e) {
    return ready.next(e);
  }
}
