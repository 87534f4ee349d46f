package dev.fiucx.ucx;

import java.lang.reflect.Field;
import org.openucx.jucx.ucp.UcpWorkerParams;

/**
 * The thread mode a worker is created with. fiucx uses a worker either from one thread at a time,
 * not always the same one (an endpoint's caller, then the progress thread, then a closing thread),
 * or from several at once. The first is UCX's {@code UCS_THREAD_MODE_SERIALIZED}, not its default
 * {@code SINGLE}: a UCX built with {@code --enable-mt} and assertions (Debian's 1.18.1 and 1.23.0)
 * aborts when a SINGLE worker is entered by any thread but the first that used it. jucx 1.14 can
 * ask only for MULTI ({@code requestThreadSafety}), so SERIALIZED is set on the same field it
 * writes, the one jucx's native code passes to {@code ucp_worker_create}.
 */
final class WorkerThreadMode {
  // ucs/type/thread_mode.h, ucs_thread_mode_t
  static final int UCS_THREAD_MODE_SERIALIZED = 1;

  private WorkerThreadMode() {}

  /** Worker params for one thread at a time ({@code threadSafe} false) or several at once. */
  static UcpWorkerParams params(boolean threadSafe) {
    UcpWorkerParams params = new UcpWorkerParams().requestThreadSafety(); // sets the field's mask
    if (!threadSafe) {
      try {
        // jucx is an automatic module: its packages are open to reflection
        Field mode = UcpWorkerParams.class.getDeclaredField("threadMode");
        mode.setAccessible(true);
        mode.setInt(params, UCS_THREAD_MODE_SERIALIZED);
      } catch (ReflectiveOperationException | RuntimeException e) {
        throw new IllegalStateException("jucx's UcpWorkerParams has no threadMode field", e);
      }
    }
    return params;
  }
}
