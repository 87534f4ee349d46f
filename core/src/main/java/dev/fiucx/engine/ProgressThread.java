package dev.fiucx.engine;

import dev.fiucx.spi.Progress;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Automatic progress: one daemon thread that progresses the domain (its transport, then the
 * emulation steps that became ready), so a process that only exposes memory still serves its peers'
 * software atomics. It never sleeps while an operation of the domain is in flight: a reply over tcp
 * arrives tens of microseconds after its post, and a thread that parked in between would add its
 * whole park to every operation. Idle, it keeps spinning for {@link #SPIN_BUDGET_NANOS} after the
 * last event (a peer's stream of software atomics keeps it awake), then sleeps with a timeout that
 * grows to a millisecond, in the transport ({@link Progress#await}: over tcp, until a peer's
 * message arrives) where it can, else parked (an idle target costs little CPU and still serves a
 * peer's first software atomic within a millisecond); a post that leaves an operation pending wakes
 * it at once ({@link #wake}). While the application's readers poll and progress by themselves (the
 * domain tells), it steps aside: on two cores three spinning threads (reader, this, a peer's) cost
 * more than they save.
 */
final class ProgressThread implements AutoCloseable {
  /** How long an idle thread keeps spinning after its last event before it may park. */
  static final long SPIN_BUDGET_NANOS = 200_000;

  /**
   * While readers progress by themselves the thread steps aside this long, then looks again; each
   * look that finds them still at it doubles the step, up to {@link #LONGEST_ASSIST_WINDOW_NANOS}.
   * Every wake-up takes a core from a spinning thread (on two cores: the reader's or a peer's), so
   * a reader that polls for long is disturbed about once a millisecond, not every 50 us (measured
   * over tcp, where a call takes 16-20 us: that was most of automatic progress's cost over manual).
   */
  static final long ASSIST_WINDOW_NANOS = 50_000;

  static final long LONGEST_ASSIST_WINDOW_NANOS = 1_000_000;

  /** How many times readers progressed by themselves so far (racy: only its changes matter). */
  interface Assists {
    int count();
  }

  private static final int SPINS_PER_CLOCK_READ = 64;
  private static final long FIRST_PARK_NANOS = 10_000;
  private static final long LONGEST_PARK_NANOS = 1_000_000;

  private final Progress progress;
  private final BooleanSupplier inFlight;
  private final Assists assists;
  private final java.util.function.Consumer<Throwable> onError;
  private final Thread thread;
  private volatile boolean running = true;
  private volatile boolean sleeping;

  /**
   * @param inFlight whether any operation of the domain is in flight (asked only before parking)
   * @param assists whether readers are progressing by themselves
   * @param onError receives what the loop threw; the thread then goes on serving
   */
  ProgressThread(
      Progress progress,
      BooleanSupplier inFlight,
      Assists assists,
      java.util.function.Consumer<Throwable> onError,
      String name) {
    this.progress = progress;
    this.inFlight = inFlight;
    this.assists = assists;
    this.onError = onError;
    this.thread = Thread.ofPlatform().daemon().name(name).unstarted(this::loop);
    thread.start();
  }

  /** Serves until closed, whatever is thrown: the domain's peers depend on this thread. */
  private void loop() {
    while (running) {
      try {
        serve();
      } catch (Throwable t) {
        try {
          onError.accept(t);
        } catch (Throwable ignored) {
          // onError counted it before it could throw; serving matters more than telling twice
        }
      }
    }
  }

  private void serve() {
    long lastBusy = System.nanoTime();
    long park = FIRST_PARK_NANOS;
    int spins = 0;
    int assisted = assists.count();
    long assistWindow = ASSIST_WINDOW_NANOS;
    while (running) {
      int seen = assists.count();
      if (seen != assisted) { // a reader progressed since the last look: it is polling
        assisted = seen;
        LockSupport.parkNanos(assistWindow);
        assistWindow = Math.min(LONGEST_ASSIST_WINDOW_NANOS, assistWindow * 2);
        continue;
      }
      assistWindow = ASSIST_WINDOW_NANOS;
      if (progress.progress() > 0) {
        spins = 0;
        lastBusy = System.nanoTime();
        park = FIRST_PARK_NANOS;
        continue;
      }
      if (++spins < SPINS_PER_CLOCK_READ) {
        Thread.onSpinWait();
        continue;
      }
      spins = 0;
      long now = System.nanoTime();
      if (now - lastBusy < SPIN_BUDGET_NANOS) {
        continue;
      }
      sleeping = true;
      // a post that made an operation pending before this line is seen here; one after it sees
      // sleeping (both sides go through a full fence) and unparks
      if (inFlight.getAsBoolean()) {
        sleeping = false;
        lastBusy = now;
        continue;
      }
      if (!progress.await(park)) {
        LockSupport.parkNanos(park); // the transport cannot wake this thread on a peer's message
      }
      sleeping = false;
      park = Math.min(LONGEST_PARK_NANOS, park * 2); // an event or a pending post resets it
    }
  }

  /** Wakes the thread if it sleeps: a post has just left an operation pending. */
  void wake() {
    VarHandle.fullFence();
    if (sleeping) {
      LockSupport.unpark(thread);
      progress.interruptAwait();
    }
  }

  @Override
  public void close() {
    running = false;
    LockSupport.unpark(thread);
    progress.interruptAwait();
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
