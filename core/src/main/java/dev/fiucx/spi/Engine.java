package dev.fiucx.spi;

import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.engine.EngineDomain;
import java.util.function.Function;

/**
 * fiucx's engine as a provider opens it: the one {@link Domain} every provider gets over its own
 * {@link Transport}, with the calls of fi_atomic(3), their checks, emulation and completion. The
 * engine's classes stay inside core, so a provider is written against this package alone.
 */
public final class Engine {
  private Engine() {}

  /**
   * Opens a domain over a transport. The transport is opened first; the engine then proves its
   * native atomics, builds the domain's table from what they proved and exposes its lock-word
   * region ({@link LockWordRegion}). When the proof cannot run or the lock-word region cannot be
   * exposed, the transport is closed again before the exception is thrown.
   *
   * @param providerName the provider's {@link AtomicProvider#name}, which the domain reports
   * @param attr the domain's attributes, as the application gave them to the provider
   * @param openTransport opens the transport with the completions it must report to; it is asked
   *     for a thread-safe transport when {@code attr} asks for automatic progress
   * @return the domain, opened; throws {@link dev.fiucx.FiException} on failure
   */
  public static Domain openDomain(
      String providerName,
      DomainAttr attr,
      Function<TransportCompletions, Transport> openTransport) {
    return new EngineDomain(providerName, attr, openTransport);
  }
}
