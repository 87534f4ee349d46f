package dev.fiucx;

import dev.fiucx.spi.AtomicProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Entry point: the providers on the class path ({@code fi_getinfo}), opening a domain ({@code
 * fi_fabric} plus {@code fi_domain}), and the two roles by {@code host:port}: {@link #serve}
 * exposes named regions, {@link #connect} reaches them.
 *
 * <p><b>Threads.</b> Static, with no state of its own to guard: any thread may call it; each call
 * of {@link #openDomain}, {@link #connect} or {@link #serve} makes objects of its own.
 *
 * <p><b>Errors.</b> Set-up calls: they throw {@link FiException}. {@link #provider} throws {@code
 * FI_ENODATA} when no provider has that name; {@link #openDomain} throws {@code FI_EINVAL} for a
 * null argument, {@code FI_ENODATA} as {@link #provider}, {@code FI_ENODEV} when the provider is
 * not available here, and what the provider throws when it opens the domain; {@link Connection} and
 * {@link Server} list what {@link #connect} and {@link #serve} throw.
 */
public final class Fabric {
  private static final String VERSION = loadVersion();

  private Fabric() {}

  /**
   * {@return fiucx's version (e.g. {@code 0.1.0-SNAPSHOT}), from the build, also when run from
   * classes}
   */
  public static String version() {
    return VERSION;
  }

  private static String loadVersion() {
    try (java.io.InputStream in = Fabric.class.getResourceAsStream("fiucx.properties")) {
      if (in == null) {
        throw new IllegalStateException("dev/fiucx/fiucx.properties is missing from core");
      }
      java.util.Properties p = new java.util.Properties();
      p.load(in);
      return p.getProperty("version");
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** {@return every provider found by {@link ServiceLoader}, available or not} */
  public static List<AtomicProvider> providers() {
    List<AtomicProvider> found = new ArrayList<>();
    ServiceLoader.load(AtomicProvider.class).forEach(found::add);
    return found;
  }

  /**
   * {@return the provider of that name; throws {@code FI_ENODATA} when there is none}
   *
   * @param name the provider's name, e.g. {@code ucx}
   */
  public static AtomicProvider provider(String name) {
    for (AtomicProvider p : providers()) {
      if (p.name().equals(name)) {
        return p;
      }
    }
    throw new FiException(FiErrno.ENODATA, "no provider named '" + name + "' on the class path");
  }

  /**
   * {@return a domain of the named provider, opened; throws when the provider is not available}
   *
   * @param providerName the provider's name, e.g. {@code ucx}
   * @param attr the domain's attributes
   */
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

  /**
   * Connects to a {@link Server} (a {@code fiucx serve}) that listens at {@code hostPort} ({@code
   * host:port}, {@code [v6]:port}) with the {@code ucx} provider: gets the server's domain address
   * and its named regions over the bootstrap, opens a domain with {@code attr} (a null transport
   * takes the server's) and inserts the server. Throws {@code FI_ECONNREFUSED} when no serve
   * answers there, {@code FI_EINVAL} for a bad {@code hostPort}.
   *
   * @param hostPort the server's bootstrap, {@code HOST:PORT}
   * @param attr the initiator domain's attributes (a null transport takes the server's)
   * @return the connection
   */
  public static Connection connect(String hostPort, DomainAttr attr) {
    return connect("ucx", hostPort, attr, BootstrapSecurity.none());
  }

  /**
   * {@link #connect(String, DomainAttr)} to a server that wants a shared secret and/or TLS: {@code
   * security} holds the same secret as the server's and, for TLS, a context that trusts its
   * certificate. Throws {@code FI_EACCES} when the secret was not proven either way (the server
   * refused this side's, or it could not prove its own: then no region is taken from it), {@code
   * FI_ECONNREFUSED} when the TLS handshake failed (a certificate not trusted, or not naming the
   * host).
   *
   * @param hostPort the server's bootstrap, {@code HOST:PORT}
   * @param attr the initiator domain's attributes (a null transport takes the server's)
   * @param security the shared secret and TLS context of this side
   * @return the connection, its domain open
   */
  public static Connection connect(String hostPort, DomainAttr attr, BootstrapSecurity security) {
    return connect("ucx", hostPort, attr, security);
  }

  /**
   * {@return {@link #connect(String, DomainAttr)} with the named provider (the server's must
   * match)}
   *
   * @param providerName the provider's name, e.g. {@code ucx}
   * @param hostPort the server's bootstrap, {@code HOST:PORT}
   * @param attr the initiator domain's attributes (a null transport takes the server's)
   */
  public static Connection connect(String providerName, String hostPort, DomainAttr attr) {
    return connect(providerName, hostPort, attr, BootstrapSecurity.none());
  }

  /**
   * {@return {@link #connect(String, DomainAttr, BootstrapSecurity)} with the named provider (the
   * server's must match)}
   *
   * @param providerName the provider's name, e.g. {@code ucx}
   * @param hostPort the server's bootstrap, {@code HOST:PORT}
   * @param attr the initiator domain's attributes (a null transport takes the server's)
   * @param security the shared secret and TLS context of this side
   */
  public static Connection connect(
      String providerName, String hostPort, DomainAttr attr, BootstrapSecurity security) {
    return new Connection(providerName, hostPort, attr, security);
  }

  /**
   * Serves {@code attr}'s regions with the {@code ucx} provider: opens the domain, allocates the
   * regions and starts the bootstrap on the given address and port.
   *
   * @param attr the regions, the bootstrap's address and port, and the domain's attributes
   * @return the server, serving
   */
  public static Server serve(ServeAttr attr) {
    return serve("ucx", attr, null);
  }

  /**
   * {@link #serve(ServeAttr)} with the named provider; {@code listener} (or null) hears of
   * initiators that connect, depart or are refused.
   *
   * @param providerName the provider's name, e.g. {@code ucx}
   * @param attr the regions, the bootstrap's address and port, and the domain's attributes
   * @param listener hears of initiators that connect, depart or are refused
   * @return the server, serving
   */
  public static Server serve(String providerName, ServeAttr attr, ServeListener listener) {
    if (providerName == null || attr == null) {
      throw new FiException(FiErrno.EINVAL, "serve needs a provider name and attributes");
    }
    return new Server(providerName, attr, listener);
  }
}
