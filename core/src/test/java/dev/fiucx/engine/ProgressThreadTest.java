package dev.fiucx.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The progress thread hands on whatever its loop throws and keeps progressing. */
class ProgressThreadTest {
  @Test
  void throwsFromProgressAreHandedOnAndTheThreadGoesOn() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    List<Throwable> errors = new CopyOnWriteArrayList<>();
    try (ProgressThread thread =
        new ProgressThread(
            () -> {
              if (calls.incrementAndGet() <= 3) {
                throw new IllegalStateException("call " + calls.get());
              }
              return 0;
            },
            () -> false,
            () -> 0,
            errors::add,
            "fiucx-progress-test")) {
      long deadline = System.nanoTime() + 5_000_000_000L;
      while (calls.get() < 100) {
        assertTrue(System.nanoTime() - deadline < 0, "the thread stopped after " + calls.get());
        Thread.sleep(1);
      }
    }
    assertEquals(3, errors.size());
    assertEquals("call 1", errors.get(0).getMessage());
    assertEquals("call 3", errors.get(2).getMessage());
  }
}
