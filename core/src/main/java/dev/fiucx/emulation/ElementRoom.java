package dev.fiucx.emulation;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many more elements an emulation engine may have in flight: a call reserves room for all its
 * elements before it starts any (so it is never refused half-way), and each element gives its room
 * back when it ends. Plain stores when one thread at a time starts and ends elements (manual
 * progress); read-modify-writes when the progress thread ends them beside the poster.
 */
final class ElementRoom {
  private final int capacity;
  private final boolean concurrent;
  private final AtomicInteger available;

  ElementRoom(int capacity, boolean concurrent) {
    this.capacity = capacity;
    this.concurrent = concurrent;
    this.available = new AtomicInteger(capacity);
  }

  /** Sets aside room for {@code elements}; false when they do not fit now. */
  boolean reserve(long elements) {
    if (available.getPlain() < elements) {
      return false;
    }
    add((int) -elements);
    return true;
  }

  /** Gives back reserved room that no element used. */
  void unreserve(long elements) {
    if (elements > 0) {
      add((int) elements);
    }
  }

  /** An element ended. */
  void release() {
    add(1);
  }

  /** Whether no element is reserved or in flight. */
  boolean empty() {
    return available.getPlain() == capacity;
  }

  private void add(int n) {
    if (concurrent) {
      available.addAndGet(n);
    } else {
      available.setPlain(available.getPlain() + n);
    }
  }
}
