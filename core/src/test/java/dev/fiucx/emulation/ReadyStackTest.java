package dev.fiucx.emulation;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class ReadyStackTest {
  @Test
  void aTakeReturnsEverythingPushedOldestFirst() {
    ReadyStack s = new ReadyStack(8);
    assertEquals(ReadyStack.EMPTY, s.takeAll());
    s.push(3);
    s.push(5);
    s.push(1);
    assertEquals(List.of(3, 5, 1), drain(s));
    assertEquals(ReadyStack.EMPTY, s.takeAll());
  }

  @Test
  void pushesFromSeveralThreadsAreNeitherLostNorDoubled() throws Exception {
    int perThread = 50_000;
    ReadyStack s = new ReadyStack(2);
    // each of two producers owns one element and pushes it again once the consumer took it
    java.util.concurrent.atomic.AtomicIntegerArray out =
        new java.util.concurrent.atomic.AtomicIntegerArray(2);
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> producers = new ArrayList<>();
    for (int e = 0; e < 2; e++) {
      int element = e;
      producers.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      go.await();
                    } catch (InterruptedException ex) {
                      return;
                    }
                    for (int i = 0; i < perThread; i++) {
                      while (out.get(element) != 0) {
                        Thread.onSpinWait();
                      }
                      out.set(element, 1);
                      s.push(element);
                    }
                  }));
    }
    go.countDown();
    int[] taken = new int[2];
    while (taken[0] + taken[1] < 2 * perThread) {
      for (int e : drain(s)) {
        taken[e]++;
        out.set(e, 0);
      }
    }
    for (Thread t : producers) {
      t.join();
    }
    assertEquals(perThread, taken[0]);
    assertEquals(perThread, taken[1]);
  }

  private static List<Integer> drain(ReadyStack s) {
    List<Integer> out = new ArrayList<>();
    for (int e = s.takeAll(); e != ReadyStack.EMPTY; ) {
      int n = s.next(e);
      out.add(e);
      e = n;
    }
    return out;
  }
}
