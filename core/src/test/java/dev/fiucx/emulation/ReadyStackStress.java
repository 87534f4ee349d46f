package dev.fiucx.emulation;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Completions push their elements while the draining thread takes: every element is taken exactly
 * once, by the drain or by a later one (the arbiter), however the pushes and the takes interleave.
 * Element 2 is already queued, so the first take swaps out a non-empty chain. (Two actors: jcstress
 * runs one actor per CPU, and these machines have two.)
 */
@JCStressTest
@Outcome(id = "1, 1, 1", expect = Expect.ACCEPTABLE, desc = "every element taken exactly once")
@Outcome(expect = Expect.FORBIDDEN, desc = "an element lost or taken twice")
@State
public class ReadyStackStress {
  private final ReadyStack stack = new ReadyStack(3);
  private final int[] taken = new int[3];

  public ReadyStackStress() {
    stack.push(2);
  }

  @Actor
  public void completions() {
    stack.push(0);
    stack.push(1);
  }

  @Actor
  public void drain() {
    takeAll();
    takeAll();
  }

  @Arbiter
  public void laterDrain(III_Result r) {
    takeAll();
    r.r1 = taken[0];
    r.r2 = taken[1];
    r.r3 = taken[2];
  }

  private void takeAll() {
    for (int e = stack.takeAll(); e != ReadyStack.EMPTY; e = stack.next(e)) {
      taken[e]++;
    }
  }
}
