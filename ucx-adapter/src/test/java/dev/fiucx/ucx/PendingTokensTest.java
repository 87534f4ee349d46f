package dev.fiucx.ucx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The per-peer record of pending operations that a dead shared-memory peer's end is taken from. */
class PendingTokensTest {
  @Test
  void aTokenPendingSeveralTimesIsEndedAsOftenAsItIsPending() {
    PendingTokens t = new PendingTokens();
    t.posted(7, 0);
    t.posted(7, 0);
    t.posted(8, 1);
    t.completed(7);
    assertEquals(2, t.pending());
    assertArrayEquals(new long[] {7}, t.takePeer(0));
    assertArrayEquals(new long[] {8}, t.takePeer(1));
    assertEquals(0, t.pending());
    assertArrayEquals(new long[0], t.takePeer(0));
  }

  @Test
  void aCompletionThatComesBeforeItsPostIsRecordedLeavesNothingBehind() {
    PendingTokens t = new PendingTokens();
    t.completed(3); // another thread's progress was faster than the poster
    assertEquals(0, t.pending());
    t.posted(3, 0);
    assertEquals(0, t.pending());
    assertArrayEquals(new long[0], t.takePeer(0));
    t.posted(3, 0);
    assertArrayEquals(new long[] {3}, t.takePeer(0));
  }

  @Test
  void matchesAModelUnderManyRandomOperations() {
    SplittableRandom random = new SplittableRandom(11);
    PendingTokens t = new PendingTokens();
    Map<Long, int[]> model = new HashMap<>(); // token -> {peer, count}
    for (int step = 0; step < 200_000; step++) {
      long token = random.nextLong(0, 3000) << (random.nextBoolean() ? 32 : 0);
      int choice = random.nextInt(10);
      if (choice < 6) {
        int peer = model.containsKey(token) ? model.get(token)[0] : random.nextInt(4);
        t.posted(token, peer);
        model.computeIfAbsent(token, k -> new int[] {peer, 0})[1]++;
      } else if (choice < 9) {
        if (model.containsKey(token)) {
          t.completed(token);
          if (--model.get(token)[1] == 0) {
            model.remove(token);
          }
        }
      } else {
        int peer = random.nextInt(4);
        long[] expected =
            model.entrySet().stream()
                .filter(e -> e.getValue()[0] == peer)
                .flatMapToLong(e -> Arrays.stream(new long[e.getValue()[1]]).map(x -> e.getKey()))
                .sorted()
                .toArray();
        long[] taken = t.takePeer(peer);
        Arrays.sort(taken);
        assertArrayEquals(expected, taken, "step " + step);
        model.values().removeIf(v -> v[0] == peer);
      }
      if (step % 1000 == 0) {
        assertEquals(model.values().stream().mapToInt(v -> v[1]).sum(), t.pending());
      }
    }
  }
}
