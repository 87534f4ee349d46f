package dev.fiucx.ucx;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Zeroed request memory for fetching atomics, handed to UCX with {@code UCP_OP_ATTR_FIELD_REQUEST}
 * instead of letting it take requests from its own pool.
 *
 * <p>Why: UCX 1.13 initialises only the atomic fields of an atomic's request, not its datatype
 * state. When an endpoint with peer-failure handling fails, UCX purges the requests still on it
 * through the generic send completion, which deregisters "memory" named by that datatype state. In
 * a pool request that state is whatever the memory held before (the pool's chunks come from
 * malloc), and the purge crashed the initiator in {@code uct_md_mem_dereg} when a tcp peer died
 * with several fetching atomics in flight (3 crashes in 6 runs, see NOTES.md). Atomics never write
 * that state, so memory zeroed once stays safe however often a slot is reused.
 *
 * <p>UCX wants {@code requestSize} bytes before the pointer it is given; each slot is that plus
 * room after it, and the pointer UCX hands back to the callback is the same one. The free slots
 * form a lock-free stack (index and an ABA tag in one word), since with a thread-safe worker one
 * thread posts while another progresses. When every slot is in flight, {@link #take} returns 0 and
 * the caller refuses the post with {@code -FI_EAGAIN}: falling back to UCX's pool would bring back
 * the crash these slots exist to prevent.
 */
final class AtomicRequests {
  /** Fetching atomics in flight per transport before posts answer {@code -FI_EAGAIN}. */
  static final int DEFAULT_SLOTS = 4096;

  private static final long ROOM_AFTER = 64;

  private final int slots;

  private final long base;
  private final long stride;
  private final long requestSize;
  private final int[] next;

  /** The free stack's top: tag in the high 32 bits, top slot + 1 in the low (0: empty). */
  private final AtomicLong top = new AtomicLong();

  AtomicRequests(Arena arena, long requestSize) {
    this(arena, requestSize, DEFAULT_SLOTS);
  }

  AtomicRequests(Arena arena, long requestSize, int slots) {
    if (slots <= 0) {
      throw new IllegalArgumentException("slots must be positive: " + slots);
    }
    this.slots = slots;
    this.next = new int[slots];
    this.requestSize = requestSize;
    this.stride = (requestSize + ROOM_AFTER + 63) & ~63L;
    MemorySegment slab = arena.allocate(stride * slots, 64); // zeroed by the arena
    this.base = slab.address();
    for (int i = 0; i < slots - 1; i++) {
      next[i] = i + 2; // links hold the next slot + 1; 0 ends the stack
    }
    top.set(1); // slot 0 on top, tag 0
  }

  /** A free request pointer (with {@code requestSize} bytes before it), or 0 when none is. */
  long take() {
    while (true) {
      long t = top.get();
      int first = (int) t;
      if (first == 0) {
        return 0;
      }
      long replaced = ((t >>> 32) + 1) << 32 | (next[first - 1] & 0xFFFF_FFFFL);
      if (top.compareAndSet(t, replaced)) {
        return base + (long) (first - 1) * stride + requestSize;
      }
    }
  }

  /** Whether {@code request} is one of these slots (else UCX allocated it). */
  boolean owns(long request) {
    long offset = request - requestSize - base;
    return offset >= 0 && offset < stride * slots && offset % stride == 0;
  }

  /** How many slots there are. */
  int slots() {
    return slots;
  }

  /**
   * How many slots are in flight now, for diagnostics: a walk of the free stack, exact when nobody
   * takes or gives meanwhile, else approximate.
   */
  int inUse() {
    int free = 0;
    for (int i = (int) top.get(); i != 0 && free < slots; i = next[i - 1]) {
      free++;
    }
    return slots - free;
  }

  /** Gives a slot back once UCX is done with it: after its callback, or when it never started. */
  void give(long request) {
    int slot = (int) ((request - requestSize - base) / stride);
    while (true) {
      long t = top.get();
      next[slot] = (int) t;
      long replaced = ((t >>> 32) + 1) << 32 | (slot + 1);
      if (top.compareAndSet(t, replaced)) {
        return;
      }
    }
  }
}
