package dev.fiucx.perf.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;

/**
 * The standard input of a bench process that another process started ({@code --parent-watch}): the
 * parent holds its other end, so its end means the parent is gone; and one of bench -P's initiators
 * reads its start signal there ({@link #GO}), so that all initiators measure together.
 */
final class ParentWatch {
  /** The line a bench -P parent sends each initiator once all have warmed up. */
  static final String GO = "go";

  /** The line an initiator of bench -P prints on stdout once it has warmed up. */
  static final String WARMED_UP = "fiucx bench: warmed up, waiting for the start";

  private final CountDownLatch go = new CountDownLatch(1);

  private ParentWatch() {}

  /**
   * Reads {@code in} on a daemon thread until its end, which runs {@code parentGone}.
   *
   * @param parentGone what to do when the parent is gone (stop a target, end the process)
   */
  static ParentWatch start(InputStream in, Runnable parentGone) {
    ParentWatch w = new ParentWatch();
    Thread.ofPlatform()
        .daemon()
        .name("fiucx-bench-parent-watch")
        .start(
            () -> {
              try {
                BufferedReader r =
                    new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
                String line;
                while ((line = r.readLine()) != null) {
                  if (line.trim().equals(GO)) {
                    w.go.countDown();
                  }
                }
              } catch (IOException e) {
                // a broken pipe ends the watch as well
              }
              parentGone.run();
            });
    return w;
  }

  /** Blocks until the parent says {@link #GO} (the process ends instead if the parent goes). */
  void awaitGo() {
    try {
      go.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the start", e);
    }
  }
}
