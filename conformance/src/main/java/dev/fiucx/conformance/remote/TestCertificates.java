package dev.fiucx.conformance.remote;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A key and self-signed certificate made by the JDK's {@code keytool} for a test, in a directory
 * the test owns (a temporary one): no private key is ever committed. The same key is written as a
 * PKCS#12 keystore and as PEM (an unencrypted PKCS#8 key and the certificate), so a serve can take
 * either and an initiator can trust the certificate.
 *
 * @param keystore PKCS#12, holding the key under the alias {@code serve}
 * @param password the keystore's and the key's
 * @param certificate the certificate in PEM
 * @param key the private key in PEM, PKCS#8
 */
public record TestCertificates(Path keystore, String password, Path certificate, Path key) {

  /**
   * Makes an EC key and a certificate for {@code name} valid two days, naming {@code ip} as its
   * subject alternative name (what an initiator connecting to that address checks).
   *
   * @param dir the test's own directory, where the files go
   * @param name the certificate's common name and the files' stem
   * @param ip the address the certificate names
   * @return the files made
   */
  public static TestCertificates make(Path dir, String name, String ip) {
    Path ks = dir.resolve(name + ".p12");
    Path cert = dir.resolve(name + ".crt.pem");
    Path key = dir.resolve(name + ".key.pem");
    String pw = "test-only-" + name;
    keytool(
        "-genkeypair",
        "-alias",
        "serve",
        "-keyalg",
        "EC",
        "-groupname",
        "secp256r1",
        "-dname",
        "CN=" + name,
        "-ext",
        "SAN=ip:" + ip,
        "-validity",
        "2",
        "-keystore",
        ks.toString(),
        "-storetype",
        "PKCS12",
        "-storepass",
        pw,
        "-keypass",
        pw);
    keytool(
        "-exportcert",
        "-rfc",
        "-alias",
        "serve",
        "-keystore",
        ks.toString(),
        "-storepass",
        pw,
        "-file",
        cert.toString());
    try (InputStream in = Files.newInputStream(ks)) {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(in, pw.toCharArray());
      Key k = store.getKey("serve", pw.toCharArray());
      String base64 =
          Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
              .encodeToString(k.getEncoded());
      Files.writeString(
          key, "-----BEGIN PRIVATE KEY-----\n" + base64 + "\n-----END PRIVATE KEY-----\n");
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot write " + name + "'s key as PEM", e);
    }
    return new TestCertificates(ks, pw, cert, key);
  }

  private static void keytool(String... args) {
    Path tool = Path.of(System.getProperty("java.home"), "bin", "keytool");
    List<String> command = new java.util.ArrayList<>(List.of(tool.toString()));
    command.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("keytool " + args[0] + " did not finish within 60 s");
      }
      if (p.exitValue() != 0) {
        throw new IllegalStateException(
            "keytool " + args[0] + " exited " + p.exitValue() + ": " + output);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + tool, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running keytool", e);
    }
  }
}
