package dev.fiucx.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LongObjectMapTest {
  @Test
  void behavesLikeAMapForAnyKeyIncludingZeroAndNegatives() {
    LongObjectMap<String> m = new LongObjectMap<>();
    Map<Long, String> reference = new HashMap<>();
    SplittableRandom random = new SplittableRandom(7);
    long[] special = {0, -1, Long.MIN_VALUE, Long.MAX_VALUE, 16, 32, 48}; // 16.. collide in small
    for (long k : special) {
      assertNull(m.put(k, "v" + k));
      reference.put(k, "v" + k);
    }
    for (int i = 0; i < 2000; i++) {
      long k = random.nextLong(-300, 300) * (i % 3 == 0 ? 1 : 1L << 40);
      if (random.nextInt(4) == 0) {
        assertEquals(reference.remove(k), m.remove(k));
      } else {
        String v = "x" + i;
        assertEquals(reference.put(k, v), m.put(k, v));
      }
    }
    assertEquals(reference.size(), m.size());
    for (long k = -400; k < 400; k++) {
      assertEquals(reference.get(k), m.get(k));
      assertEquals(reference.get(k << 40), m.get(k << 40));
    }
    for (long k : special) {
      assertEquals(reference.get(k), m.get(k));
    }
    assertEquals(reference.size(), m.values().size());
  }

  @Test
  void aReaderKeepsTheTableItStartedWith() {
    LongObjectMap<Object> m = new LongObjectMap<>();
    Object a = new Object();
    m.put(1, a);
    assertSame(a, m.get(1));
    m.remove(1);
    assertNull(m.get(1));
    assertNull(m.remove(1));
  }
}
