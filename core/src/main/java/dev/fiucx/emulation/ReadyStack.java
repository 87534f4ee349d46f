package dev.fiucx.emulation;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Elements whose next step can run: pushed by whoever learns it (a transport completion inside
 * progress, on any thread; or a loop that defers a retry), taken all at once by the one thread that
 * drains. An intrusive stack over element indices, so it never allocates; a take swaps out the
 * whole chain, which makes the classic ABA problem of a lock-free stack impossible here. Each
 * element is in it at most once, because an element has at most one step outstanding.
 */
final class ReadyStack {
  static final int EMPTY = -1;

  private final int[] next;
  private final AtomicInteger head = new AtomicInteger(EMPTY);

  ReadyStack(int capacity) {
    next = new int[capacity];
  }

  void push(int element) {
    int h;
    do {
      h = head.get();
      next[element] = h;
    } while (!head.compareAndSet(h, element));
  }

  /**
   * Takes every element pushed so far, oldest first (walk it with {@link #next}); {@link #EMPTY}
   * when there is none, found with a plain volatile read rather than a locked instruction.
   */
  int takeAll() {
    if (head.get() == EMPTY) {
      return EMPTY;
    }
    int e = head.getAndSet(EMPTY);
    int reversed = EMPTY;
    while (e != EMPTY) {
      int n = next[e];
      next[e] = reversed;
      reversed = e;
      e = n;
    }
    return reversed;
  }

  /** Whether nothing is waiting to be taken (a volatile read). */
  boolean isEmpty() {
    return head.get() == EMPTY;
  }

  /** The element after {@code element} in a taken chain; read it before handling the element. */
  int next(int element) {
    return next[element];
  }
}
