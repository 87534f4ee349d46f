package dev.fiucx;

/**
 * Hears what a {@link Server}'s bootstrap sees: initiators that connect and depart, and connections
 * it refused. Called on the bootstrap's own threads; must return quickly and must not throw (what
 * it throws is logged and ignored).
 */
public interface ServeListener {
  /**
   * An initiator said HELLO and got the WELCOME.
   *
   * @param peer its bootstrap connection's {@code host:port}
   * @param client what it says it is (e.g. {@code fiucx-java pid 123 on host})
   */
  default void connected(String peer, String client) {}

  /**
   * An initiator's bootstrap connection ended: it said BYE, closed, died, or the server closed.
   *
   * @param peer its bootstrap connection's {@code host:port}
   * @param client what it said it is
   * @param why {@code said BYE}, {@code connection closed}, {@code server shutting down}, ...
   */
  default void departed(String peer, String client, String why) {}

  /**
   * A connection was refused: a malformed or hostile frame, a stall, too many connections.
   *
   * @param peer its bootstrap connection's {@code host:port}
   * @param why the reason, in words
   */
  default void refused(String peer, String why) {}
}
