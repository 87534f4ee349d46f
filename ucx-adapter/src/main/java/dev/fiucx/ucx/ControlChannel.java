package dev.fiucx.ucx;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dev.fiucx.FiErrno;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * sending, receiving, and the endpoints a target opens back to the initiators that resolved its
 * keys (named in each RESOLVE by instance id and worker address).
 *
 * <p>Messages arrive inside ucp_worker_progress (jucx's AM callback); they are copied, decoded and
 * queued, and handled by {@link #drain} after progress returns, so no handler calls UCX from inside
 * a UCX callback. Endpoints back are ours, not UCX's AM reply endpoints, whose lifetime ends when
 * the initiator disconnects, possibly while a revoke still wants to reach it.
 */
final class ControlChannel {
  private static final long SEND_WAIT_NANOS = 1_000_000_000L;

  private final UcxTransport transport;
  private final Queue<Runnable> deferred = new ConcurrentLinkedQueue<>();
  private final ThreadLocal<Boolean> draining = ThreadLocal.withInitial(() -> false);
  private final Map<Long, UcpEndpoint> backEndpoints = new HashMap<>(); // guarded by this

  ControlChannel(UcxTransport transport) {
    this.transport = transport;
  }

  /** Registers the AM handlers on {@code worker}. */
  void listen(UcpWorker worker) {
    for (int amId : ControlMessage.AM_IDS) {
      worker.setAmRecvHandler(
          amId,
          (headerAddress, headerLength, data, replyEp) -> received(amId, data),
          UcxConstants.UCP_AM_FLAG_WHOLE_MSG);
    }
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

  /** Sends and progresses until the send completed locally, at most a second. */
  void sendAndWait(UcpEndpoint ep, ControlMessage msg) {
    SendCallback cb = sendTracked(ep, msg, status -> {});
    long deadline = System.nanoTime() + SEND_WAIT_NANOS;
    while (!cb.done && System.nanoTime() - deadline < 0) {
      transport.progress();
    }
  }

  /** Sends REVOKE to a user of a key over the endpoint back to its transport. */
  void sendRevoke(UcxExposedRegion.Resolver r, long key, Runnable onFailure) {
    UcpEndpoint back;
    synchronized (this) {
      back = backEndpoints.get(r.initiatorId());
    }
    if (back == null) {
      onFailure.run();
      return;
    }
    send(back, new ControlMessage.Revoke(key, r.initiatorPeer()), status -> onFailure.run());
  }

  /** Closes every endpoint back to an initiator (at transport close). */
  void closeBackEndpoints() {
    List<UcpEndpoint> backs;
    synchronized (this) {
      backs = List.copyOf(backEndpoints.values());
      backEndpoints.clear();
    }
    backs.forEach(ep -> transport.closeEndpoint(ep, false));
  }

  /** Keeps the payload alive until UCX is done with it and records the outcome. */
  private static final class SendCallback extends UcxCallback {
    private final MemorySegment payload; // referenced so that the auto arena cannot free it early
    private final IntConsumer onFailure;
    volatile boolean done;

    SendCallback(MemorySegment payload, IntConsumer onFailure) {
      this.payload = payload;
      this.onFailure = onFailure;
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
          UcxConstants.UCP_AM_SEND_FLAG_EAGER,
          cb);
    } catch (UcxException e) {
      transport.errors().peerCaused("sending a control message", e);
      if (!cb.done) {
        cb.done = true;
        onFailure.accept(-FiErrno.EIO);
      }
    }
    return cb;
  }

  /** jucx's AM callback, inside ucp_worker_progress: copy, decode, queue. */
  private int received(int amId, UcpAmData data) {
    if (data.isDataValid()) {
      byte[] payload =
          UcpNative.ALL.asSlice(data.getDataAddress(), data.getLength()).toArray(JAVA_BYTE);
      try {
        ControlMessage msg = ControlMessage.decode(amId, payload);
        deferred.add(() -> dispatch(msg));
      } catch (RuntimeException malformed) {
        transport.errors().peerCaused("decoding a control message", malformed); // then ignored
      }
    }
    return UcxConstants.UCS_OK; // the data is released when the callback returns
  }

  private void dispatch(ControlMessage msg) {
    switch (msg) {
      case ControlMessage.Resolve r -> onResolve(r);
      case ControlMessage.ResolveReply r -> {
        UcxPeer p = transport.peer(r.initiatorPeer());
        if (p != null) {
          p.onResolveReply(r);
        }
      }
      case ControlMessage.Revoke r -> {
        UcxPeer p = transport.peer(r.initiatorPeer());
        if (p != null) {
          p.onRevoke(r.key());
        }
      }
      case ControlMessage.RevokeAck a -> {
        UcxExposedRegion region = transport.liveRegion(a.key());
        if (region != null) {
          region.forget(new UcxExposedRegion.Resolver(a.initiatorId(), a.initiatorPeer()));
        }
      }
      case ControlMessage.Release r -> {
        var who = new UcxExposedRegion.Resolver(r.initiatorId(), r.initiatorPeer());
        transport.liveRegions().forEach(region -> region.forget(who));
      }
    }
  }

  /** Target side of RESOLVE: answer over the endpoint back to the initiator's worker. */
  private void onResolve(ControlMessage.Resolve r) {
    UcpEndpoint back = backEndpoint(r.initiatorId(), r.initiatorAddress());
    if (back == null) {
      return; // cannot reach the initiator; it times out
    }
    UcxExposedRegion region = transport.publishedRegion(r.key());
    ControlMessage.ResolveReply reply;
    if (region != null
        && region.addResolver(new UcxExposedRegion.Resolver(r.initiatorId(), r.initiatorPeer()))) {
      reply =
          new ControlMessage.ResolveReply(
              r.requestId(),
              r.initiatorPeer(),
              true,
              region.segment().address(),
              region.segment().byteSize(),
              region.access(),
              region.packedRkey());
    } else {
      reply =
          new ControlMessage.ResolveReply(
              r.requestId(), r.initiatorPeer(), false, 0, 0, 0, new byte[0]);
    }
    send(back, reply, status -> {});
  }

  private synchronized UcpEndpoint backEndpoint(long initiatorId, byte[] initiatorAddress) {
    if (transport.isClosed()) {
      return null;
    }
    UcpEndpoint ep = backEndpoints.get(initiatorId);
    if (ep != null) {
      return ep;
    }
    try {
      ep =
          transport.openEndpoint(
              initiatorAddress, (status, text) -> backEndpointFailed(initiatorId));
    } catch (UcxException e) {
      transport.errors().peerCaused("opening an endpoint back to an initiator", e);
      return null;
    }
    backEndpoints.put(initiatorId, ep);
    return ep;
  }

  /** An initiator died: drop its endpoint (after this progress) and stop waiting for its acks. */
  private void backEndpointFailed(long initiatorId) {
    defer(
        () -> {
          UcpEndpoint ep;
          synchronized (this) {
            ep = backEndpoints.remove(initiatorId);
          }
          transport.liveRegions().forEach(region -> region.forgetInitiator(initiatorId));
          transport.initiatorFailed(initiatorId);
          if (ep != null) {
            transport.closeEndpoint(ep, true);
          }
        });
  }
}
