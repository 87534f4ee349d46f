package dev.fiucx.spi;

/** Receives the completions of operations a transport reported {@link TransportPeer#PENDING}. */
@FunctionalInterface
public interface TransportCompletions {
  /**
   * Called from inside {@link Transport#progress} once per pending operation.
   *
   * @param status 0, or a negative {@code fi_errno} (the peer failed, the key was revoked...)
   * @param token what the post was given
   */
  void completed(long token, int status);
}
