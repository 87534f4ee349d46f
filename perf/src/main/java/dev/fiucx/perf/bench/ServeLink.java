package dev.fiucx.perf.bench;

import dev.fiucx.BootstrapSecurity;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.PeerRegion;
import dev.fiucx.bootstrap.BootstrapClient;
import dev.fiucx.bootstrap.BootstrapException;
import dev.fiucx.bootstrap.Refusal;
import dev.fiucx.bootstrap.Welcome;
import java.io.IOException;
import java.time.Duration;
import java.util.stream.Collectors;

/**
 * bench's link to a {@code fiucx serve}: the bootstrap's WELCOME (domain address, regions) and the
 * region named by {@code --region}. The connection stays open for the run, so the serve prints this
 * initiator's arrival and departure.
 */
final class ServeLink implements BenchTarget {
  private final BootstrapClient client;
  private final PeerRegion region;

  /**
   * @param regionBytes what the run needs of the region; a smaller region is refused
   * @param security the serve's shared secret and TLS trust
   * @throws BootstrapException naming the serve when it refused, or this side refused it
   */
  ServeLink(String host, int port, String regionName, long regionBytes, BootstrapSecurity security)
      throws IOException {
    try {
      client =
          BootstrapClient.connect(
              host,
              port,
              "fiucx bench pid " + ProcessHandle.current().pid(),
              Duration.ofSeconds(10),
              security);
    } catch (BootstrapException e) {
      // the serve's refusals and the secret's do not name the serve; the rest do already
      if (!e.fromPeer() && e.refusal() != Refusal.UNAUTHORIZED) {
        throw e;
      }
      String target = host + ":" + port;
      throw new BootstrapException(
          e.refusal(), (e.fromPeer() ? target + " refused: " : target + ": ") + e.getMessage());
    }
    try {
      Welcome w = client.welcome();
      region =
          w.regions().stream()
              .filter(r -> r.name().equals(regionName))
              .findFirst()
              .orElseThrow(
                  () ->
                      new FiException(
                          FiErrno.ENOENT,
                          host
                              + ":"
                              + port
                              + " serves no region '"
                              + regionName
                              + "'; it serves: "
                              + w.regions().stream()
                                  .map(PeerRegion::name)
                                  .collect(Collectors.joining(", "))));
      if (region.length() < regionBytes) {
        throw new BenchUsageException(
            "region '"
                + regionName
                + "' has "
                + region.length()
                + " bytes; this run needs "
                + regionBytes
                + " (64 per thread)");
      }
    } catch (RuntimeException e) {
      client.close();
      throw e;
    }
  }

  /** The serve's transport (null: the provider's default), for an initiator told none. */
  String transport() {
    return client.welcome().transport();
  }

  String regionName() {
    return region.name();
  }

  @Override
  public byte[] address() {
    return client.welcome().address();
  }

  @Override
  public long key() {
    return region.key();
  }

  @Override
  public long regionLength() {
    return region.length();
  }

  @Override
  public boolean exclusive() {
    return false;
  }

  @Override
  public void zero() {
    // other initiators' counts live there: a serve's region is never zeroed by bench
  }

  @Override
  public void start() {
    // a serve progresses by itself
  }

  @Override
  public byte[] stop() {
    return null;
  }

  @Override
  public void close() {
    client.close();
  }
}
