package dev.fiucx.bootstrap;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The shared secret's challenge-response: each side sends a fresh random nonce, and each proves it
 * knows the secret with {@code HMAC-SHA256(secret, label || target nonce || initiator nonce)}. The
 * target's nonce makes a recorded answer useless on another connection; the labels differ by
 * direction, so neither side's proof can be reflected back as the other's; the target proves itself
 * only after the initiator did, so it is no oracle for strangers.
 */
final class SecretProof {
  static final int NONCE_BYTES = 32;
  static final int PROOF_BYTES = 32;

  private static final byte[] INITIATOR = label("fiucx bootstrap v2: initiator proof");
  private static final byte[] TARGET = label("fiucx bootstrap v2: target proof");
  private static final SecureRandom RANDOM = new SecureRandom();

  private SecretProof() {}

  static byte[] nonce() {
    byte[] n = new byte[NONCE_BYTES];
    RANDOM.nextBytes(n);
    return n;
  }

  /** What the initiator answers the target's challenge with. */
  static byte[] initiator(byte[] secret, byte[] targetNonce, byte[] initiatorNonce) {
    return hmac(secret, INITIATOR, targetNonce, initiatorNonce);
  }

  /** What the target proves itself with once the initiator's answer was right. */
  static byte[] target(byte[] secret, byte[] targetNonce, byte[] initiatorNonce) {
    return hmac(secret, TARGET, targetNonce, initiatorNonce);
  }

  /** In time independent of where the two differ, so timing tells a guesser nothing. */
  static boolean same(byte[] expected, byte[] given) {
    return MessageDigest.isEqual(expected, given);
  }

  private static byte[] hmac(byte[] secret, byte[] label, byte[] targetNonce, byte[] ownNonce) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      mac.update(label);
      mac.update(targetNonce);
      return mac.doFinal(ownNonce);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }

  /** A label with its length before it, so no label is a prefix of another's input. */
  private static byte[] label(String text) {
    byte[] t = text.getBytes(StandardCharsets.US_ASCII);
    byte[] out = new byte[1 + t.length];
    out[0] = (byte) t.length;
    System.arraycopy(t, 0, out, 1, t.length);
    return out;
  }

  /** CHALLENGE's payload: the target's nonce. */
  static byte[] decodeChallenge(byte[] payload) throws BootstrapException {
    Fields f = new Fields("CHALLENGE", payload);
    byte[] nonce = f.bytes(NONCE_BYTES, NONCE_BYTES, "nonce");
    f.end();
    return nonce;
  }

  /** ANSWER's payload: the initiator's nonce, then its proof. */
  static byte[] encodeAnswer(byte[] initiatorNonce, byte[] proof) {
    byte[] out = new byte[NONCE_BYTES + PROOF_BYTES];
    System.arraycopy(initiatorNonce, 0, out, 0, NONCE_BYTES);
    System.arraycopy(proof, 0, out, NONCE_BYTES, PROOF_BYTES);
    return out;
  }

  /** ANSWER's payload as {nonce, proof}. */
  static byte[][] decodeAnswer(byte[] payload) throws BootstrapException {
    Fields f = new Fields("ANSWER", payload);
    byte[] nonce = f.bytes(NONCE_BYTES, NONCE_BYTES, "nonce");
    byte[] proof = f.bytes(PROOF_BYTES, PROOF_BYTES, "proof");
    f.end();
    return new byte[][] {nonce, proof};
  }

  /** PROOF's payload: the target's proof. */
  static byte[] decodeProof(byte[] payload) throws BootstrapException {
    Fields f = new Fields("PROOF", payload);
    byte[] proof = f.bytes(PROOF_BYTES, PROOF_BYTES, "proof");
    f.end();
    return proof;
  }
}
