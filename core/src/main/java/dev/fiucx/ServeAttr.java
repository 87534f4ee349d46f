package dev.fiucx;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What a {@link Server} serves and where: the bootstrap's address and port, the named regions it
 * allocates, how its domain opens, and who may learn the regions' keys. Checked when made: a bad
 * value throws {@link FiException} with {@code FI_EINVAL} (a port out of range, no regions, a name
 * twice, a bad region, {@code MANUAL} progress).
 *
 * @param bindAddress the bootstrap's listening address (null: {@code 127.0.0.1})
 * @param port the bootstrap's port, 0 .. 65535 (0 picks a free one: {@link Server#port})
 * @param regions at least one, names distinct
 * @param domain the domain's attributes (null: provider's transport, automatic progress); a serve
 *     progresses by itself, so {@code MANUAL} progress is refused
 * @param security the bootstrap's shared secret and TLS (null: none); without a secret the bind
 *     address must be a loopback one unless {@link BootstrapSecurity#withInsecureBind} allows more
 */
public record ServeAttr(
    String bindAddress,
    int port,
    List<Region> regions,
    DomainAttr domain,
    BootstrapSecurity security) {

  /**
   * Without a secret or TLS: the bind address must be a loopback one.
   *
   * @param bindAddress the bootstrap's listening address (null: {@code 127.0.0.1})
   * @param port the bootstrap's port, 0 .. 65535 (0 picks a free one)
   * @param regions at least one, names distinct
   * @param domain the domain's attributes (null: provider's transport, automatic progress)
   */
  public ServeAttr(String bindAddress, int port, List<Region> regions, DomainAttr domain) {
    this(bindAddress, port, regions, domain, null);
  }

  /**
   * One region to serve, allocated by the provider ({@link Domain#allocateMemory}, so peers on
   * shared memory get CPU atomics) and zeroed.
   *
   * @param name what initiators ask for ({@link PeerRegion#NAME_RULE})
   * @param size bytes, at least 8
   * @param access {@link FiFlags#REMOTE_READ} and/or {@link FiFlags#REMOTE_WRITE}
   */
  public record Region(String name, long size, long access) {
    /** Checks the name, the size (at least 8) and the access. */
    public Region {
      if (!PeerRegion.validName(name)) {
        throw new FiException(
            FiErrno.EINVAL, "bad region name '" + name + "': " + PeerRegion.NAME_RULE);
      }
      if (size < 8) {
        throw new FiException(FiErrno.EINVAL, "region '" + name + "': size " + size + " < 8");
      }
      long remote = FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE;
      if (access == 0 || (access & ~remote) != 0) {
        throw new FiException(
            FiErrno.EINVAL,
            "region '"
                + name
                + "': access is REMOTE_READ and/or REMOTE_WRITE: 0x"
                + Long.toHexString(access));
      }
    }
  }

  /** Fills in the defaults: bind address {@code 127.0.0.1}, the default domain. */
  public ServeAttr {
    bindAddress = bindAddress == null ? "127.0.0.1" : bindAddress;
    domain = domain == null ? DomainAttr.defaults() : domain;
    security = security == null ? BootstrapSecurity.none() : security;
    if (port < 0 || port > 65535) {
      throw new FiException(FiErrno.EINVAL, "port is 0 .. 65535: " + port);
    }
    if (regions == null || regions.isEmpty()) {
      throw new FiException(FiErrno.EINVAL, "a serve needs at least one region");
    }
    regions = List.copyOf(regions);
    if (regions.size() > dev.fiucx.bootstrap.Welcome.MAX_REGIONS) {
      throw new FiException(
          FiErrno.EINVAL,
          regions.size() + " regions (at most " + dev.fiucx.bootstrap.Welcome.MAX_REGIONS + ")");
    }
    Set<String> names = new HashSet<>();
    for (Region r : regions) {
      if (!names.add(r.name())) {
        throw new FiException(FiErrno.EINVAL, "region '" + r.name() + "' named twice");
      }
    }
    if (domain.progress() != DomainAttr.Progress.AUTO) {
      throw new FiException(
          FiErrno.EINVAL, "a serve progresses by itself: its domain needs AUTO progress");
    }
  }
}
