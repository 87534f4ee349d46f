package dev.fiucx.ucx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The per-peer record of pending requests that a dead peer's operations are ended from. */
class PendingRequestsTest {
  @Test
  void aTokenPendingSeveralTimesIsEndedAsOftenAsItIsPending() {
    PendingRequests t = new PendingRequests();
    t.posted(0x1000, 7, 0);
    t.posted(0x2000, 7, 0);
    t.posted(0x3000, 8, 1);
    assertEquals(0, t.completed(0x1000, 7));
    assertEquals(2, t.pending());
    assertArrayEquals(new long[] {7}, t.takePeer(0));
    assertArrayEquals(new long[] {8}, t.takePeer(1));
    assertEquals(0, t.pending());
    assertArrayEquals(new long[0], t.takePeer(0));
  }

  @Test
  void aCompletionThatComesBeforeItsPostIsRecordedLeavesNothingBehind() {
    PendingRequests t = new PendingRequests();
    // another thread's progress was faster than the poster
    assertEquals(PendingRequests.UNKNOWN, t.completed(0x1000, 3));
    assertEquals(0, t.pending());
    t.posted(0x1000, 3, 0);
    assertEquals(0, t.pending());
    assertArrayEquals(new long[0], t.takePeer(0));
    t.posted(0x1000, 3, 0);
    assertArrayEquals(new long[] {3}, t.takePeer(0));
  }

  @Test
  void aLateCompletionOfAnEndedOperationIsToldApartFromTheNextOneOfItsToken() {
    PendingRequests t = new PendingRequests();
    t.posted(0x1000, 5, 0); // to a peer that dies
    assertArrayEquals(new long[] {5}, t.takePeer(0));
    assertEquals(1, t.ended());
    t.posted(0x2000, 5, 1); // the engine's slot opened again, to a live peer
    assertEquals(PendingRequests.ENDED, t.completed(0x1000, 5), "UCX ends the dead one late");
    assertEquals(0, t.ended());
    assertEquals(1, t.pending());
    assertEquals(1, t.completed(0x2000, 5));
    assertEquals(0, t.pending());
    assertArrayEquals(new long[0], t.takePeer(1));
  }

  @Test
  void matchesAModelUnderManyRandomOperations() {
    SplittableRandom random = new SplittableRandom(11);
    PendingRequests t = new PendingRequests();
    record Key(long request, long token) {}
    Map<Key, int[]> live = new HashMap<>(); // -> {peer, count}
    Map<Key, int[]> ended = new HashMap<>(); // -> {count}
    List<Key> keys = new ArrayList<>();
    for (int step = 0; step < 200_000; step++) {
      int choice = random.nextInt(10);
      if (choice < 5) {
        Key k;
        if (!keys.isEmpty() && random.nextInt(4) == 0) {
          k = keys.get(random.nextInt(keys.size())); // a vector call's elements: one key again
          if (ended.containsKey(k)) {
            continue; // UCX still holds that request: its address is not handed out
          }
        } else {
          long token = random.nextLong(0, 3000) << (random.nextBoolean() ? 32 : 0);
          k = new Key(random.nextLong(1, 1 << 20) << 6, token);
          if (ended.containsKey(k)) {
            continue;
          }
          keys.add(k);
        }
        int peer = live.containsKey(k) ? live.get(k)[0] : random.nextInt(4);
        t.posted(k.request(), k.token(), peer);
        live.computeIfAbsent(k, x -> new int[] {peer, 0})[1]++;
      } else if (choice < 9) {
        if (keys.isEmpty()) {
          continue;
        }
        Key k = keys.get(random.nextInt(keys.size()));
        if (live.containsKey(k)) {
          assertEquals(live.get(k)[0], t.completed(k.request(), k.token()), "step " + step);
          if (--live.get(k)[1] == 0) {
            live.remove(k);
          }
        } else if (ended.containsKey(k)) {
          assertEquals(PendingRequests.ENDED, t.completed(k.request(), k.token()));
          if (--ended.get(k)[0] == 0) {
            ended.remove(k);
          }
        }
      } else {
        int peer = random.nextInt(4);
        long[] expected =
            live.entrySet().stream()
                .filter(e -> e.getValue()[0] == peer)
                .flatMapToLong(
                    e -> Arrays.stream(new long[e.getValue()[1]]).map(x -> e.getKey().token()))
                .sorted()
                .toArray();
        long[] taken = t.takePeer(peer);
        Arrays.sort(taken);
        assertArrayEquals(expected, taken, "step " + step);
        live.entrySet()
            .removeIf(
                e -> {
                  if (e.getValue()[0] != peer) {
                    return false;
                  }
                  ended.merge(e.getKey(), new int[] {e.getValue()[1]}, (a, b) -> a);
                  return true;
                });
      }
      if (step % 1000 == 0) {
        assertEquals(live.values().stream().mapToInt(v -> v[1]).sum(), t.pending());
        assertEquals(ended.values().stream().mapToInt(v -> v[0]).sum(), t.ended());
      }
    }
  }
}
