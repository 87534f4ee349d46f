package dev.fiucx.engine;

import dev.fiucx.spi.Progress;
import java.util.concurrent.locks.LockSupport;

/**
 * Automatic progress: one daemon thread that progresses the domain (its transport, then the
 * emulation steps that became ready), spinning while there is work and parking briefly when there
 * is none, so a process that only exposes memory still serves its peers' software atomics.
 */
final class ProgressThread implements AutoCloseable {
  private static final int SPINS_BEFORE_PARK = 2_000;
  private static final long FIRST_PARK_NANOS = 10_000;
  private static final long LONGEST_PARK_NANOS = 1_000_000;

  private final Progress progress;
  private final Thread thread;
  private volatile boolean running = true;

  ProgressThread(Progress progress, String name) {
    this.progress = progress;
    this.thread = Thread.ofPlatform().daemon().name(name).unstarted(this::loop);
    thread.start();
  }

  private void loop() {
    int idle = 0;
    long park = FIRST_PARK_NANOS;
    while (running) {
      if (progress.progress() > 0) {
        idle = 0;
        park = FIRST_PARK_NANOS;
      } else if (++idle > SPINS_BEFORE_PARK) {
        LockSupport.parkNanos(park);
        park = Math.min(LONGEST_PARK_NANOS, park * 2);
      } else {
        Thread.onSpinWait();
      }
    }
  }

  @Override
  public void close() {
    running = false;
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
