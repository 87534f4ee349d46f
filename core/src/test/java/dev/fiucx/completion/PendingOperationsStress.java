package dev.fiucx.completion;

import dev.fiucx.CqEntry;
import dev.fiucx.completion.CompletionRing.Producers;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * An operation's completion arriving on the progress thread while its poster is still opening its
 * slot: the operation completes exactly once, with its context, and leaves nothing in flight.
 * Results: completions read with the context, completions read in all, operations in flight.
 */
public final class PendingOperationsStress {
  private PendingOperationsStress() {}

  static final Object CONTEXT = "op";

  abstract static class Race {
    final CompletionRing ring = new CompletionRing(4, () -> 0, Producers.ONE_POSTER);
    final PendingOperations pending = new PendingOperations(4, true);
    final CompletionCounter counter = new CompletionCounter(() -> 0);

    /** The slot named in the post, once the post is out: the transport reports it after that. */
    volatile int posted = -1;

    void settle(III_Result r) {
      CqEntry[] entries = {new CqEntry(), new CqEntry()};
      int n = ring.read(entries, 2);
      int withContext = 0;
      for (int i = 0; i < Math.max(n, 0); i++) {
        withContext += entries[i].opContext == CONTEXT ? 1 : 0;
      }
      r.r1 = withContext;
      r.r2 = Math.max(n, 0);
      r.r3 = pending.inFlight();
    }
  }

  /**
   * One element: the poster peeks a slot, posts, and opens the slot because the element went
   * pending; the completion may come before the open (the slot is marked early) or after.
   */
  @JCStressTest
  @Outcome(id = "1, 1, 0", expect = Expect.ACCEPTABLE, desc = "completed once, nothing in flight")
  @Outcome(expect = Expect.FORBIDDEN, desc = "lost, doubled or left in flight")
  @State
  public static class OneElement extends Race {
    @Actor
    public void poster() {
      ring.reserve();
      int slot = pending.peek();
      posted = slot;
      pending.openAt(slot, CONTEXT, ring, true, null, 0, null, true, null);
    }

    @Actor
    public void progress() {
      int slot;
      while ((slot = posted) < 0) {
        Thread.onSpinWait();
      }
      pending.completed(slot, 0);
    }

    @Arbiter
    public void arbiter(III_Result r) {
      settle(r);
    }
  }

  /**
   * Two elements of one operation: one completes on the progress thread, the other inside the
   * poster's own progress, while the poster still holds the guard; the last to finish writes the
   * one completion.
   */
  @JCStressTest
  @Outcome(id = "1, 1, 0", expect = Expect.ACCEPTABLE, desc = "completed once, nothing in flight")
  @Outcome(expect = Expect.FORBIDDEN, desc = "lost, doubled or left in flight")
  @State
  public static class TwoElements extends Race {
    @Actor
    public void poster() {
      ring.reserve();
      int slot = pending.open(CONTEXT, ring, true, counter, 0, 2, true, null);
      posted = slot;
      pending.completed(slot, 0);
      pending.posted(slot, 2, 2);
    }

    @Actor
    public void progress() {
      int slot;
      while ((slot = posted) < 0) {
        Thread.onSpinWait();
      }
      pending.completed(slot, 0);
    }

    @Arbiter
    public void arbiter(III_Result r) {
      settle(r);
    }
  }
}
