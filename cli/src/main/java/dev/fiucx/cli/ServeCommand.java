package dev.fiucx.cli;

import dev.fiucx.BootstrapSecurity;
import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.FiFlags;
import dev.fiucx.PeerRegion;
import dev.fiucx.ServeAttr;
import dev.fiucx.ServeListener;
import dev.fiucx.Server;
import dev.fiucx.TlsContexts;
import dev.fiucx.perf.MetricsEndpoint;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code fiucx serve}: the target role as a long-running process, a thin command line over {@link
 * Fabric#serve}. It allocates the named regions through UCX (so peers on shared memory get CPU
 * atomics), serves the bootstrap on {@code --bind:--port}, progresses by itself (the domain's
 * progress thread), prints a line per region and per initiator that comes or goes, and stops on
 * SIGTERM or SIGINT: no new connections, keys revoked, memory unmapped, exit status 0.
 *
 * <p>The first line on stdout is {@code fiucx serve: listening on HOST:PORT}; scripts and tests
 * read the port from it.
 */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Expose named regions for remote atomics until SIGTERM/SIGINT; initiators connect with"
          + " Fabric.connect(\"HOST:PORT\", ...) or bench --connect HOST:PORT --region NAME.",
      "Exit status 0 after a clean stop, 1 when serving failed, 2 on bad options."
    })
final class ServeCommand implements Callable<Integer>, ProviderGate.OpensProvider {
  /** The bootstrap port unless told otherwise (bench --server's default too). */
  static final int DEFAULT_PORT = 13340;

  /** The domain option of the remote lock's lease (see DomainAttr). */
  static final String LOCK_LEASE_OPTION = DomainAttr.LOCK_LEASE_OPTION;

  /** The lease as the domain describes it: "... a lock unchanged for 10000 ms ...". */
  private static final Pattern LEASE = Pattern.compile("unchanged for (\\d+) ms");

  /** The keys a --config file may hold: the long options' names. */
  static final Set<String> CONFIG_KEYS =
      Set.of(
          "port",
          "bind",
          "region",
          "transport",
          "metrics-port",
          "lease-ms",
          "secret-file",
          "tls-keystore",
          "tls-key",
          "tls-cert");

  /** Where the PKCS#12 keystore's password comes from (never the command line). */
  static final String TLS_PASSWORD_ENV = "FIUCX_TLS_PASSWORD";

  @Option(
      names = "--port",
      paramLabel = "P",
      description = "the bootstrap's port (default " + DEFAULT_PORT + "; 0 picks a free one)")
  Integer port;

  @Option(
      names = "--bind",
      paramLabel = "ADDRESS",
      description = "the bootstrap's (and /metrics') address (default 127.0.0.1)")
  String bind;

  @Option(
      names = "--region",
      paramLabel = "NAME:SIZE[:ACCESS]",
      description =
          "a region to serve (repeatable): SIZE in bytes or with k, m, g; ACCESS rw (default),"
              + " r or w")
  List<String> regions = new ArrayList<>();

  @Option(
      names = "--transport",
      paramLabel = "shm|tcp|TLS",
      description = "shm, tcp, or a UCX_TLS list (default shm)")
  String transport;

  @Option(
      names = "--metrics-port",
      paramLabel = "PORT",
      description = "serve /metrics in Prometheus text format on --bind's address (0 picks one)")
  Integer metricsPort;

  @Option(
      names = "--lease-ms",
      paramLabel = "MS",
      description = "the remote lock's lease in milliseconds (default: the domain's, 10000)")
  Long leaseMs;

  @Option(
      names = "--secret-file",
      paramLabel = "FILE",
      description =
          "the shared secret initiators must prove they know before they learn any region (default:"
              + " the environment's FIUCX_SECRET; with neither, the serve listens on loopback only)")
  Path secretFile;

  @Option(
      names = "--insecure",
      description =
          "without a secret, listen beyond loopback anyway: every region's key to anyone who"
              + " reaches the port")
  boolean insecure;

  @Option(
      names = "--tls-keystore",
      paramLabel = "P12",
      description =
          "TLS on the bootstrap with this PKCS#12 keystore's key and certificate (its password from"
              + " FIUCX_TLS_PASSWORD, else none)")
  Path tlsKeystore;

  @Option(
      names = "--tls-key",
      paramLabel = "PEM",
      description = "TLS on the bootstrap with this unencrypted PKCS#8 key (with --tls-cert)")
  Path tlsKey;

  @Option(
      names = "--tls-cert",
      paramLabel = "PEM",
      description = "the certificate chain of --tls-key, the serve's own first")
  Path tlsCert;

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description =
          "a properties file with the same keys (port, bind, region, transport, metrics-port,"
              + " lease-ms, secret-file, tls-keystore, tls-key, tls-cert; region takes a"
              + " comma-separated list); options given here win")
  Path config;

  @Option(names = "--parent-watch", hidden = true, description = "stop when stdin ends")
  boolean parentWatch;

  /** A bad option or file: exit status 2. */
  static final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
      super(message);
    }
  }

  /** What the options and the config file ask for, checked. */
  record Settings(
      String bind,
      int port,
      List<ServeAttr.Region> regions,
      String transport,
      Integer metricsPort,
      Long leaseMs,
      BootstrapSecurity security) {
    DomainAttr domainAttr() {
      Map<String, String> options =
          leaseMs == null ? Map.of() : Map.of(LOCK_LEASE_OPTION, Long.toString(leaseMs));
      return new DomainAttr(transport, DomainAttr.Progress.AUTO, false, options);
    }
  }

  @Override
  public String providerToOpen() {
    return "ucx";
  }

  @Override
  public Integer call() {
    PrintStream out = System.out;
    Settings s;
    try {
      s = settings();
    } catch (UsageException e) {
      System.err.println("fiucx serve: " + e.getMessage());
      return 2;
    }
    CountDownLatch stop = new CountDownLatch(1);
    String[] signal = {"stop"};
    Server server;
    try {
      server =
          Fabric.serve(
              "ucx",
              new ServeAttr(s.bind(), s.port(), s.regions(), s.domainAttr(), s.security()),
              new Announcer(out));
    } catch (FiException e) {
      System.err.println("fiucx serve: " + e.getMessage());
      return 1;
    }
    // SIGTERM and SIGINT stop the serve through the main thread, so it exits 0; a shutdown hook
    // (another way out of the JVM) still revokes and unmaps
    Thread hook = new Thread(server::close, "fiucx-serve-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    Signals.onTermOrInt(
        name -> {
          signal[0] = name;
          stop.countDown();
        });
    if (parentWatch) {
      // a serve that a process started (the demo) holds its stdin: the end means it is gone
      Thread.ofPlatform()
          .daemon()
          .name("fiucx-serve-parent-watch")
          .start(
              () -> {
                try {
                  while (System.in.read() >= 0) {
                    // nothing is sent; only the end matters
                  }
                } catch (IOException e) {
                  // a broken pipe ends the watch as well
                }
                signal[0] = "parent gone";
                stop.countDown();
              });
    }
    MetricsEndpoint metrics = null;
    try {
      out.println("fiucx serve: listening on " + hostPort(server));
      Map<String, String> facts = server.domain().describe();
      Matcher lease = LEASE.matcher(facts.getOrDefault("remote locks", ""));
      out.printf(
          "fiucx serve: provider ucx, transport %s, UCX %s, lock lease %s ms%n",
          facts.getOrDefault("ucx.tls", "?"),
          facts.getOrDefault("ucx.version", "?"),
          lease.find() ? lease.group(1) : "?");
      out.println("fiucx serve: " + securityLine(s.security()));
      for (PeerRegion r : server.regions()) {
        out.printf(
            "fiucx serve: region %s: %d bytes, key 0x%016x, access %s%n",
            r.name(), r.length(), r.key(), accessWord(r.access()));
      }
      if (s.metricsPort() != null) {
        metrics =
            new MetricsEndpoint(s.bind(), s.metricsPort(), List.of(server.domain()), false, out);
      }
      out.flush();
      stop.await();
      out.println("fiucx serve: " + signal[0] + ": refusing new connections, revoking keys");
      return 0;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    } catch (FiException e) {
      System.err.println("fiucx serve: " + e.getMessage());
      return 1;
    } finally {
      if (metrics != null) {
        metrics.close();
      }
      server.close();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // the JVM is shutting down already: the hook closes (closing twice does nothing)
      }
      out.println("fiucx serve: stopped");
      out.flush();
    }
  }

  private static String hostPort(Server server) {
    String host = server.address().getAddress().getHostAddress();
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + server.port();
  }

  /** Who may learn the keys, in one line after the provider's. */
  static String securityLine(BootstrapSecurity security) {
    String channel = security.tls() == null ? "bootstrap over plain TCP" : "bootstrap over TLS";
    if (security.hasSecret()) {
      return channel + ", initiators must prove the shared secret";
    }
    return channel
        + (security.insecureBind()
            ? ", no secret: every region's key to anyone who connects (--insecure)"
            : ", no secret: loopback only");
  }

  static String accessWord(long access) {
    return ((access & FiFlags.REMOTE_READ) != 0 ? "r" : "")
        + ((access & FiFlags.REMOTE_WRITE) != 0 ? "w" : "");
  }

  /** The options over the config file over the defaults. */
  Settings settings() {
    Properties file = new Properties();
    if (config != null) {
      try (Reader r = Files.newBufferedReader(config, StandardCharsets.UTF_8)) {
        file.load(r);
      } catch (IOException | IllegalArgumentException e) {
        throw new UsageException("--config " + config + ": " + e.getMessage());
      }
      for (String k : file.stringPropertyNames()) {
        if (!CONFIG_KEYS.contains(k)) {
          throw new UsageException(
              "--config " + config + ": unknown key '" + k + "' (keys: " + CONFIG_KEYS + ")");
        }
      }
    }
    int p = port != null ? port : intOf(file, "port", DEFAULT_PORT);
    if (p < 0 || p > 65535) {
      throw new UsageException("--port is 0 .. 65535: " + p);
    }
    String b = bind != null ? bind : file.getProperty("bind", "127.0.0.1").trim();
    List<String> specs = new ArrayList<>(regions);
    if (specs.isEmpty() && file.getProperty("region") != null) {
      for (String spec : file.getProperty("region").split(",")) {
        if (!spec.isBlank()) {
          specs.add(spec.trim());
        }
      }
    }
    if (specs.isEmpty()) {
      throw new UsageException("at least one --region NAME:SIZE[:ACCESS] to serve");
    }
    List<ServeAttr.Region> parsed = new ArrayList<>();
    for (String spec : specs) {
      ServeAttr.Region r = region(spec);
      if (parsed.stream().anyMatch(q -> q.name().equals(r.name()))) {
        throw new UsageException("region '" + r.name() + "' named twice");
      }
      parsed.add(r);
    }
    String t = transport != null ? transport : file.getProperty("transport", "shm").trim();
    if (t.isBlank()) {
      throw new UsageException("--transport is empty");
    }
    Integer m = metricsPort != null ? metricsPort : intOrNull(file, "metrics-port");
    if (m != null && (m < 0 || m > 65535)) {
      throw new UsageException("--metrics-port is 0 .. 65535: " + m);
    }
    Long lease = leaseMs != null ? leaseMs : longOrNull(file, "lease-ms");
    if (lease != null && lease <= 0) {
      throw new UsageException("--lease-ms must be at least 1: " + lease);
    }
    return new Settings(b, p, List.copyOf(parsed), t, m, lease, security(file, b));
  }

  /** The secret and TLS asked for; a bind beyond loopback without a secret needs --insecure. */
  private BootstrapSecurity security(Properties file, String bind) {
    BootstrapSecurity security = BootstrapSecurity.none();
    try {
      byte[] secret = BootstrapSecurity.secretFrom(pathOf(secretFile, file, "secret-file"));
      if (secret != null) {
        security = security.withSecret(secret);
      } else if (!insecure && !BootstrapSecurity.isLoopback(bind)) {
        throw new UsageException(
            "--bind "
                + bind
                + " reaches beyond this host: give a shared secret (--secret-file FILE or "
                + BootstrapSecurity.SECRET_ENV
                + "), or --insecure to hand every region's key to anyone who connects");
      }
      Path keystore = pathOf(tlsKeystore, file, "tls-keystore");
      Path key = pathOf(tlsKey, file, "tls-key");
      Path cert = pathOf(tlsCert, file, "tls-cert");
      if (keystore != null && (key != null || cert != null)) {
        throw new UsageException("--tls-keystore or --tls-key with --tls-cert, not both");
      }
      if ((key == null) != (cert == null)) {
        throw new UsageException("--tls-key and --tls-cert go together");
      }
      if (keystore != null) {
        String pw = System.getenv(TLS_PASSWORD_ENV);
        security =
            security.withTls(
                TlsContexts.serverFromKeystore(
                    keystore, pw == null ? new char[0] : pw.toCharArray()));
      } else if (key != null) {
        security = security.withTls(TlsContexts.serverFromPem(key, cert));
      }
    } catch (FiException e) {
      throw new UsageException(withoutErrno(e));
    }
    return insecure ? security.withInsecureBind() : security;
  }

  private static Path pathOf(Path option, Properties file, String key) {
    if (option != null) {
      return option;
    }
    String v = file.getProperty(key);
    return v == null || v.isBlank() ? null : Path.of(v.trim());
  }

  /** The exception's own words, without the errno's name before them. */
  static String withoutErrno(FiException e) {
    String prefix = FiErrno.errorString(e.errno()) + ": ";
    String m = e.getMessage();
    return m.startsWith(prefix) ? m.substring(prefix.length()) : m;
  }

  /** {@code NAME:SIZE[:ACCESS]}. */
  static ServeAttr.Region region(String spec) {
    String[] parts = spec.split(":", -1);
    if (parts.length < 2 || parts.length > 3) {
      throw new UsageException("--region wants NAME:SIZE[:ACCESS], not '" + spec + "'");
    }
    String name = parts[0];
    if (!PeerRegion.validName(name)) {
      throw new UsageException("--region '" + spec + "': the name is " + PeerRegion.NAME_RULE);
    }
    long size = size(parts[1], spec);
    long access =
        parts.length == 2
            ? FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE
            : switch (parts[2].trim().toLowerCase(Locale.ROOT)) {
              case "rw", "wr" -> FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE;
              case "r" -> FiFlags.REMOTE_READ;
              case "w" -> FiFlags.REMOTE_WRITE;
              default ->
                  throw new UsageException(
                      "--region '" + spec + "': ACCESS is rw, r or w, not '" + parts[2] + "'");
            };
    return new ServeAttr.Region(name, size, access);
  }

  /** Bytes: digits with an optional k, m or g (powers of 1024); at least 8. */
  static long size(String text, String spec) {
    String s = text.trim().toLowerCase(Locale.ROOT);
    long unit = 1;
    if (s.endsWith("k") || s.endsWith("m") || s.endsWith("g")) {
      unit =
          switch (s.charAt(s.length() - 1)) {
            case 'k' -> 1L << 10;
            case 'm' -> 1L << 20;
            default -> 1L << 30;
          };
      s = s.substring(0, s.length() - 1);
    }
    long n;
    try {
      n = Long.parseLong(s);
    } catch (NumberFormatException e) {
      throw new UsageException("--region '" + spec + "': SIZE is not a number: '" + text + "'");
    }
    if (n < 1 || n > Long.MAX_VALUE / unit || n * unit < 8) {
      throw new UsageException("--region '" + spec + "': SIZE is at least 8 bytes: '" + text + "'");
    }
    return n * unit;
  }

  private static int intOf(Properties p, String key, int dflt) {
    Integer v = intOrNull(p, key);
    return v == null ? dflt : v;
  }

  private static Integer intOrNull(Properties p, String key) {
    Long v = longOrNull(p, key);
    if (v != null && (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE)) {
      throw new UsageException("--config: " + key + " out of range: " + v);
    }
    return v == null ? null : v.intValue();
  }

  private static Long longOrNull(Properties p, String key) {
    String v = p.getProperty(key);
    if (v == null) {
      return null;
    }
    try {
      return Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      throw new UsageException("--config: " + key + " is not a number: '" + v + "'");
    }
  }

  /** Prints the bootstrap's events, one line each. */
  private static final class Announcer implements ServeListener {
    private final PrintStream out;

    Announcer(PrintStream out) {
      this.out = out;
    }

    @Override
    public void connected(String peer, String client) {
      out.println("fiucx serve: initiator " + peer + " connected (" + client + ")");
      out.flush();
    }

    @Override
    public void departed(String peer, String client, String why) {
      out.println("fiucx serve: initiator " + peer + " departed (" + why + ")");
      out.flush();
    }

    @Override
    public void refused(String peer, String why) {
      out.println("fiucx serve: refused " + peer + ": " + why);
      out.flush();
    }
  }
}
