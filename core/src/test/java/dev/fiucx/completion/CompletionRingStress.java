package dev.fiucx.completion;

import dev.fiucx.CqEntry;
import dev.fiucx.FiErrno;
import dev.fiucx.completion.CompletionRing.Producers;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * The completion queue's writers against its reader, for each way it may be written: every
 * completion is read exactly once with its own context, and once everything is read the queue has
 * all its room back. Results: times context A was read, times B was read, entries read with a wrong
 * context, and whether the whole capacity can be reserved again (1).
 */
public final class CompletionRingStress {
  private CompletionRingStress() {}

  static final Object A = "A";
  static final Object B = "B";
  private static final int CAPACITY = 4;

  /** What the reader and the arbiter saw. */
  abstract static class Reading {
    final CompletionRing ring;
    private final CqEntry[] entries = {new CqEntry(), new CqEntry(), new CqEntry(), new CqEntry()};
    int a;
    int b;
    int wrong;

    Reading(Producers producers) {
      ring = new CompletionRing(CAPACITY, () -> 0, producers);
    }

    void read() {
      int n = ring.read(entries, entries.length);
      for (int i = 0; i < n; i++) {
        Object c = entries[i].opContext;
        if (c == A) {
          a++;
        } else if (c == B) {
          b++;
        } else {
          wrong++;
        }
        entries[i].opContext = null;
      }
    }

    void settle(IIII_Result r) {
      read();
      read();
      r.r1 = a;
      r.r2 = b;
      r.r3 = wrong;
      int room = 0;
      while (room <= CAPACITY && ring.reserve()) {
        room++;
      }
      r.r4 = room == CAPACITY && ring.read(entries, 1) == -FiErrno.EAGAIN ? 1 : 0;
    }
  }

  /**
   * Automatic progress with one endpoint: the poster completes A itself (plain stores in its lane)
   * while the progress thread completes B (reserved earlier by the poster) in the other lane and
   * the application's reader reads.
   */
  @JCStressTest
  @Outcome(id = "1, 1, 0, 1", expect = Expect.ACCEPTABLE, desc = "each read once, room back")
  @Outcome(expect = Expect.FORBIDDEN, desc = "a completion lost, doubled or torn")
  @State
  public static class OnePoster extends Reading {
    public OnePoster() {
      super(Producers.ONE_POSTER);
      ring.reserve(); // B's operation was posted before the race
    }

    @Actor
    public void posterAndReader() {
      if (ring.reserve()) {
        ring.complete(A, 0, 0);
      }
      read();
    }

    @Actor
    public void progress() {
      ring.completeFromProgress(B, 0, 0);
    }

    @Arbiter
    public void arbiter(IIII_Result r) {
      settle(r);
    }
  }

  /**
   * Several endpoints: two posters reserve and complete on their own threads, one of them reading
   * the queue as well.
   */
  @JCStressTest
  @Outcome(id = "1, 1, 0, 1", expect = Expect.ACCEPTABLE, desc = "each read once, room back")
  @Outcome(expect = Expect.FORBIDDEN, desc = "a completion lost, doubled or torn")
  @State
  public static class Many extends Reading {
    public Many() {
      super(Producers.MANY);
    }

    @Actor
    public void posterAndReader() {
      if (ring.reserve()) {
        ring.complete(A, 0, 0);
      }
      read();
    }

    @Actor
    public void poster() {
      if (ring.reserve()) {
        ring.completeFromProgress(B, 0, 0);
      }
    }

    @Arbiter
    public void arbiter(IIII_Result r) {
      settle(r);
    }
  }
}
