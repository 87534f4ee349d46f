package dev.fiucx.perf.bench;

import dev.fiucx.BootstrapSecurity;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.TlsContexts;
import java.nio.file.Path;
import java.util.Locale;
import picocli.CommandLine.Option;

/**
 * bench's options for the target: being one ({@code --server}), reaching one ({@code --connect}, a
 * bench server's or with {@code --region} a fiucx serve's), how it progresses, and the shared
 * secret and TLS trust either side proves or checks.
 */
final class TargetOptions {
  /** The port {@code --server} listens on unless told otherwise. */
  static final int DEFAULT_PORT = 13340;

  @Option(names = "--server", description = "be the target: serve one client, then exit")
  boolean server;

  @Option(
      names = "--port",
      paramLabel = "P",
      description = "--server's bootstrap port (default " + DEFAULT_PORT + "; 0 picks a free one)")
  Integer port;

  @Option(
      names = "--bind",
      paramLabel = "ADDR",
      defaultValue = "127.0.0.1",
      description = "--server's bootstrap and --metrics-port's address (default ${DEFAULT-VALUE})")
  String bind;

  @Option(
      names = "--server-progress",
      paramLabel = "spin|auto",
      defaultValue = "spin",
      description =
          "the target's progress (--server's, or the target bench starts itself): spin (a loop"
              + " of its own while a run is on, as ucx_perftest's server) or auto (the domain's"
              + " progress thread, which sleeps while no peer needs it) (default ${DEFAULT-VALUE})")
  String serverProgress;

  @Option(
      names = "--connect",
      paramLabel = "HOST:PORT",
      description =
          "run against a target started with --server there, or with --region against a fiucx"
              + " serve")
  String connect;

  @Option(
      names = "--region",
      paramLabel = "NAME",
      description =
          "with --connect: the region of a fiucx serve to run against (its transport unless"
              + " --transport is given)")
  String region;

  @Option(
      names = "--secret-file",
      paramLabel = "FILE",
      description =
          "the shared secret: with --server, what clients must prove before they learn the"
              + " region; with --connect, the target's (default: the environment's FIUCX_SECRET;"
              + " with neither, --server listens on loopback only)")
  Path secretFile;

  @Option(
      names = "--insecure",
      description =
          "with --server and no secret, listen beyond loopback anyway: the region's key to anyone"
              + " who reaches the port")
  boolean insecure;

  @Option(
      names = "--perftest-server",
      description =
          "with --server: run ucx_perftest's server side on this host when a client compares with"
              + " it (--vs-ucx-perftest from another host), with this target's UCX settings")
  boolean perftestServer;

  @Option(
      names = "--tls-trust",
      paramLabel = "PEM",
      description =
          "with --region: TLS to the serve, trusting these PEM certificates (its own or its CA's)")
  Path tlsTrust;

  /** Whether the target spins ({@code --server-progress spin}) or leaves it to auto progress. */
  boolean spins() {
    return switch (serverProgress.trim().toLowerCase(Locale.ROOT)) {
      case "spin" -> true;
      case "auto" -> false;
      default ->
          throw new BenchUsageException(
              "--server-progress is spin or auto, not '" + serverProgress + "'");
    };
  }

  /** The target's secret (--secret-file, else FIUCX_SECRET) and a serve's TLS trust, checked. */
  BootstrapSecurity targetSecurity() {
    try {
      BootstrapSecurity security = BootstrapSecurity.none();
      byte[] secret = BootstrapSecurity.secretFrom(secretFile);
      if (secret != null) {
        security = security.withSecret(secret);
      }
      return tlsTrust == null ? security : security.withTls(TlsContexts.clientTrusting(tlsTrust));
    } catch (FiException e) {
      throw usage(e);
    }
  }

  /** --server's secret; without one, a bind beyond loopback needs --insecure, as a serve's does. */
  BootstrapSecurity serverSecurity() {
    try {
      byte[] secret = BootstrapSecurity.secretFrom(secretFile);
      if (secret != null) {
        return BootstrapSecurity.none().withSecret(secret);
      }
      if (!insecure && !BootstrapSecurity.isLoopback(bind)) {
        throw new BenchUsageException(
            "--bind "
                + bind
                + " reaches beyond this host: give a shared secret (--secret-file FILE or "
                + BootstrapSecurity.SECRET_ENV
                + "), or --insecure to hand the region's key to anyone who connects");
      }
      return insecure ? BootstrapSecurity.none().withInsecureBind() : BootstrapSecurity.none();
    } catch (FiException e) {
      throw usage(e);
    }
  }

  /** A secret or address that cannot be used, in its own words (without the errno's name). */
  private static BenchUsageException usage(FiException e) {
    String prefix = FiErrno.errorString(e.errno()) + ": ";
    return new BenchUsageException(e.getMessage().replace(prefix, ""));
  }

  /** Whether {@code --connect}'s {@code HOST:PORT} names this host's loopback. */
  boolean connectsToLoopback() {
    String host = connect.substring(0, Math.max(0, connect.lastIndexOf(':')));
    try {
      return !host.isEmpty()
          && java.net.InetAddress.getByName(host.replaceAll("^\\[|\\]$", "")).isLoopbackAddress();
    } catch (java.net.UnknownHostException e) {
      return false;
    }
  }
}
