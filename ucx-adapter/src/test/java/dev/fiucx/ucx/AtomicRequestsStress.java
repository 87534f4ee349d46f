package dev.fiucx.ucx;

import java.lang.foreign.Arena;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * The request slots' free stack between a posting thread and the progress thread that gives slots
 * back (with a thread-safe worker): the poster takes a slot, its completion gives it back and it is
 * taken again, while the other thread takes one; two slots in all. The two slots held at the end
 * are distinct, and a third take finds none (no slot lost, none handed out twice: the tag defeats
 * ABA).
 */
@JCStressTest
@Outcome(id = "1, 1", expect = Expect.ACCEPTABLE, desc = "two distinct slots held, none left")
@Outcome(expect = Expect.FORBIDDEN, desc = "a slot handed out twice, or lost")
@State
public class AtomicRequestsStress {
  private final AtomicRequests requests = new AtomicRequests(Arena.ofAuto(), 64, 2);
  private long a;
  private long b;

  @Actor
  public void posterAndCompletion() {
    long r = requests.take();
    if (r != 0) {
      requests.give(r);
    }
    a = requests.take();
  }

  @Actor
  public void otherPoster() {
    b = requests.take();
  }

  @Arbiter
  public void held(II_Result r) {
    r.r1 = a != 0 && b != 0 && a != b && requests.owns(a) && requests.owns(b) ? 1 : 0;
    r.r2 = requests.take() == 0 ? 1 : 0;
  }
}
