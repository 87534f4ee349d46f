package dev.fiucx.validation;

import dev.fiucx.FiErrno;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Who may be inside an object's calls at once: the threading model made explicit. A {@link
 * #refusing} guard lets one thread in at a time and refuses a second one with {@code -FI_EBUSY}
 * while the first is inside ({@code FI_THREAD_ENDPOINT} misused: the endpoint's call state, its
 * element walks and its completion bookkeeping are one thread's); a {@link #serializing} guard
 * makes the second wait on a lock ({@code threading=safe}: {@code FI_THREAD_SAFE}).
 *
 * <p>The refusing guard costs one compare-and-set on entry and one release store on exit: a thread
 * may use the object after another has, as {@code FI_THREAD_ENDPOINT} allows when the application
 * orders its calls, and no thread owns it between calls.
 */
public final class CallGuard {
  private static final VarHandle BUSY;

  static {
    try {
      BUSY = MethodHandles.lookup().findVarHandle(CallGuard.class, "busy", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** Null for a refusing or trusting guard. */
  private final ReentrantLock lock;

  /** Whether the application serializes the calls ({@code FI_THREAD_DOMAIN}): nothing to check. */
  private final boolean trusting;

  /** Refusing guard: 1 while a thread is inside. */
  @SuppressWarnings("unused")
  private volatile int busy;

  private CallGuard(ReentrantLock lock, boolean trusting) {
    this.lock = lock;
    this.trusting = trusting;
  }

  /** One thread inside at a time; another is refused with {@code -FI_EBUSY}. */
  public static CallGuard refusing() {
    return new CallGuard(null, false);
  }

  /** One thread inside at a time; another waits. */
  public static CallGuard serializing() {
    return new CallGuard(new ReentrantLock(), false);
  }

  /**
   * Lets every thread in without looking ({@code FI_THREAD_DOMAIN}: the application promises one
   * thread at a time in the whole domain, and a second one at once is not detected).
   */
  public static CallGuard trusting() {
    return new CallGuard(null, true);
  }

  /** Whether a second thread waits instead of being refused. */
  public boolean serializes() {
    return lock != null;
  }

  /**
   * 0 when the calling thread is now inside (it must {@link #exit}), {@code -FI_EBUSY} when another
   * thread is inside a refusing guard.
   */
  public int enter() {
    if (lock != null) {
      lock.lock();
      return 0;
    }
    if (trusting) {
      return 0;
    }
    return BUSY.compareAndSet(this, 0, 1) ? 0 : -FiErrno.EBUSY;
  }

  /** Enters when nobody is inside, without waiting; true when the caller must {@link #exit}. */
  public boolean tryEnter() {
    return lock != null ? lock.tryLock() : trusting || BUSY.compareAndSet(this, 0, 1);
  }

  /** Leaves after a successful {@link #enter} or {@link #tryEnter}. */
  public void exit() {
    if (lock != null) {
      lock.unlock();
    } else if (!trusting) {
      BUSY.setRelease(this, 0);
    }
  }

  /** Waits until the calling thread is inside (for close, which must not be refused). */
  public void enterWaiting() {
    while (enter() < 0) {
      Thread.onSpinWait();
    }
  }
}
