package dev.fiucx;

import dev.fiucx.spi.AtomicProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Entry point: the providers on the class path ({@code fi_getinfo}) and opening a domain ({@code
 * fi_fabric} plus {@code fi_domain}).
 */
public final class Fabric {
  private Fabric() {}

  /** Every provider found by {@link ServiceLoader}, available or not. */
  public static List<AtomicProvider> providers() {
    List<AtomicProvider> found = new ArrayList<>();
    ServiceLoader.load(AtomicProvider.class).forEach(found::add);
    return found;
  }

  /** The provider of that name; throws {@code FI_ENODATA} when there is none. */
  public static AtomicProvider provider(String name) {
    for (AtomicProvider p : providers()) {
      if (p.name().equals(name)) {
        return p;
      }
    }
    throw new FiException(FiErrno.ENODATA, "no provider named '" + name + "' on the class path");
  }

  /** Opens a domain of the named provider; throws when the provider is not available. */
  public static Domain openDomain(String providerName, DomainAttr attr) {
    if (providerName == null || attr == null) {
      throw new FiException(FiErrno.EINVAL, "openDomain needs a provider name and attributes");
    }
    AtomicProvider p = provider(providerName);
    if (!p.isAvailable()) {
      throw new FiException(
          FiErrno.ENODEV,
          "provider '" + providerName + "' unavailable: " + p.unavailabilityCause());
    }
    return p.openDomain(attr);
  }
}
