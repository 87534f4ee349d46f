package dev.fiucx.spi;

import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;

/**
 * A transport that implements fiucx's API, found by {@link java.util.ServiceLoader} (list it in
 * {@code META-INF/services/dev.fiucx.spi.AtomicProvider}); {@code core} never names one.
 */
public interface AtomicProvider {
  /** {@return short name, e.g. {@code ucx}} */
  String name();

  /**
   * {@return whether {@link #openDomain} can work here (native library present, native access on)}
   */
  boolean isAvailable();

  /** {@return why it is not available, or null} */
  String unavailabilityCause();

  /**
   * {@return a domain, opened; throws {@link dev.fiucx.FiException} on failure}
   *
   * @param attr the domain's attributes
   */
  Domain openDomain(DomainAttr attr);
}
