package dev.fiucx.emulation;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which elements step at the next drain, and how long a drainer may sleep before one is due. */
class StepQueueTest {
  private final StepQueue queue = new StepQueue(8);

  @Test
  void withNothingQueuedTheDrainerMayWaitForTheTransport() {
    assertEquals(Long.MAX_VALUE, queue.quietNanos(0));
    assertEquals(List.of(), takeAll());
  }

  @Test
  void anElementToStepNowAllowsNoWaitEvenBesideWaiters() {
    queue.pushWaiting(1, 5_000);
    queue.pushNow(2);
    queue.pushWaiting(3, 9_000);
    assertEquals(0, queue.quietNanos(1_000));
    assertEquals(List.of(1, 2, 3), takeAll(), "oldest first");
  }

  @Test
  void onlyWaitersAllowAWaitUntilTheEarliestIsDue() {
    queue.pushWaiting(4, 9_000);
    queue.pushWaiting(5, 3_000);
    queue.pushWaiting(6, 7_000);
    assertEquals(2_000, queue.quietNanos(1_000));
    assertEquals(0, queue.quietNanos(4_000), "overdue: no wait");
  }

  @Test
  void dueTimesCompareAcrossTheClocksWrapAround() {
    queue.pushWaiting(1, Long.MIN_VALUE + 10); // after MAX_VALUE - 5 on a wrapping clock
    queue.pushWaiting(2, Long.MAX_VALUE - 5);
    assertEquals(5, queue.quietNanos(Long.MAX_VALUE - 10));
  }

  @Test
  void aTakeForgetsWhatWasPushedBeforeIt() {
    queue.pushNow(1);
    queue.pushWaiting(2, 1_000);
    assertEquals(List.of(1, 2), takeAll());
    assertEquals(Long.MAX_VALUE, queue.quietNanos(0));
    queue.pushWaiting(2, 50_000); // pushed again by the drain: only its own due time counts
    assertEquals(40_000, queue.quietNanos(10_000));
  }

  private List<Integer> takeAll() {
    List<Integer> taken = new ArrayList<>();
    for (int e = queue.takeAll(); e != ReadyStack.EMPTY; e = queue.next(e)) {
      taken.add(e);
    }
    return taken;
  }
}
