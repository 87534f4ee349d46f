package dev.fiucx.ucx;

import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpParams;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;

/**
 * A UCX context and worker of their own, on tcp only, that carry a shared-memory transport's
 * control channel and nothing else; its endpoints have peer-failure handling.
 *
 * <p>Why: UCX 1.13 keeps an endpoint that was wired up to its peer (every endpoint a target claims
 * for an initiator is) until its worker is destroyed, unless it is closed by force, which it allows
 * only with peer-failure handling, which its shared-memory transports lack. So a shm target whose
 * control channel ran on the data worker kept about 15 KiB and 3 shm mappings per initiator that
 * ever came. On this worker the target closes each initiator's endpoint by force when it leaves.
 *
 * <p>Why a worker of its own rather than a tcp endpoint on the data worker: while a worker has a
 * tcp interface, every ucp_worker_progress of it also runs uct_tcp_iface_progress (one epoll_wait,
 * about 0.3 us); the data worker keeps only its shared-memory transports, and this one is
 * progressed off the hot path ({@link UcxTransport#progress}).
 */
final class ControlWorker {
  /** UCX_TLS of the control context, set in its ucp config (never the process environment). */
  static final String TLS = "tcp";

  private final UcpContext context;
  private final UcpWorker worker;
  private final long handle;
  private final int eventFd;

  private ControlWorker(UcpContext context, UcpWorker worker) {
    this.context = context;
    this.worker = worker;
    this.handle = worker.getNativeId();
    this.eventFd = eventFdOf(worker);
  }

  /**
   * Opens the context (active messages and wake-up only) and its worker; throws a RuntimeException
   * (UcxException) when UCX has no tcp interface to give it.
   */
  static ControlWorker open(boolean threadSafe) {
    UcpParams params = new UcpParams().requestAmFeature().requestWakeupFeature();
    params.setConfig("TLS", TLS);
    UcpContext ctx = UcpNative.withoutApiVersionWarning(() -> new UcpContext(params));
    try {
      UcpWorkerParams workerParams = WorkerThreadMode.params(threadSafe);
      return new ControlWorker(ctx, ctx.newWorker(workerParams));
    } catch (RuntimeException e) {
      ctx.close();
      throw e;
    }
  }

  UcpWorker worker() {
    return worker;
  }

  /** The native ucp_worker_h. */
  long handle() {
    return handle;
  }

  /** {@code ucp_worker_get_efd}, or -1 when this worker cannot wake a waiter. */
  int eventFd() {
    return eventFd;
  }

  int progress() throws Exception {
    return worker.progress();
  }

  /** After every endpoint of this worker was closed. */
  void close() {
    worker.close();
    context.close();
  }

  static int eventFdOf(UcpWorker w) {
    try {
      return w.getEventFD();
    } catch (RuntimeException e) { // UCS_ERR_UNSUPPORTED: some transport cannot wake a waiter
      return -1;
    }
  }
}
