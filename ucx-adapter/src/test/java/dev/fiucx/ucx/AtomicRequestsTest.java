package dev.fiucx.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** The zeroed request slots: each in one hand at a time, all of them, and zeroed before. */
class AtomicRequestsTest {
  private static final long REQUEST_SIZE = 232; // not a multiple of 64, as UCX's need not be

  @Test
  @SuppressWarnings("restricted") // reads the bytes before a slot pointer, which the test owns
  void every4096SlotIsHandedOutOnceThenNoneUntilOneComesBack() {
    try (Arena arena = Arena.ofConfined()) {
      AtomicRequests requests = new AtomicRequests(arena, REQUEST_SIZE);
      Set<Long> taken = new HashSet<>();
      for (int i = 0; i < 4096; i++) {
        long r = requests.take();
        assertTrue(r != 0, "slot " + i);
        assertTrue(requests.owns(r));
        assertTrue(taken.add(r), "handed out twice: " + r);
        // UCX's request lives in the bytes before the pointer: they are ours and zero
        MemorySegment before = MemorySegment.ofAddress(r - REQUEST_SIZE).reinterpret(REQUEST_SIZE);
        for (long b = 0; b < REQUEST_SIZE; b += 8) {
          assertEquals(0L, before.get(ValueLayout.JAVA_LONG_UNALIGNED, b));
        }
      }
      assertEquals(0, requests.take(), "all in flight: the caller refuses the post");
      assertEquals(4096, requests.inUse());
      long back = taken.iterator().next();
      requests.give(back);
      assertEquals(4095, requests.inUse());
      assertEquals(back, requests.take());
      assertFalse(requests.owns(back + 8));
      assertFalse(requests.owns(0x1000));
    }
  }

  @Test
  void twoThreadsTakingAndGivingNeverShareASlot() throws Exception {
    try (Arena arena = Arena.ofShared()) {
      AtomicRequests requests = new AtomicRequests(arena, REQUEST_SIZE);
      Set<Long> inHand = ConcurrentHashMap.newKeySet();
      Runnable churn =
          () -> {
            for (int i = 0; i < 200_000; i++) {
              long r = requests.take();
              if (r == 0) {
                continue;
              }
              if (!inHand.add(r)) {
                throw new AssertionError("slot handed to two holders: " + r);
              }
              inHand.remove(r);
              requests.give(r);
            }
          };
      Thread a = new Thread(churn);
      Thread b = new Thread(churn);
      Throwable[] failure = new Throwable[1];
      a.setUncaughtExceptionHandler((t, e) -> failure[0] = e);
      b.setUncaughtExceptionHandler((t, e) -> failure[0] = e);
      a.start();
      b.start();
      a.join();
      b.join();
      assertEquals(null, failure[0]);
      Set<Long> all = new HashSet<>();
      for (long r; (r = requests.take()) != 0; ) {
        assertTrue(all.add(r));
      }
      assertEquals(4096, all.size(), "every slot came back");
    }
  }
}
