package dev.fiucx.ucx;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Sleeping until a transport's workers have work: arms the data worker (and the control worker) and
 * waits in {@code ppoll} on their event fds; and the signal that wakes such a sleep early.
 */
final class WorkerWakeup {
  private static final int POLLIN = 1;

  private final long workerHandle;

  /**
   * The data worker's event file descriptor ({@code ucp_worker_get_efd}), or -1 when the worker
   * cannot wake a waiter.
   */
  private final int eventFd;

  /** The control worker, or null. */
  private final ControlWorker controlWorker;

  /** The control worker's event fd, or -1 (none, or it cannot wake a waiter). */
  private final int controlEventFd;

  /** Told when a sleep saw the control worker's event fd (or it had events when armed). */
  private final Runnable controlWoke;

  /**
   * Two {@code struct pollfd} (8 bytes each: data worker, control worker) and one {@code struct
   * timespec} (16) for {@link #sleep}, whose caller is the one thread that progresses. Freed by the
   * collector, never by close: a waiter may still be inside ppoll then.
   */
  private final MemorySegment pollScratch = Arena.ofAuto().allocate(32, 8);

  WorkerWakeup(long workerHandle, int eventFd, ControlWorker controlWorker, Runnable controlWoke) {
    this.workerHandle = workerHandle;
    this.eventFd = eventFd;
    this.controlWorker = controlWorker;
    this.controlEventFd = controlWorker == null ? -1 : controlWorker.eventFd();
    this.controlWoke = controlWoke;
  }

  /** Whether the data worker can wake a sleeping thread at all. */
  boolean available() {
    return eventFd >= 0;
  }

  /**
   * Arms the workers and sleeps until one has an event, {@link #signal} is called, or {@code
   * timeoutNanos} (positive) pass; returns at once when a worker has events waiting. False when the
   * data worker could not be armed. Allocates nothing.
   */
  boolean sleep(long timeoutNanos) {
    int status = UcpNative.workerArm(workerHandle);
    if (status == UcxConstants.UCS_ERR_BUSY) {
      return true; // progress first
    }
    if (status != 0) {
      return false;
    }
    int fds = 1;
    if (controlEventFd >= 0) {
      int controlStatus = UcpNative.workerArm(controlWorker.handle());
      if (controlStatus == UcxConstants.UCS_ERR_BUSY) {
        controlWoke.run();
        return true;
      }
      fds = controlStatus == 0 ? 2 : 1;
    }
    MemorySegment s = pollScratch;
    s.set(JAVA_INT, 0, eventFd);
    s.set(JAVA_INT, 4, POLLIN); // events (short) = POLLIN, revents (short) = 0
    s.set(JAVA_INT, 8, controlEventFd);
    s.set(JAVA_INT, 12, POLLIN);
    s.set(JAVA_LONG, 16, timeoutNanos / 1_000_000_000L);
    s.set(JAVA_LONG, 24, timeoutNanos % 1_000_000_000L);
    UcpNative.ppoll(s.address(), fds, s.address() + 16);
    if (fds == 2 && (s.get(JAVA_INT, 12) >>> 16) != 0) { // revents of the control worker's fd
      controlWoke.run();
    }
    return true;
  }

  /** Wakes a thread sleeping on the data worker. */
  void signal() {
    UcpNative.workerSignal(workerHandle);
  }
}
