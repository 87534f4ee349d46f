package dev.fiucx;

/**
 * An endpoint of a {@link Connection}, enabled, bound to the connection's address vector and to a
 * completion queue of its own: one thread's way to the peer ({@code FI_THREAD_ENDPOINT}: give each
 * thread its own). Closing it closes the endpoint and its queue, not the connection.
 *
 * @param endpoint the endpoint, enabled
 * @param cq its completion queue
 * @param peer the {@code fi_addr} of the served peer, the {@code destAddr} of every call
 */
public record ConnectedEndpoint(Endpoint endpoint, CompletionQueue cq, long peer)
    implements AutoCloseable {
  @Override
  public void close() {
    endpoint.close();
    cq.close();
  }
}
