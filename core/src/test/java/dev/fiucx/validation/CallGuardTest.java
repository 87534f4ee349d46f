package dev.fiucx.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.FiErrno;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CallGuardTest {
  private static int onAnotherThread(java.util.function.IntSupplier call) throws Exception {
    return CompletableFuture.supplyAsync(call::getAsInt).get(5, TimeUnit.SECONDS);
  }

  @Test
  void aTrustingGuardLetsEveryThreadInWithoutLooking() throws Exception {
    // FI_THREAD_DOMAIN: the application serializes; a second thread at once is let in, not refused
    CallGuard g = CallGuard.trusting();
    assertFalse(g.serializes());
    assertEquals(0, g.enter());
    assertEquals(
        0,
        onAnotherThread(
            () -> {
              int rc = g.enter();
              g.exit();
              return rc;
            }));
    assertEquals(1, onAnotherThread(() -> g.tryEnter() ? 1 : 0));
    g.exit();
  }

  @Test
  void aRefusingGuardRefusesASecondThreadWhileTheFirstIsInside() throws Exception {
    CallGuard g = CallGuard.refusing();
    assertFalse(g.serializes());
    assertEquals(0, g.enter());
    assertEquals(
        -FiErrno.EBUSY,
        onAnotherThread(
            () -> {
              int rc = g.enter();
              if (rc == 0) {
                g.exit();
              }
              return rc;
            }));
    assertEquals(0, onAnotherThread(() -> g.tryEnter() ? 1 : 0));
    g.exit();
    // once the first has left, another thread may come in: FI_THREAD_ENDPOINT allows ordered use
    assertEquals(
        0,
        onAnotherThread(
            () -> {
              int rc = g.enter();
              g.exit();
              return rc;
            }));
    assertEquals(0, g.enter());
    g.exit();
  }

  @Test
  void aSerializingGuardMakesTheSecondThreadWait() throws Exception {
    CallGuard g = CallGuard.serializing();
    assertTrue(g.serializes());
    assertEquals(0, g.enter());
    CompletableFuture<Integer> second =
        CompletableFuture.supplyAsync(
            () -> {
              int rc = g.enter();
              g.exit();
              return rc;
            });
    Thread.sleep(50);
    assertFalse(second.isDone());
    g.exit();
    assertEquals(0, second.get(5, TimeUnit.SECONDS));
  }
}
