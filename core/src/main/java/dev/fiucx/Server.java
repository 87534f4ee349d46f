package dev.fiucx;

import dev.fiucx.bootstrap.BootstrapServer;
import dev.fiucx.bootstrap.Welcome;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The target role as a library object ({@link Fabric#serve}): a domain with automatic progress,
 * named regions the provider allocated, and the bootstrap through which initiators that know only
 * {@code host:port} get the domain's address and the regions ({@link Fabric#connect}).
 *
 * <p>Who may learn the regions' keys is {@link ServeAttr#security}'s: without a shared secret a
 * server listens on loopback only (unless told otherwise), with one it gives its regions only to
 * initiators that prove they know it.
 *
 * <p>{@link #close} stops accepting, tells connected initiators BYE, closes every region (which
 * revokes its key: once it returns, every peer that resolved the key has dropped it, and their
 * later calls return {@code -FI_EKEYREJECTED}), then closes the domain (peers that notice the
 * domain gone get {@code -FI_ECONNRESET}).
 *
 * <p><b>Threads.</b> Any thread may call its methods; {@link #close} is synchronized. Peers'
 * atomics change the served memory ({@link #memory}) at any time, from other processes or the
 * domain's progress thread. A {@link ServeListener} is called on the bootstrap's own threads.
 *
 * <p><b>Errors.</b> Set-up calls throw {@link FiException}. {@link Fabric#serve} throws {@code
 * FI_EINVAL} for a null argument; {@code FI_EACCES} for an address beyond loopback without a shared
 * secret (unless the insecure bind is allowed); {@code FI_EADDRINUSE} or {@code FI_EADDRNOTAVAIL}
 * when it cannot listen; and what {@link Fabric#openDomain} and {@link Domain#allocateMemory}
 * throw. {@link #memory} throws {@code FI_ENOENT} for a name not served.
 */
public final class Server implements AutoCloseable {
  /** How long an initiator may take to say HELLO or to finish a frame it started. */
  static final Duration FRAME_TIMEOUT = Duration.ofSeconds(10);

  /** Bootstrap connections served at once. */
  static final int MAX_CONNECTIONS = 4096;

  private final Domain domain;
  private final Map<String, MemoryRegion> regions = new LinkedHashMap<>();
  private final List<PeerRegion> served;
  private final BootstrapServer bootstrap;
  private boolean closed;

  Server(String provider, ServeAttr attr, ServeListener listener) {
    BootstrapSecurity security = attr.security();
    if (!security.hasSecret()
        && !security.insecureBind()
        && !BootstrapSecurity.isLoopback(attr.bindAddress())) {
      throw new FiException(
          FiErrno.EACCES,
          "a serve on "
              + attr.bindAddress()
              + " without a shared secret would give every region's key to anyone who reaches it:"
              + " give a secret, or allow it with BootstrapSecurity.withInsecureBind");
    }
    domain = Fabric.openDomain(provider, attr.domain());
    try {
      List<PeerRegion> descriptors = new ArrayList<>();
      List<PeerRegion> wire = new ArrayList<>();
      boolean virtual = attr.domain().virtualAddressing();
      for (ServeAttr.Region r : attr.regions()) {
        MemoryRegion mr = domain.allocateMemory(r.size(), r.access());
        regions.put(r.name(), mr);
        // the wire carries the virtual address; each initiator turns it into its own addr
        // argument (MemoryRegion.baseAddress is the virtual address in either addressing)
        long va = mr.segment().address();
        wire.add(new PeerRegion(r.name(), va, mr.key(), r.size(), r.access()));
        descriptors.add(new PeerRegion(r.name(), virtual ? va : 0, mr.key(), r.size(), r.access()));
      }
      served = List.copyOf(descriptors);
      Welcome welcome =
          new Welcome(provider, attr.domain().transport(), domain.openEndpoint().name(), wire);
      try {
        bootstrap =
            new BootstrapServer(
                new InetSocketAddress(attr.bindAddress(), attr.port()),
                welcome,
                listener,
                FRAME_TIMEOUT,
                MAX_CONNECTIONS,
                null,
                security);
      } catch (IOException e) {
        boolean inUse = e.getMessage() != null && e.getMessage().contains("in use");
        throw new FiException(
            inUse ? FiErrno.EADDRINUSE : FiErrno.EADDRNOTAVAIL,
            "cannot listen on " + attr.bindAddress() + ":" + attr.port() + ": " + e.getMessage(),
            e);
      }
    } catch (RuntimeException e) {
      domain.close();
      throw e;
    }
  }

  /** {@return the bootstrap's address (its port is the one picked when 0 was asked for)} */
  public InetSocketAddress address() {
    return bootstrap.address();
  }

  /** {@return the bootstrap's port} */
  public int port() {
    return bootstrap.port();
  }

  /**
   * The served regions in the order they were asked for, with addresses as an initiator of the same
   * addressing as this server's domain passes them.
   *
   * @return the regions
   */
  public List<PeerRegion> regions() {
    return served;
  }

  /**
   * The local memory of the region {@code name} (to set it up or look at it; peers' atomics change
   * it at any time). Throws {@code FI_ENOENT} for a name not served, {@link IllegalStateException}
   * once closed.
   *
   * @param name the region's name
   * @return the region's local memory
   */
  public MemorySegment memory(String name) {
    MemoryRegion mr = regions.get(name);
    if (mr == null) {
      throw new FiException(FiErrno.ENOENT, "no region named '" + name + "'");
    }
    return mr.segment();
  }

  /** {@return the serving domain (its {@code describe()}, its metrics)} */
  public Domain domain() {
    return domain;
  }

  /** {@return initiators connected to the bootstrap now} */
  public int connections() {
    return bootstrap.connections();
  }

  /**
   * Stops accepting, says BYE to connected initiators, revokes every region's key and unmaps it,
   * closes the domain. Closing twice does nothing.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      bootstrap.close();
      for (MemoryRegion mr : regions.values()) {
        mr.close();
      }
    } finally {
      domain.close();
    }
  }
}
