package dev.fiucx;

import dev.fiucx.bootstrap.BootstrapClient;
import dev.fiucx.bootstrap.BootstrapException;
import dev.fiucx.bootstrap.Refusal;
import dev.fiucx.bootstrap.Welcome;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import javax.net.ssl.SSLException;

/**
 * An initiator's connection to a {@link Server} ({@link Fabric#connect}): a domain of its own, an
 * address vector holding the served peer ({@link #peer}), and the peer's named regions ({@link
 * #region}). It keeps the bootstrap connection open, so the server sees when it leaves.
 *
 * <p>One connection serves any number of threads: each takes an endpoint of its own with {@link
 * #openEndpoint} ({@code FI_THREAD_ENDPOINT}). Closing the connection closes its domain and with it
 * every endpoint and queue it handed out.
 *
 * <p><b>Threads.</b> Any thread may call its methods; {@link #openEndpoint} and {@link
 * #openAtomicRegion} also from several threads at once, each caller getting objects of its own.
 * What it hands out then follows its own rules: an endpoint and its queue the domain's {@link
 * DomainAttr.Threading} ({@link Endpoint}), an {@link AtomicRegion} one thread at a time.
 *
 * <p><b>Errors.</b> All its calls are set-up calls and throw {@link FiException}. {@link
 * Fabric#connect} throws {@code FI_EINVAL} for a null argument, a bad {@code host:port} or a server
 * of another provider; {@code FI_ECONNREFUSED} when no serve answers there, the server refuses, or
 * the TLS handshake fails; {@code FI_EACCES} when the shared secret was not proven either way;
 * {@code FI_EIO} when the bootstrap fails on this side; and what {@link Fabric#openDomain} and
 * {@link AddressVector#insert} throw. {@link #region} throws {@code FI_ENOENT}; {@link
 * #openEndpoint} throws what {@link Domain#openCompletionQueue} and {@link Domain#openEndpoint}
 * throw ({@code FI_EINVAL} for a bad size, {@code FI_EOPBADSTATE} once closed).
 */
public final class Connection implements AutoCloseable {
  /** The bootstrap's connect and WELCOME timeout. */
  static final Duration BOOTSTRAP_TIMEOUT = Duration.ofSeconds(10);

  private final String target;
  private final BootstrapClient bootstrap;
  private final Domain domain;
  private final AddressVector av;
  private final long peer;
  private final List<PeerRegion> regions;

  Connection(String provider, String hostPort, DomainAttr attr, BootstrapSecurity security) {
    if (provider == null || hostPort == null || attr == null || security == null) {
      throw new FiException(
          FiErrno.EINVAL, "connect needs a provider, HOST:PORT, attributes and security");
    }
    int colon = hostPort.lastIndexOf(':');
    String host = colon > 0 ? hostPort.substring(0, colon).replaceAll("^\\[|\\]$", "") : "";
    int port = colon > 0 ? parsePort(hostPort.substring(colon + 1)) : -1;
    if (host.isEmpty() || port <= 0) {
      throw new FiException(FiErrno.EINVAL, "connect wants HOST:PORT, not '" + hostPort + "'");
    }
    target = hostPort;
    try {
      bootstrap =
          BootstrapClient.connect(host, port, clientDescription(), BOOTSTRAP_TIMEOUT, security);
    } catch (BootstrapException e) {
      int errno =
          e.refusal() == Refusal.UNAUTHORIZED
              ? FiErrno.EACCES
              : e.fromPeer() ? FiErrno.ECONNREFUSED : FiErrno.EIO;
      throw new FiException(
          errno, (e.fromPeer() ? hostPort + " refused: " : hostPort + ": ") + e.getMessage(), e);
    } catch (SSLException e) {
      throw new FiException(FiErrno.ECONNREFUSED, e.getMessage(), e);
    } catch (IOException e) {
      throw new FiException(
          FiErrno.ECONNREFUSED, "no fiucx serve at " + hostPort + ": " + e.getMessage(), e);
    }
    Welcome w = bootstrap.welcome();
    DomainAttr attrUsed;
    try {
      if (!w.provider().equals(provider)) {
        throw new FiException(
            FiErrno.EINVAL,
            hostPort + " serves provider '" + w.provider() + "', not '" + provider + "'");
      }
      // the serve's transport unless the caller chose one: both ends must share a transport
      DomainAttr a =
          attr.transport() != null || w.transport() == null
              ? attr
              : attr.toBuilder().transport(w.transport()).build();
      attrUsed = a;
      domain = Fabric.openDomain(provider, a);
    } catch (RuntimeException e) {
      bootstrap.close();
      throw e;
    }
    try {
      av = domain.openAddressVector();
      peer = av.insert(w.address());
      // the WELCOME carries each region's virtual address at the target; with offset addressing
      // this domain's calls take offsets, so byte 0 is 0
      regions =
          attrUsed.virtualAddressing()
              ? w.regions()
              : w.regions().stream()
                  .map(r -> new PeerRegion(r.name(), 0, r.key(), r.length(), r.access()))
                  .toList();
    } catch (RuntimeException e) {
      domain.close();
      bootstrap.close();
      throw e;
    }
  }

  private static int parsePort(String s) {
    try {
      int p = Integer.parseInt(s);
      return p > 0 && p <= 65535 ? p : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static String clientDescription() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      host = "?";
    }
    return "fiucx-java pid " + ProcessHandle.current().pid() + " on " + host;
  }

  /** {@return the {@code HOST:PORT} this connection was made to} */
  public String target() {
    return target;
  }

  /** {@return the {@code fi_addr} of the served peer: the {@code destAddr} of every call} */
  public long peer() {
    return peer;
  }

  /** {@return every region the peer serves} */
  public List<PeerRegion> regions() {
    return regions;
  }

  /**
   * The served region {@code name}; throws {@link FiException} with {@code FI_ENOENT}, naming the
   * regions that exist, when the peer serves none of that name.
   *
   * @param name the region's name at the server
   * @return the region, with what fi_atomic takes to reach it
   */
  public PeerRegion region(String name) {
    for (PeerRegion r : regions) {
      if (r.name().equals(name)) {
        return r;
      }
    }
    throw new FiException(
        FiErrno.ENOENT,
        target
            + " serves no region '"
            + name
            + "'; it serves: "
            + regions.stream().map(PeerRegion::name).collect(Collectors.joining(", ")));
  }

  /** {@return the connection's own domain (query, describe, metrics)} */
  public Domain domain() {
    return domain;
  }

  /** {@return the address vector that holds the peer} */
  public AddressVector addressVector() {
    return av;
  }

  /**
   * An endpoint bound to this connection's address vector and to a completion queue of its own of
   * {@code cqSize} entries, enabled: what one thread needs to call the peer. Safe to call from
   * several threads at once.
   *
   * @param cqSize room of the endpoint's completion queue, in entries
   * @return the endpoint, its completion queue and the peer's {@code fi_addr}
   */
  public synchronized ConnectedEndpoint openEndpoint(int cqSize) {
    CompletionQueue cq = domain.openCompletionQueue(cqSize);
    Endpoint ep = null;
    try {
      ep = domain.openEndpoint();
      ep.bind(av);
      ep.bind(cq, FiFlags.TRANSMIT);
      ep.enable();
      return new ConnectedEndpoint(ep, cq, peer);
    } catch (RuntimeException e) {
      if (ep != null) {
        ep.close();
      }
      cq.close();
      throw e;
    }
  }

  /**
   * The served region {@code name} with typed, blocking atomics ({@link AtomicRegion}): an endpoint
   * and completion queue of its own, for one thread at a time. Safe to call from several threads at
   * once.
   *
   * @param name the region's name at the server
   * @return the region, open
   * @throws FiException {@code FI_ENOENT} when the peer serves no region of that name, {@code
   *     FI_EOPBADSTATE} once the connection is closed
   */
  public AtomicRegion openAtomicRegion(String name) {
    PeerRegion r = region(name);
    // one call is in flight at a time: a few entries are room enough
    ConnectedEndpoint ep = openEndpoint(4);
    try {
      return AtomicRegion.over(ep, r);
    } catch (RuntimeException e) {
      ep.close();
      throw e;
    }
  }

  /**
   * Closes the domain (every endpoint and queue handed out with it) and says BYE to the server.
   * Closing twice does nothing.
   */
  @Override
  public void close() {
    try {
      domain.close();
    } finally {
      bootstrap.close();
    }
  }
}
