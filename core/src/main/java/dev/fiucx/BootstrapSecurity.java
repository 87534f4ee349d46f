package dev.fiucx;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import javax.net.ssl.SSLContext;

/**
 * How a {@link Server}'s bootstrap and a {@link Fabric#connect} keep region keys from those who do
 * not belong, in the manner of Spark's {@code spark.authenticate}: a shared secret that both sides
 * prove they know (challenge-response, mutual, nothing of the secret on the wire) before any domain
 * address, region name or key is sent, and optional TLS against eavesdroppers.
 *
 * <p>Both sides of a connection give the same secret. A serve with a secret refuses an initiator
 * that answers its challenge wrongly or not at all; an initiator with a secret refuses a serve that
 * does not ask for it or cannot prove it knows it. Without a secret a serve listens on loopback
 * only, unless {@link #withInsecureBind} says otherwise. Immutable: any thread may use it.
 *
 * <p><b>Errors.</b> Its factories throw {@link FiException} with {@code FI_EINVAL} for a secret
 * that cannot be read or is too short, or a missing TLS context; {@link #isLoopback} throws {@code
 * FI_EADDRNOTAVAIL} for a name that does not resolve.
 */
public final class BootstrapSecurity {
  /** The environment variable a command line takes the secret from when no file is named. */
  public static final String SECRET_ENV = "FIUCX_SECRET";

  /** The shortest secret taken: 16 bytes (128 bits when they are random). */
  public static final int MIN_SECRET_BYTES = 16;

  private static final BootstrapSecurity NONE = new BootstrapSecurity(null, null, false);

  private final byte[] secret;
  private final SSLContext tls;
  private final boolean insecureBind;

  private BootstrapSecurity(byte[] secret, SSLContext tls, boolean insecureBind) {
    this.secret = secret;
    this.tls = tls;
    this.insecureBind = insecureBind;
  }

  /**
   * No secret, no TLS: a serve on loopback, or a connection to a serve without a secret.
   *
   * @return the one such value
   */
  public static BootstrapSecurity none() {
    return NONE;
  }

  /**
   * This, with a shared secret (copied).
   *
   * @param secret the secret, at least {@link #MIN_SECRET_BYTES} bytes, the same at both ends
   * @return a new value with the secret, and this one's TLS and bind choice
   * @throws FiException {@code FI_EINVAL} for fewer than {@link #MIN_SECRET_BYTES} bytes
   */
  public BootstrapSecurity withSecret(byte[] secret) {
    if (secret == null || secret.length < MIN_SECRET_BYTES) {
      throw new FiException(
          FiErrno.EINVAL,
          "a shared secret of "
              + (secret == null ? 0 : secret.length)
              + " bytes: it needs "
              + MIN_SECRET_BYTES
              + " at least (e.g. head -c 32 /dev/urandom | base64)");
    }
    return new BootstrapSecurity(secret.clone(), tls, insecureBind);
  }

  /**
   * This, with TLS on the bootstrap connection: a serve's context has a key manager (its key and
   * certificate), an initiator's a trust manager (the serve's certificate or its CA), which also
   * checks that the certificate names the host connected to. See {@link TlsContexts}.
   *
   * @param context the TLS context of this side
   * @return a new value with TLS, and this one's secret and bind choice
   * @throws FiException {@code FI_EINVAL} for a null context
   */
  public BootstrapSecurity withTls(SSLContext context) {
    if (context == null) {
      throw new FiException(FiErrno.EINVAL, "withTls needs an SSLContext");
    }
    return new BootstrapSecurity(secret, context, insecureBind);
  }

  /**
   * This, letting a serve without a secret listen beyond loopback: it then gives every region's key
   * to anyone who can reach its port. A serve with a secret needs no such leave.
   *
   * @return a new value that allows it, with this one's secret and TLS
   */
  public BootstrapSecurity withInsecureBind() {
    return new BootstrapSecurity(secret, tls, true);
  }

  /**
   * Whether both sides must prove they know a shared secret.
   *
   * @return true with a secret
   */
  public boolean hasSecret() {
    return secret != null;
  }

  /**
   * The shared secret, for the bootstrap's proofs.
   *
   * @return a copy of it, or null when there is none
   */
  public byte[] secret() {
    return secret == null ? null : secret.clone();
  }

  /**
   * The TLS context of this side.
   *
   * @return it, or null for plain TCP
   */
  public SSLContext tls() {
    return tls;
  }

  /**
   * Whether a serve without a secret may listen beyond loopback.
   *
   * @return true when {@link #withInsecureBind} allowed it
   */
  public boolean insecureBind() {
    return insecureBind;
  }

  /**
   * The secret a command line was given: the file's bytes when {@code file} is not null (one
   * trailing line break dropped, so {@code echo} and editors do not change it), else the UTF-8 of
   * {@link #SECRET_ENV}, else null. Never the command line itself, where {@code ps} shows it.
   *
   * @param file the file holding the secret, or null to read {@link #SECRET_ENV}
   * @return the secret, or null when neither gives one
   * @throws FiException {@code FI_EINVAL} when the file cannot be read or the secret is too short
   */
  public static byte[] secretFrom(Path file) {
    byte[] s;
    String where;
    if (file != null) {
      where = "--secret-file " + file;
      try {
        s = Files.readAllBytes(file);
      } catch (IOException e) {
        throw new FiException(FiErrno.EINVAL, where + ": cannot read it: " + e.getMessage(), e);
      }
      int n = s.length;
      if (n > 0 && s[n - 1] == '\n') {
        n--;
        if (n > 0 && s[n - 1] == '\r') {
          n--;
        }
      }
      s = Arrays.copyOf(s, n);
    } else {
      String env = System.getenv(SECRET_ENV);
      if (env == null) {
        return null;
      }
      where = SECRET_ENV;
      s = env.getBytes(StandardCharsets.UTF_8);
    }
    if (s.length < MIN_SECRET_BYTES) {
      throw new FiException(
          FiErrno.EINVAL,
          where
              + " holds "
              + s.length
              + " bytes: a shared secret needs "
              + MIN_SECRET_BYTES
              + " at least (e.g. head -c 32 /dev/urandom | base64)");
    }
    return s;
  }

  /**
   * True when {@code bindAddress} (a name or literal) is a loopback address, so only processes of
   * this host reach a serve bound to it; the wildcard {@code 0.0.0.0} is not.
   *
   * @param bindAddress the address a serve would listen on
   * @return whether it is a loopback address
   * @throws FiException {@code FI_EADDRNOTAVAIL} for a name that does not resolve
   */
  public static boolean isLoopback(String bindAddress) {
    try {
      return InetAddress.getByName(bindAddress).isLoopbackAddress();
    } catch (UnknownHostException e) {
      throw new FiException(
          FiErrno.EADDRNOTAVAIL, "cannot listen on " + bindAddress + ": unknown host", e);
    }
  }

  @Override
  public String toString() {
    return (secret == null ? "no secret" : "shared secret")
        + (tls == null ? ", plain TCP" : ", TLS")
        + (insecureBind ? ", insecure bind allowed" : "");
  }
}
