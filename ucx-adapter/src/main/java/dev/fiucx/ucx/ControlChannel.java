package dev.fiucx.ucx;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dev.fiucx.FiErrno;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.IntConsumer;
import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.UcxException;
import org.openucx.jucx.ucp.UcpAmData;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;

/**
 * One transport's side of the control protocol ({@link ControlMessage}) over UCX active messages:
 * sending, receiving, and the checks a message passes before it is handled. The endpoints a target
 * keeps back to the initiators that resolved its keys are {@link ServedInitiators}'.
 *
 * <p>Messages arrive inside ucp_worker_progress (jucx's AM callback); they are copied, decoded and
 * queued, and handled by {@link #drain} after progress returns, so no handler calls UCX from inside
 * a UCX callback.
 *
 * <p>A RESOLVE is answered only on an endpoint the target claimed for the worker it names; later
 * messages from the initiator (REVOKE_ACK, RELEASE) are accepted only on an endpoint claimed for
 * the initiator they name ({@link ServedInitiators}). The target's messages (RESOLVE_REPLY, REVOKE)
 * carry the secret the initiator's peer sent in its RESOLVE (64 random bits per peer), and the
 * initiator accepts them only with it: a third worker that knows the initiator's address cannot
 * hand it another region (or an rkey of garbage for UCX to unpack), reject a key, or revoke one.
 * (Which of its endpoints such a message arrives on does not tell: when two workers each opened an
 * endpoint to the other, UCX may answer on an endpoint of its own making.) What is refused is
 * counted and logged ({@code ucx.errors}, "refusing a control message").
 *
 * <p>Messages arrive on the data worker and on the control worker; a RESOLVE is answered, and its
 * initiator's endpoints claimed, on the worker it came on.
 */
final class ControlChannel {
  private static final long SEND_WAIT_NANOS = 1_000_000_000L;

  /** Where refused control messages are counted in {@link UcxErrors}. */
  static final String REFUSED = "refusing a control message";

  private final UcxTransport transport;
  private final Queue<Runnable> deferred = new ConcurrentLinkedQueue<>();
  private final ThreadLocal<Boolean> draining = ThreadLocal.withInitial(() -> false);

  private final ServedInitiators initiators;

  ControlChannel(UcxTransport transport) {
    this.transport = transport;
    this.initiators = new ServedInitiators(transport);
  }

  /** The initiators this transport serves as a target, and its endpoints back to them. */
  ServedInitiators initiators() {
    return initiators;
  }

  /** Registers the AM handlers on the worker of {@code side}. */
  void listen(WorkerEndpoints side) {
    UcpWorker worker = side.worker();
    for (int amId : ControlMessage.AM_IDS) {
      worker.setAmRecvHandler(
          amId,
          (headerAddress, headerLength, data, replyEp) -> received(amId, data, replyEp, side),
          UcxConstants.UCP_AM_FLAG_WHOLE_MSG);
    }
    worker.setAmRecvHandler(
        ControlMessage.AM_WIRE_UP,
        (headerAddress, headerLength, data, replyEp) -> 0, // UCS_OK: UCX releases the data
        UcxConstants.UCP_AM_FLAG_WHOLE_MSG);
  }

  /**
   * Sends {@link ControlMessage#AM_WIRE_UP} on {@code ep} with UCX's reply flag, which makes UCX
   * learn the peer's endpoint first: the send completes once the endpoint is wired up. The returned
   * callback's {@code done} says when; {@code onFailure} gets a negative fi_errno when it cannot be
   * sent.
   */
  Sent sendWireUp(UcpEndpoint ep, IntConsumer onFailure) {
    MemorySegment payload = Arena.ofAuto().allocate(8, 8);
    SendCallback cb = new SendCallback(payload, onFailure);
    try {
      ep.sendAmNonBlocking(
          ControlMessage.AM_WIRE_UP,
          0,
          0,
          payload.address(),
          8,
          UcxConstants.UCP_AM_SEND_FLAG_EAGER | UcxConstants.UCP_AM_SEND_FLAG_REPLY,
          cb,
          UcxConstants.UCS_MEMORY_TYPE_HOST);
    } catch (UcxException e) {
      transport.errors().peerCaused("sending a wire-up message", e);
      if (!cb.done) {
        cb.done = true;
        onFailure.accept(-FiErrno.EIO);
      }
    }
    return cb;
  }

  /** A send in flight: {@link #done} once it completed or failed. */
  interface Sent {
    boolean done();
  }

  /** Runs {@code action} at the end of the current (or next) {@link UcxTransport#progress}. */
  void defer(Runnable action) {
    deferred.add(action);
  }

  boolean hasWork() {
    return !deferred.isEmpty();
  }

  /** Handles what arrived; returns how many actions ran. Not reentrant. */
  int drain() {
    if (draining.get()) {
      return 0;
    }
    draining.set(true);
    int n = 0;
    try {
      Runnable r;
      while ((r = deferred.poll()) != null) {
        r.run();
        n++;
      }
    } finally {
      draining.set(false);
    }
    return n;
  }

  /**
   * Sends a control message; {@code onFailure} gets a negative fi_errno when it cannot be delivered
   * (not called on success).
   */
  void send(UcpEndpoint ep, ControlMessage msg, IntConsumer onFailure) {
    sendTracked(ep, msg, onFailure);
  }

  /**
   * Sends, then flushes the endpoint, progressing until both completed, at most a second; for a
   * message sent just before its endpoint closes. Why the flush: a send can complete locally before
   * UCX has put it on the wire, and closing the endpoint at once then loses it (seen over tcp on an
   * endpoint to this worker itself: the RELEASE of the native self-test never arrived, and each tcp
   * domain's open waited out the control timeout for its REVOKE_ACK).
   */
  void sendAndWait(UcpEndpoint ep, ControlMessage msg) {
    SendCallback sent = sendTracked(ep, msg, status -> {});
    SendCallback flushed = new SendCallback(null, status -> {});
    try {
      ep.flushNonBlocking(flushed);
    } catch (UcxException e) {
      transport.errors().peerCaused("flushing after a control message", e);
      flushed.done = true;
    }
    long deadline = System.nanoTime() + SEND_WAIT_NANOS;
    transport.beginControlWait();
    try {
      while (!(sent.done && flushed.done) && System.nanoTime() - deadline < 0) {
        transport.progress();
      }
    } finally {
      transport.endControlWait();
    }
  }

  /** Keeps the payload (none for a flush) alive until UCX is done with it; records the outcome. */
  private static final class SendCallback extends UcxCallback implements Sent {
    private final MemorySegment payload; // referenced so that the auto arena cannot free it early
    private final IntConsumer onFailure;
    volatile boolean done;

    SendCallback(MemorySegment payload, IntConsumer onFailure) {
      this.payload = payload;
      this.onFailure = onFailure;
    }

    @Override
    public boolean done() {
      return done;
    }

    @Override
    public void onSuccess(UcpRequest request) {
      done = true;
    }

    @Override
    public void onError(int ucsStatus, String message) {
      done = true;
      onFailure.accept(UcsStatus.toFiErrno(ucsStatus));
    }
  }

  private SendCallback sendTracked(UcpEndpoint ep, ControlMessage msg, IntConsumer onFailure) {
    byte[] bytes = msg.encode();
    MemorySegment payload = Arena.ofAuto().allocate(bytes.length, 8);
    MemorySegment.copy(bytes, 0, payload, JAVA_BYTE, 0, bytes.length);
    SendCallback cb = new SendCallback(payload, onFailure);
    try {
      ep.sendAmNonBlocking(
          msg.amId(),
          0,
          0,
          payload.address(),
          bytes.length,
          fromInitiator(msg)
              ? UcxConstants.UCP_AM_SEND_FLAG_EAGER | UcxConstants.UCP_AM_SEND_FLAG_REPLY
              : UcxConstants.UCP_AM_SEND_FLAG_EAGER,
          cb,
          // said explicitly: jucx 1.14's default is UCS_MEMORY_TYPE_UNKNOWN as 1.14 numbers it
          // (5), which UCX 1.18 and later read as UCS_MEMORY_TYPE_RDMA and pack through the
          // memory-type path (a crash in ucp_mem_type_pack on v1, no progress on v2)
          UcxConstants.UCS_MEMORY_TYPE_HOST);
    } catch (UcxException e) {
      transport.errors().peerCaused("sending a control message", e);
      if (!cb.done) {
        cb.done = true;
        onFailure.accept(-FiErrno.EIO);
      }
    }
    return cb;
  }

  /**
   * Whether a kind goes from an initiator to a target: sent with the reply flag, so that the target
   * learns which of its endpoints it came on.
   */
  private static boolean fromInitiator(ControlMessage msg) {
    return msg instanceof ControlMessage.Resolve
        || msg instanceof ControlMessage.RevokeAck
        || msg instanceof ControlMessage.Release;
  }

  /**
   * jucx's AM callback, inside ucp_worker_progress: copy, decode, queue, with the native handle of
   * the endpoint UCX gives for the sender (0 when it was sent without the reply flag). That
   * endpoint is only compared with, never used: UCX may destroy it in a later progress.
   */
  private int received(int amId, UcpAmData data, UcpEndpoint replyEp, WorkerEndpoints side) {
    if (data.isDataValid()) {
      byte[] payload =
          UcpNative.ALL.asSlice(data.getDataAddress(), data.getLength()).toArray(JAVA_BYTE);
      long replyHandle = replyEp == null ? 0 : replyEp.getNativeId();
      try {
        ControlMessage msg = ControlMessage.decode(amId, payload);
        deferred.add(() -> dispatch(msg, replyHandle, side));
      } catch (RuntimeException malformed) {
        transport.errors().peerCaused("decoding a control message", malformed); // then ignored
      }
    }
    return UcxConstants.UCS_OK; // the data is released when the callback returns
  }

  private void dispatch(ControlMessage msg, long replyHandle, WorkerEndpoints side) {
    switch (msg) {
      case ControlMessage.Resolve r -> onResolve(r, replyHandle, side);
      case ControlMessage.ResolveReply r -> {
        UcxPeer p = fromTargetOf(r.initiatorPeer(), r.secret(), "a RESOLVE_REPLY");
        if (p != null) {
          p.onResolveReply(r);
        }
      }
      case ControlMessage.Revoke r -> {
        UcxPeer p = fromTargetOf(r.initiatorPeer(), r.secret(), "a REVOKE");
        if (p != null) {
          p.onRevoke(r.key());
        }
      }
      case ControlMessage.RevokeAck a -> {
        if (cameFrom(a.initiatorId(), replyHandle, "a REVOKE_ACK")) {
          UcxExposedRegion region = transport.regions().live(a.key());
          if (region != null) {
            region.forget(new UcxExposedRegion.Resolver(a.initiatorId(), a.initiatorPeer()));
          }
        }
      }
      case ControlMessage.Release r -> {
        if (cameFrom(r.initiatorId(), replyHandle, "a RELEASE")) {
          var who = new UcxExposedRegion.Resolver(r.initiatorId(), r.initiatorPeer());
          transport.regions().live().forEach(region -> region.forget(who));
          initiators.released(r.initiatorId(), r.initiatorPeer());
        }
      }
    }
  }

  /**
   * The peer {@code peerNumber} of this transport when a target's message naming it carries the
   * peer's secret (which only the target it sent its RESOLVE to has learnt); else null, and a
   * message with another secret is counted as refused. A peer closed meanwhile is null without a
   * count: its target may still answer it.
   */
  private UcxPeer fromTargetOf(int peerNumber, long secret, String what) {
    UcxPeer p = transport.peer(peerNumber);
    if (p == null) {
      return null;
    }
    if (secret != p.secret()) {
      refuse(transport.errors(), what + " without the named peer's secret");
      return null;
    }
    return p;
  }

  /**
   * Whether a message naming {@code initiatorId} came on an endpoint claimed for it; else counted.
   */
  private boolean cameFrom(long initiatorId, long replyHandle, String what) {
    if (initiators.claimedFor(initiatorId, replyHandle)) {
      return true;
    }
    refuse(transport.errors(), what + " from an endpoint not claimed for the initiator it names");
    return false;
  }

  /** Counts and logs a control message refused ({@link #REFUSED}) and {@code why}. */
  static void refuse(UcxErrors errors, String why) {
    errors.peerCaused(REFUSED, new IllegalArgumentException(why));
  }

  /** Target side of RESOLVE: answer over the endpoint back to the initiator's worker. */
  private void onResolve(ControlMessage.Resolve r, long replyHandle, WorkerEndpoints side) {
    UcpEndpoint back = initiators.answerEndpoint(r, replyHandle, side);
    if (back == null) {
      return; // the initiator, if there is one, times out
    }
    UcxExposedRegion region = transport.regions().published(r.key());
    ControlMessage.ResolveReply reply;
    if (region != null
        && region.addResolver(new UcxExposedRegion.Resolver(r.initiatorId(), r.initiatorPeer()))) {
      reply =
          new ControlMessage.ResolveReply(
              r.requestId(),
              r.initiatorPeer(),
              r.secret(),
              true,
              transport.atomics().kind() == AtomicExecution.Kind.DEVICE,
              region.segment().address(),
              region.segment().byteSize(),
              region.access(),
              region.packedRkey());
    } else {
      reply =
          new ControlMessage.ResolveReply(
              r.requestId(), r.initiatorPeer(), r.secret(), false, false, 0, 0, 0, new byte[0]);
    }
    send(back, reply, status -> {});
  }
}
