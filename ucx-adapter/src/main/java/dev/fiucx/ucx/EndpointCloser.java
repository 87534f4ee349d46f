package dev.fiucx.ucx;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.openucx.jucx.ucp.UcpEndpoint;

/**
 * Closes a transport's endpoints through ucp_ep_close_nbx, progressing the transport until UCX has
 * closed them or a bound passes.
 */
final class EndpointCloser {
  private static final long CLOSE_WAIT_NANOS = 1_000_000_000L;

  private final UcxTransport transport;

  EndpointCloser(UcxTransport transport) {
    this.transport = transport;
  }

  /**
   * Closes an endpoint, flushing it first unless {@code force}, waiting at most a second (a force
   * UCX refuses, on an endpoint without peer-failure handling, closes nothing). The close goes
   * through ucp_ep_close_nbx directly, without a callback: we poll the request and free it exactly
   * once, finished or not. A flushing close needs the peer to progress (over tcp with failure
   * detection it exchanges a disconnect); an unfinished one handed back this way is completed or
   * dropped by UCX itself, whereas one never released trips UCX's assertion in ucp_worker_destroy
   * ("req->flags & UCP_REQUEST_FLAG_RELEASED"). jucx's own close could not be used: its callback
   * frees the request too, which races with a timeout in thread-safe mode.
   */
  void close(UcpEndpoint ep, boolean force) {
    close(ep, force, CLOSE_WAIT_NANOS);
  }

  /**
   * {@link #close(UcpEndpoint, boolean)}, waiting at most {@code waitNanos}. Why not always force:
   * UCX 1.13 does not unmap a shared-memory peer's FIFO when an endpoint to it is force-closed
   * (measured across processes: the mapping stays until the worker is destroyed), while a flushing
   * close of an endpoint with nothing in flight unmaps it at once, without the peer's help (unless
   * a message above the inline size went over it; see ControlChannel).
   */
  void close(UcpEndpoint ep, boolean force, long waitNanos) {
    awaitClose(startClose(ep, force), waitNanos);
  }

  /**
   * Closes an endpoint by force where UCX allows it (peer-failure handling: the only close after
   * which UCX 1.13 frees an endpoint wired up to its peer), else flushing; waits at most {@code
   * waitNanos}. For endpoints claimed for initiators, whose mode the initiator chose.
   */
  void closeForcedWherePossible(UcpEndpoint ep, long waitNanos) {
    long request = startClose(ep, true);
    if (request == UcxConstants.UCS_ERR_INVALID_PARAM) {
      // a status pointer: no peer-failure handling on this endpoint, so UCX refused the force
      // before it did anything
      request = startClose(ep, false);
    }
    awaitClose(request, waitNanos);
  }

  /**
   * Closes an endpoint by force, waiting at most {@code waitNanos}, where UCX allows it
   * (peer-failure handling); returns false, having done nothing, where it does not.
   */
  boolean closeByForce(UcpEndpoint ep, long waitNanos) {
    long request = startClose(ep, true);
    if (request == UcxConstants.UCS_ERR_INVALID_PARAM) {
      return false;
    }
    awaitClose(request, waitNanos);
    return true;
  }

  private void awaitClose(long request, long waitNanos) {
    if (request == 0 || UcsStatus.isError(request)) {
      return;
    }
    long deadline = System.nanoTime() + waitNanos;
    while (UcpNative.requestCheckStatus(request) == UcxConstants.UCS_INPROGRESS
        && System.nanoTime() - deadline < 0) {
      transport.progressWhileClosing();
    }
    UcpNative.requestFree(request);
  }

  private static long startClose(UcpEndpoint ep, boolean force) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment param = arena.allocate(UcxLayout.PARAM_ROOM, 8);
      param.set(JAVA_INT, UcxLayout.PARAM_OP_ATTR_MASK, UcxConstants.UCP_OP_ATTR_FIELD_FLAGS);
      param.set(JAVA_INT, UcxLayout.PARAM_FLAGS, force ? UcxConstants.UCP_EP_CLOSE_FLAG_FORCE : 0);
      return UcpNative.epCloseNbx(ep.getNativeId(), param.address());
    }
  }
}
