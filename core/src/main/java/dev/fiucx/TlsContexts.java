package dev.fiucx;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * TLS contexts for {@link BootstrapSecurity#withTls} from files, with the JDK alone: a serve's key
 * and certificate from a PKCS#12 keystore or from PEM files (an unencrypted PKCS#8 key, {@code
 * -----BEGIN PRIVATE KEY-----}, and its certificate chain), an initiator's trust from PEM
 * certificates (the serve's own or its CA's). Each failure throws {@link FiException} with {@code
 * FI_EINVAL} and names the file and what was wrong.
 */
public final class TlsContexts {
  private static final Pattern PKCS8 =
      Pattern.compile("-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");

  /** The key algorithms a PKCS#8 key is tried as; the encoding names its own. */
  private static final String[] KEY_ALGORITHMS = {"RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS"};

  private TlsContexts() {}

  /**
   * A serve's context from a PKCS#12 keystore holding one key and its certificate chain.
   *
   * @param keystore the PKCS#12 file
   * @param password the keystore's password (also the key's)
   * @return a TLS 1.3 context with that key
   * @throws FiException {@code FI_EINVAL} naming the file and what was wrong
   */
  public static SSLContext serverFromKeystore(Path keystore, char[] password) {
    try (InputStream in = Files.newInputStream(keystore)) {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(in, password);
      return server(ks, password);
    } catch (IOException | GeneralSecurityException e) {
      throw new FiException(FiErrno.EINVAL, "TLS keystore " + keystore + ": " + e.getMessage(), e);
    }
  }

  /**
   * A serve's context from a PEM PKCS#8 private key and a PEM certificate chain (its own first).
   *
   * @param key the unencrypted PKCS#8 private key, PEM
   * @param certificates the certificate chain, PEM, the key's own certificate first
   * @return a TLS 1.3 context with that key
   * @throws FiException {@code FI_EINVAL} naming the file and what was wrong
   */
  public static SSLContext serverFromPem(Path key, Path certificates) {
    Certificate[] chain = certificates(certificates).toArray(Certificate[]::new);
    PrivateKey pk = privateKey(key);
    try {
      char[] none = new char[0];
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, none);
      ks.setKeyEntry("serve", pk, none, chain);
      return server(ks, none);
    } catch (IOException | GeneralSecurityException e) {
      throw new FiException(
          FiErrno.EINVAL,
          "TLS key " + key + " with certificate " + certificates + ": " + e.getMessage(),
          e);
    }
  }

  /**
   * An initiator's context that trusts the PEM certificates in {@code trusted} (a serve's own or
   * the CA that signed it), and nothing else.
   *
   * @param trusted PEM certificates to trust
   * @return a TLS 1.3 context trusting them, which also checks that the serve's certificate names
   *     the host connected to
   * @throws FiException {@code FI_EINVAL} naming the file and what was wrong
   */
  public static SSLContext clientTrusting(Path trusted) {
    try {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      int i = 0;
      for (Certificate c : certificates(trusted)) {
        ks.setCertificateEntry("trusted-" + i++, c);
      }
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(ks);
      SSLContext ctx = SSLContext.getInstance("TLSv1.3");
      ctx.init(null, tmf.getTrustManagers(), null);
      return ctx;
    } catch (IOException | GeneralSecurityException e) {
      throw new FiException(
          FiErrno.EINVAL, "TLS certificates " + trusted + ": " + e.getMessage(), e);
    }
  }

  private static SSLContext server(KeyStore ks, char[] password) throws GeneralSecurityException {
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(ks, password);
    SSLContext ctx = SSLContext.getInstance("TLSv1.3");
    ctx.init(kmf.getKeyManagers(), null, null);
    return ctx;
  }

  private static Collection<? extends Certificate> certificates(Path pem) {
    try (InputStream in = Files.newInputStream(pem)) {
      Collection<? extends Certificate> certs =
          CertificateFactory.getInstance("X.509").generateCertificates(in);
      if (certs.isEmpty()) {
        throw new FiException(FiErrno.EINVAL, "TLS certificates " + pem + ": none in the file");
      }
      return certs;
    } catch (IOException | GeneralSecurityException e) {
      throw new FiException(FiErrno.EINVAL, "TLS certificates " + pem + ": " + e.getMessage(), e);
    }
  }

  private static PrivateKey privateKey(Path pem) {
    String text;
    try {
      text = Files.readString(pem, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new FiException(FiErrno.EINVAL, "TLS key " + pem + ": " + e.getMessage(), e);
    }
    Matcher m = PKCS8.matcher(text);
    if (!m.find()) {
      throw new FiException(
          FiErrno.EINVAL,
          "TLS key "
              + pem
              + ": no unencrypted PKCS#8 key (-----BEGIN PRIVATE KEY-----); convert one with"
              + " openssl pkcs8 -topk8 -nocrypt");
    }
    byte[] der;
    try {
      der = Base64.getMimeDecoder().decode(m.group(1));
    } catch (IllegalArgumentException e) {
      throw new FiException(FiErrno.EINVAL, "TLS key " + pem + ": bad base64", e);
    }
    PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
    for (String algorithm : KEY_ALGORITHMS) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(spec);
      } catch (GeneralSecurityException e) {
        // the encoding is another algorithm's: try the next
      }
    }
    throw new FiException(
        FiErrno.EINVAL,
        "TLS key " + pem + ": a PKCS#8 key of none of " + String.join(", ", KEY_ALGORITHMS));
  }
}
