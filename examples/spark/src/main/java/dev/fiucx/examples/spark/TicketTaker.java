package dev.fiucx.examples.spark;

import dev.fiucx.CompletionQueue;
import dev.fiucx.ConnectedEndpoint;
import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.Endpoint;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.FiOp;
import dev.fiucx.PeerRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Iterator;

/**
 * One task's tickets: a fetching {@code FI_SUM} of 1 on the {@code FI_UINT64} counter per record,
 * each record's ticket being the value the counter held before its add. The endpoint and completion
 * queue are the task's own ({@code FI_THREAD_ENDPOINT}: tasks running side by side in an executor
 * share its connection, never an endpoint). Up to {@link #WINDOW} fetches are in flight, so over
 * TCP a task waits for a round trip per window rather than per record; the loop allocates nothing
 * per record but the growth of the ticket array.
 */
final class TicketTaker {
  /** Fetches in flight per task. */
  static final int WINDOW = 256;

  /** How long a task waits for any completion before it fails (the target stopped answering). */
  static final long STALL_MILLIS = 30_000;

  private final Endpoint endpoint;
  private final CompletionQueue cq;
  private final long peer;
  private final long key;
  private final long addr;
  private final String name;

  /** 1, the operand of every add. */
  private final MemorySegment one;

  /** One 8-byte result per slot of the window. */
  private final MemorySegment[] results = new MemorySegment[WINDOW];

  /** The context of each slot's fetch: the slot's number, made once. */
  private final Integer[] contexts = new Integer[WINDOW];

  /**
   * @param task this task's endpoint and queue, with room for {@link #WINDOW} completions
   * @param counter the region whose first 8 bytes are the counter
   */
  TicketTaker(ConnectedEndpoint task, PeerRegion counter) {
    this.endpoint = task.endpoint();
    this.cq = task.cq();
    this.peer = task.peer();
    this.key = counter.key();
    this.addr = counter.address();
    this.name = counter.name();
    // an automatic arena: a result buffer stays alive while the transport may still write it, even
    // when the task fails with fetches in flight
    Arena arena = Arena.ofAuto();
    one = arena.allocate(ValueLayout.JAVA_LONG);
    one.set(ValueLayout.JAVA_LONG, 0, 1L);
    MemorySegment all = arena.allocate(8L * WINDOW, 64);
    for (int slot = 0; slot < WINDOW; slot++) {
      results[slot] = all.asSlice(8L * slot, 8);
      contexts[slot] = slot;
    }
  }

  /**
   * Takes one ticket per record, in record order; throws {@link FiException} when a fetch is
   * refused, ends in error, or nothing completes for {@link #STALL_MILLIS}.
   */
  long[] take(Iterator<?> records) {
    long[] tickets = new long[1024];
    int taken = 0;
    int[] recordOfSlot = new int[WINDOW];
    int[] free = new int[WINDOW];
    for (int slot = 0; slot < WINDOW; slot++) {
      free[slot] = slot;
    }
    int top = WINDOW;
    CqEntry[] entries = new CqEntry[WINDOW];
    for (int i = 0; i < WINDOW; i++) {
      entries[i] = new CqEntry();
    }
    CqErrEntry error = new CqErrEntry();
    boolean recordWaiting = false;
    long lastProgress = System.nanoTime();
    while (true) {
      while (top > 0 && (recordWaiting || records.hasNext())) {
        if (!recordWaiting) {
          records.next();
          recordWaiting = true;
        }
        int slot = free[top - 1];
        int rc =
            endpoint.fetchAtomic(
                one,
                1,
                null,
                results[slot],
                null,
                peer,
                addr,
                key,
                FiDatatype.UINT64,
                FiOp.SUM,
                contexts[slot]);
        if (rc == -FiErrno.EAGAIN) {
          break; // the provider has no room: completions first
        }
        if (rc < 0) {
          throw new FiException(rc, "fetch FI_SUM FI_UINT64 on '" + name + "' for record " + taken);
        }
        top--;
        if (taken == tickets.length) {
          tickets = Arrays.copyOf(tickets, taken * 2);
        }
        recordOfSlot[slot] = taken++;
        recordWaiting = false;
      }
      boolean inFlight = top < WINDOW;
      if (!inFlight && !recordWaiting) {
        return Arrays.copyOf(tickets, taken);
      }
      // with nothing in flight (the provider said -FI_EAGAIN) one read only progresses
      int n = cq.sread(entries, WINDOW, inFlight ? 100 : 0);
      if (n > 0) {
        for (int i = 0; i < n; i++) {
          int slot = (Integer) entries[i].opContext;
          entries[i].opContext = null;
          tickets[recordOfSlot[slot]] = results[slot].get(ValueLayout.JAVA_LONG, 0);
          free[top++] = slot;
        }
        lastProgress = System.nanoTime();
      } else if (n == -FiErrno.EAVAIL) {
        int rc = cq.readErr(error);
        throw new FiException(
            rc < 0 ? rc : -error.err, "a fetch on '" + name + "' failed: " + (rc < 0 ? "" : error));
      } else if (n != -FiErrno.EAGAIN) {
        throw new FiException(n, "reading this task's completion queue");
      } else if (System.nanoTime() - lastProgress > STALL_MILLIS * 1_000_000) {
        throw new FiException(
            -FiErrno.ETIMEDOUT,
            (WINDOW - top)
                + " fetches on '"
                + name
                + "' without a completion for "
                + STALL_MILLIS
                + " ms");
      }
    }
  }
}
