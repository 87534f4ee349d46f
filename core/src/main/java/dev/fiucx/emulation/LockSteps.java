package dev.fiucx.emulation;

import dev.fiucx.FiErrno;
import dev.fiucx.FiOp;
import dev.fiucx.spi.RemoteAtomicOp;
import dev.fiucx.spi.TransportPeer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The step machine of the remote lock's elements: take (or ticket, look, observe, enter, skip),
 * get, compute, put, release, finish; the protocol and why it is safe are {@link RemoteLock}'s.
 *
 * <p>Each step posts one transport operation with the token {@code tokenBase | element}. A step
 * that completes at once (shared-memory CPU atomics) continues in place, in the same call; a
 * pending one returns, and its completion, reported inside the transport's progress, only pushes
 * the element on the {@link StepQueue}. {@link #drain} (the domain's progress, right after the
 * transport's) takes the next step, so no transport call is ever made from inside a transport
 * callback. A waiting element is pushed again until its pause has passed. A wide element whose
 * region and lock region are both mapped goes through its stripe's redo record ({@link LockRedo}):
 * on entry, before its get; and around its put, which the record holds from before the put is
 * posted until it completed. Every step method takes {@code reported}: whether the element's call
 * already returned PENDING, so that its end goes to the completions instead of the call's return
 * value.
 *
 * <p>Threads: one thread at a time starts elements, one at a time drains, and completions may
 * arrive on any thread that progresses the transport. They share only the step queue, the room and
 * each element's phase, whose release store precedes every post and whose acquire load begins every
 * step, so an element's plain slots are always seen by the thread that takes its next step. The
 * pacing and the last word seen per stripe are racy on purpose ({@link TurnPacing}, {@link
 * RemoteLock}). Nothing allocates, nothing locks in the JVM.
 */
final class LockSteps extends LockElements {
  // the phases after FREE: the step whose result an element waits for
  private static final int TAKING = 1;
  private static final int TICKETING = 2;
  private static final int WAITING = 3;
  private static final int LOOKING = 4;
  private static final int ENTERING = 5;
  private static final int SKIPPING = 6;
  private static final int GETTING = 7;
  private static final int PUTTING = 8;
  private static final int RELEASING = 9;

  /**
   * A step the transport had no room for ({@code -FI_EAGAIN}: every request slot in flight): it is
   * posted again at the next drain, once completions have given room back ({@link #againOf}).
   */
  static final int AGAIN = 10;

  /** No ticket, and no (served, owner) pair watched: neither is ever -1. */
  private static final int NO_TICKET = -1;

  private static final long NOTHING_WATCHED = -1;

  /** A hold that has not started to count against the lease ({@link #acquiredAt}). */
  static final long NOT_TIMED = Long.MIN_VALUE;

  private final long tokenBase;
  private final int owner;
  private final long leaseNanos;
  private final EmulationCounters counters;
  private final CasLoop.ElementCompletions completions;
  private final ElementRoom room;
  private final StepQueue queue;
  private final TurnPacing pacing;

  /** The last word seen per stripe, shared with the mapped path (see {@link RemoteLock}). */
  private final long[] lastSeen;

  /**
   * @param n elements in flight at most: a power of two
   * @param room the room a call reserves before its elements start; an element gives it back
   */
  LockSteps(
      int n,
      Arena arena,
      long tokenBase,
      int owner,
      long leaseNanos,
      long[] lastSeen,
      ElementRoom room,
      EmulationCounters counters,
      CasLoop.ElementCompletions completions) {
    super(n, arena);
    this.tokenBase = tokenBase;
    this.owner = owner;
    this.leaseNanos = leaseNanos;
    this.lastSeen = lastSeen;
    this.room = room;
    this.counters = counters;
    this.completions = completions;
    this.queue = new StepQueue(n);
    this.pacing = new TurnPacing(leaseNanos);
  }

  /** Posts the first step of an element just claimed ({@link #claim}): entering its stripe. */
  int begin(int e) {
    return acquire(e, false);
  }

  /** See {@link RemoteLock#completed}. */
  void completed(int low, int status) {
    int e = low & mask;
    statuses[e] = status;
    queue.pushNow(e);
  }

  /** See {@link StepQueue#quietNanos}. */
  long quietNanos(long now) {
    return queue.quietNanos(now);
  }

  /** Takes the next step of every ready element; returns how many it stepped. */
  int drain() {
    int e = queue.takeAll();
    int stepped = 0;
    while (e != ReadyStack.EMPTY) {
      int next = queue.next(e); // a step may push e again, which rewrites its link
      step(e);
      stepped++;
      e = next;
    }
    return stepped;
  }

  private void step(int e) {
    int phase = phases.getAcquire(e);
    int status = statuses[e];
    statuses[e] = 0;
    if (status != 0) {
      failed(e, phase, status);
      return;
    }
    switch (phase) {
      case TAKING -> taken(e, true);
      case TICKETING -> ticketed(e, true);
      case WAITING -> {
        if (System.nanoTime() - notBefore[e] < 0) {
          queue.pushWaiting(e, notBefore[e]); // not yet: look again at the next progress
        } else {
          look(e, true);
        }
      }
      case LOOKING -> {
        pacing.lookTook(System.nanoTime() - notBefore[e]);
        observe(e, word(e), true);
      }
      case ENTERING -> entered(e, true);
      case SKIPPING -> skipped(e, true);
      case GETTING -> compute(e, true);
      case PUTTING -> {
        disarm(e);
        release(e, true);
      }
      case RELEASING -> released(e, true);
      case AGAIN -> postAgain(e, againOf[e]);
      default -> throw new IllegalStateException("element " + e + " stepped while free");
    }
  }

  /**
   * Starts entering: one compare-and-swap from the stripe's last word seen when that was free, else
   * a ticket.
   */
  private int acquire(int e, boolean reported) {
    tickets[e] = NO_TICKET;
    watched[e] = NOTHING_WATCHED;
    long guess = lastSeen[stripes[e]];
    return LockWords.isFree(guess) ? take(e, guess, reported) : takeTicket(e, reported);
  }

  /** Posts the compare-and-swap that takes the free word {@code from}: ticket and entry at once. */
  private int take(int e, long from, boolean reported) {
    return compareSwap(e, TAKING, from, LockWords.taken(from, owner), reported);
  }

  private int taken(int e, boolean reported) {
    long seen = word(e);
    if (seen == expected[e]) {
      tickets[e] = LockWords.serving(swap[e]);
      return inside(e, reported);
    }
    lastSeen[stripes[e]] = seen;
    // another free generation: try again from it at once; else queue up
    return LockWords.isFree(seen) ? take(e, seen, reported) : takeTicket(e, reported);
  }

  private int takeTicket(int e, boolean reported) {
    phases.setRelease(e, TICKETING);
    int rc =
        peers[e].postAtomic(
            lockRegions[e],
            LockWords.offset(stripes[e]),
            RemoteAtomicOp.ADD,
            8,
            LockWords.TICKET,
            wordAddress(e),
            tokenBase | e);
    if (rc == TransportPeer.PENDING) {
      return rc;
    }
    if (rc == -FiErrno.EAGAIN) {
      return again(e, TICKETING); // no ticket was taken
    }
    if (rc < 0) {
      return finish(e, rc, reported);
    }
    return ticketed(e, reported);
  }

  /** The fetch-add returned the word before it: the next ticket in it is this element's. */
  private int ticketed(int e, boolean reported) {
    long before = word(e);
    int ticket = LockWords.next(before);
    tickets[e] = ticket;
    int ahead = Math.max(0, LockWords.ahead(ticket, before));
    turns[e] += ahead;
    counters.ticketTaken(ahead);
    return observe(e, before + LockWords.TICKET, reported);
  }

  /** Looks at the word again: a fetch-add of 0. */
  private int look(int e, boolean reported) {
    phases.setRelease(e, LOOKING);
    int rc =
        peers[e].postAtomic(
            lockRegions[e],
            LockWords.offset(stripes[e]),
            RemoteAtomicOp.ADD,
            8,
            0,
            wordAddress(e),
            tokenBase | e);
    if (rc == TransportPeer.PENDING) {
      notBefore[e] = System.nanoTime(); // when the look left, for its round trip
      return rc;
    }
    if (rc == -FiErrno.EAGAIN) {
      return again(e, LOOKING);
    }
    if (rc < 0) {
      return finish(e, rc, reported); // its ticket is skipped once its turn stays unclaimed
    }
    return observe(e, word(e), reported);
  }

  /**
   * A waiting element learned the stripe's word {@code w}: enter when its ticket is served and
   * nobody is inside, take a new ticket when its turn has passed, skip a turn stuck for its lease,
   * else pause for about the time the turns ahead should take (the next in line does not pause).
   */
  private int observe(int e, long w, boolean reported) {
    lastSeen[stripes[e]] = w;
    int ahead = LockWords.ahead(tickets[e], w);
    int inside = LockWords.owner(w);
    if (ahead < 0) {
      return takeTicket(e, reported); // skipped while this element was not looking
    }
    if (ahead == 0 && inside == 0) {
      return compareSwap(e, ENTERING, w, LockWords.entered(w, owner), reported);
    }
    waited[e] = true;
    long now = System.nanoTime();
    long head = LockWords.head(w);
    if (head != watched[e]) {
      if (watched[e] != NOTHING_WATCHED) {
        int moved = (short) (LockWords.serving(w) - (int) (watched[e] >>> 32));
        pacing.turnsPassed(moved, now - watchedSince[e]);
      }
      watched[e] = head; // a new turn: its lease starts now, as far as this element knows
      watchedSince[e] = now;
    } else if (inside == 0
        ? now - watchedSince[e] >= pacing.claimNanos()
        : inside != owner && now - watchedSince[e] >= leaseNanos) {
      // the turn is stuck: end it, and enter at once when this element's ticket is next
      long next = LockWords.released(w);
      return compareSwap(
          e, SKIPPING, w, ahead == 1 ? LockWords.entered(next, owner) : next, reported);
    }
    notBefore[e] = now + pacing.pauseNanos(ahead);
    phases.setRelease(e, WAITING);
    queue.pushWaiting(e, notBefore[e]);
    return TransportPeer.PENDING;
  }

  private int entered(int e, boolean reported) {
    long seen = word(e);
    return seen == expected[e] ? inside(e, reported) : observe(e, seen, reported);
  }

  private int skipped(int e, boolean reported) {
    long seen = word(e);
    if (seen != expected[e]) {
      return observe(e, seen, reported); // the turn moved on, or only the next ticket did
    }
    if (LockWords.owner(seen) != 0) {
      counters.lockTakenOver(); // its holder let a whole lease pass: dead
    } else {
      counters.turnSkipped(); // nobody came for that ticket
    }
    if (LockWords.owner(swap[e]) == owner) {
      return inside(e, reported);
    }
    watched[e] = NOTHING_WATCHED; // the stuck turn says nothing about how long turns take
    return observe(e, swap[e], reported);
  }

  /** Posts a compare-and-swap of the element's lock word; its result comes to {@code phase}. */
  private int compareSwap(int e, int phase, long from, long to, boolean reported) {
    expected[e] = from;
    swap[e] = to;
    phases.setRelease(e, phase);
    int rc =
        peers[e].postCompareSwap(
            lockRegions[e],
            LockWords.offset(stripes[e]),
            8,
            from,
            to,
            wordAddress(e),
            tokenBase | e);
    if (rc == TransportPeer.PENDING) {
      return rc;
    }
    if (rc == -FiErrno.EAGAIN) {
      // nothing was posted: the same compare-and-swap goes again (a release above all must not
      // fail, or a live holder would keep its stripe for a lease)
      return again(e, phase);
    }
    if (rc < 0) {
      // a release refused after the element's work is done: done all the same (see failed)
      return finish(e, phase == RELEASING && workDone(e) ? 0 : rc, reported);
    }
    return switch (phase) {
      case TAKING -> taken(e, reported);
      case ENTERING -> entered(e, reported);
      case SKIPPING -> skipped(e, reported);
      default -> released(e, reported);
    };
  }

  /** The element's compare-and-swap put it inside: the word is {@link #swap}. */
  private int inside(int e, boolean reported) {
    held[e] = swap[e];
    acquiredAt[e] = NOT_TIMED; // timed only if a step after this one goes pending
    counters.lockAcquired();
    redo[e] = enterRedo(e);
    return get(e, reported);
  }

  /**
   * A wide element on mappings of both its region and the lock region: completes a write a dead
   * turn left armed in the stripe's redo record before the get reads the element, and says whether
   * the put arms the record ({@link LockRedo#ARM}, {@link LockRedo#FOREIGN}); 0 when the element's
   * bytes are not the initiator's own stores (the target writes a put whole).
   */
  private int enterRedo(int e) {
    MemorySegment locks = peers[e].mapped(lockRegions[e]);
    if (locks == null || !LockRedo.applies(cells[e].size(), locks)) {
      return 0;
    }
    MemorySegment mapping = peers[e].mapped(regions[e]);
    if (mapping == null) {
      return 0;
    }
    return LockRedo.enter(locks, stripes[e], held[e], mapping, regions[e].base(), counters);
  }

  private int get(int e, boolean reported) {
    if (regions[e].revoked()) {
      errors[e] = -FiErrno.EKEYREJECTED; // the target is releasing the memory
      return release(e, reported);
    }
    phases.setRelease(e, GETTING);
    int rc =
        peers[e].postGet(regions[e], offsets[e], cells[e].size(), oldAddress(e), tokenBase | e);
    if (rc == TransportPeer.PENDING) {
      // the hold may now last as long as the transport takes: from here its lease counts
      acquiredAt[e] = System.nanoTime();
      return rc;
    }
    if (rc == -FiErrno.EAGAIN) {
      return again(e, GETTING);
    }
    if (rc < 0) {
      errors[e] = rc;
      return release(e, reported);
    }
    return compute(e, reported);
  }

  /** The old bytes are in: compute the new ones and put them, unless they are the same. */
  private int compute(int e, boolean reported) {
    if (cells[e].op() == FiOp.ATOMIC_READ) {
      return release(e, reported);
    }
    if (!computeChanges(e)) {
      counters.lockPutSkipped();
      return release(e, reported);
    }
    if (acquiredAt[e] != NOT_TIMED && System.nanoTime() - acquiredAt[e] > leaseNanos / 2) {
      restarting[e] = true; // a put now might land after a waiter took over: give back, retry
      return release(e, reported);
    }
    if (regions[e].revoked()) {
      errors[e] = -FiErrno.EKEYREJECTED;
      return release(e, reported);
    }
    return put(e, reported);
  }

  /**
   * Posts the put of the new bytes. A wide element on mappings arms its stripe's redo record first
   * ({@link LockRedo}): the transport's put there is this process's own copy into the mapping,
   * several stores. The record is cleared once the put completed ({@link #disarm}), or at once when
   * the transport refused it (nothing was written); a put that failed once posted leaves it armed,
   * and its value, which may have been applied (the element ends uncertain), is then completed by
   * the next holder.
   */
  private int put(int e, boolean reported) {
    if (redo[e] == LockRedo.ARM) {
      arm(e);
    }
    phases.setRelease(e, PUTTING);
    int rc =
        peers[e].postPut(regions[e], offsets[e], cells[e].size(), newAddress(e), tokenBase | e);
    if (rc == TransportPeer.PENDING) {
      putSent[e] = true;
      return rc;
    }
    if (rc == -FiErrno.EAGAIN) {
      return again(e, PUTTING); // armed again, with the same bytes, when it is posted again
    }
    disarm(e); // done, or refused: then nothing was written
    if (rc >= 0) {
      putSent[e] = true;
    }
    if (rc < 0) {
      errors[e] = rc;
    }
    return release(e, reported);
  }

  /** Arms the record before the put of a wide element on mappings (see {@link #put}). */
  private void arm(int e) {
    MemorySegment locks = peers[e].mapped(lockRegions[e]);
    if (locks == null) {
      redo[e] = 0; // the connection failed: the put fails too
      return;
    }
    long address = regions[e].base() + offsets[e];
    LockRedo.arm(locks, stripes[e], held[e], address, cells[e].size(), scratch, newOffset(e));
  }

  /** Clears the record once the put completed (see {@link #put}). */
  private void disarm(int e) {
    if (redo[e] == LockRedo.ARM) {
      MemorySegment locks = peers[e].mapped(lockRegions[e]);
      if (locks != null) {
        LockRedo.disarm(locks, stripes[e]);
      }
    }
  }

  /** A step the transport had no room for: see {@link #AGAIN}. The element stays pending. */
  private int again(int e, int step) {
    againOf[e] = step;
    phases.setRelease(e, AGAIN);
    queue.pushNow(e);
    return TransportPeer.PENDING;
  }

  /** Posts again the step the transport had no room for. */
  private void postAgain(int e, int step) {
    switch (step) {
      case TAKING, ENTERING, SKIPPING, RELEASING ->
          compareSwap(e, step, expected[e], swap[e], true);
      case TICKETING -> takeTicket(e, true);
      case LOOKING -> look(e, true);
      case GETTING -> get(e, true);
      case PUTTING -> put(e, true);
      default -> throw new IllegalStateException("element " + e + " again in phase " + step);
    }
  }

  /** Posts the release: the next ticket served, nobody inside. */
  private int release(int e, boolean reported) {
    return compareSwap(e, RELEASING, held[e], LockWords.released(held[e]), reported);
  }

  private int released(int e, boolean reported) {
    long seen = word(e);
    if (seen == held[e]) {
      lastSeen[stripes[e]] = swap[e];
    } else if (LockWords.head(seen) == LockWords.head(held[e])) {
      held[e] = seen; // tickets were taken meanwhile: still inside, give back from this word
      return release(e, reported);
    } else {
      counters.lockLost(); // its turn was taken while held: only a holder stalled for a lease
    }
    if (restarting[e] && errors[e] == 0) {
      restarting[e] = false;
      counters.lockRestarted();
      return acquire(e, reported);
    }
    return finish(e, errors[e], reported);
  }

  /**
   * A step failed in the transport. While the stripe is held and the peer is still reachable, the
   * stripe is released before the element ends with the error; otherwise the lease (or the target's
   * failure detection) frees it. A release that fails after the element's work is done (its put
   * completed, or nothing needed a put) ends the element without error: its effect is in place at
   * the target, and only the lock is left for the target or the lease to free.
   */
  private void failed(int e, int phase, int status) {
    if (phase == RELEASING && workDone(e)) {
      finish(e, 0, true);
      return;
    }
    if ((phase == GETTING || phase == PUTTING) && !peers[e].failed()) {
      errors[e] = status;
      release(e, true);
      return;
    }
    finish(e, errors[e] != 0 ? errors[e] : status, true);
  }

  /**
   * Whether the element, releasing, has done its work: its get (and its put, if it needed one)
   * completed without error, and it is not giving the stripe back to start over.
   */
  private boolean workDone(int e) {
    return errors[e] == 0 && !restarting[e];
  }

  /** Ends an element: its old value to the result buffer when it succeeded, then frees it. */
  private int finish(int e, int status, boolean reported) {
    if (status == 0
        && results[e] != null
        && !ResultBuffers.copy(
            scratch, oldOffset(e), results[e], resultOffsets[e], cells[e].size())) {
      status = -FiErrno.EINVAL; // its arena closed before the operation completed
    }
    counters.lockElement(waited[e], turns[e]);
    int slot = slots[e];
    boolean sent = putSent[e];
    free(e);
    room.release();
    if (reported) {
      // a failure once the put was sent may have applied it; before, the element is untouched
      completions.completed(slot, status, sent);
    }
    return status == 0 ? TransportPeer.DONE : status;
  }
}
