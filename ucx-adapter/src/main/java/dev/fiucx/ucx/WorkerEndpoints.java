package dev.fiucx.ucx;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpWorker;

/**
 * Opening and claiming endpoints on one of a transport's UCX workers: its data worker, or its
 * control worker ({@link ControlWorker}). Control messages arrive on both (on the data worker from
 * peers that have no control worker or cannot reach ours), so the control channel answers on the
 * worker a message came on.
 */
final class WorkerEndpoints {
  private final UcpWorker worker;
  private final byte[] address;
  private final long uuid;
  private final boolean peerFailureHandling;
  private final boolean controlOnly;

  /**
   * @param peerFailureHandling whether endpoints this side opens ask for UCP_ERR_HANDLING_MODE_PEER
   * @param controlOnly whether this is a control worker, which carries nothing but control messages
   */
  WorkerEndpoints(UcpWorker worker, boolean peerFailureHandling, boolean controlOnly) {
    this.worker = worker;
    ByteBuffer a = worker.getAddress();
    this.address = new byte[a.remaining()];
    a.get(address);
    this.uuid = uuidOf(address);
    this.peerFailureHandling = peerFailureHandling;
    this.controlOnly = controlOnly;
  }

  UcpWorker worker() {
    return worker;
  }

  /** This worker's own UCX address. */
  byte[] address() {
    return address.clone();
  }

  int addressLength() {
    return address.length;
  }

  /** This worker's UUID, from its address: what initiators name in a RESOLVE sent from it. */
  long uuid() {
    return uuid;
  }

  boolean controlOnly() {
    return controlOnly;
  }

  /** The address in {@code peer} of the peer's worker that matches this one, or null. */
  byte[] addressIn(UcxAddress peer) {
    return controlOnly ? peer.control() : peer.data();
  }

  /**
   * Opens an endpoint to a worker address (checked by {@link UcxWorkerAddress}, or our own), with
   * peer-failure handling where this side asks for it. Throws UcxException when no transport of
   * this worker reaches it.
   */
  UcpEndpoint open(byte[] peerWorkerAddress, UcxTransport.FailureListener listener) {
    ByteBuffer a = ByteBuffer.allocateDirect(peerWorkerAddress.length);
    a.put(peerWorkerAddress).flip();
    UcpEndpointParams params =
        new UcpEndpointParams()
            .setUcpAddress(a)
            .setErrorHandler((ep, status, text) -> listener.failed(status, text));
    if (peerFailureHandling) {
      params.setPeerErrorHandlingMode();
    }
    return worker.newEndpoint(params);
  }

  /**
   * Takes over, as an endpoint of ours, the endpoint UCX built in this worker when the worker
   * {@code peerUuid} connected to it (a peer's wire-up creates one per connecting endpoint, and UCX
   * hands it to an active-message handler as the reply endpoint). ucp_ep_create finds such an
   * endpoint by UUID before it looks at the transports an address lists, so the address passed is
   * one this method writes itself: a header, the UUID and no transport. No byte a peer wrote ever
   * reaches UCX's address parser. Throws UcxException when no such endpoint is waiting (UCX then
   * finds no transport to reach the address). Each call takes the next endpoint of that worker, in
   * the order they connected.
   *
   * <p>No error-handling mode is asked for: the endpoint keeps the one its initiator chose (peer
   * failure for a control worker's endpoint, none for a shared-memory data endpoint that carries
   * the control channel), so nothing a peer says picks it. Asking for another one than UCX built it
   * with would make ucp_ep_create destroy the waiting endpoint, which a RESOLVE naming another
   * worker could then do to that worker's endpoints.
   */
  UcpEndpoint claim(long peerUuid, UcxTransport.FailureListener listener) {
    boolean v1 = (address[0] & UcxConstants.UCP_ADDRESS_VERSION_MASK) == 0;
    ByteBuffer a = ByteBuffer.allocateDirect(11).order(ByteOrder.nativeOrder());
    if (v1) {
      a.put(
          (byte)
              (UcxConstants.UCP_ADDRESS_VERSION_V1
                  | UcxConstants.UCP_ADDRESS_HEADER_FLAG_WORKER_UUID
                      << UcxConstants.UCP_ADDRESS_FLAGS_SHIFT_V1));
    } else {
      a.put(address[0]).put((byte) UcxConstants.UCP_ADDRESS_HEADER_FLAG_WORKER_UUID);
    }
    a.putLong(peerUuid).put(UcxConstants.UCP_NULL_RESOURCE).flip();
    UcpEndpointParams params =
        new UcpEndpointParams()
            .setUcpAddress(a)
            .setErrorHandler((ep, status, text) -> listener.failed(status, text));
    return UcpNative.withoutErrorLines(() -> worker.newEndpoint(params));
  }

  /** The worker UUID in a UCX worker address (checked by DomainAddress, or our own), or 0. */
  static long uuidOf(byte[] address) {
    int version = address[0] & UcxConstants.UCP_ADDRESS_VERSION_MASK;
    int flags =
        version == UcxConstants.UCP_ADDRESS_VERSION_V1
            ? (address[0] & 0xff) >>> UcxConstants.UCP_ADDRESS_FLAGS_SHIFT_V1
            : address[1] & 0xff;
    int at = version == UcxConstants.UCP_ADDRESS_VERSION_V1 ? 1 : 2;
    if ((flags & UcxConstants.UCP_ADDRESS_HEADER_FLAG_WORKER_UUID) == 0
        || address.length < at + 8) {
      return 0;
    }
    return ByteBuffer.wrap(address, at, 8).order(ByteOrder.nativeOrder()).getLong();
  }
}
