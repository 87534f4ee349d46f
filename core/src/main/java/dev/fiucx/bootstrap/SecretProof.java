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
 *
 * <p>The bootstrap ({@link BootstrapServer}, {@link BootstrapClient}) and bench's run control frame
 * these payloads on their own connections; the proofs and their checks are only here.
 */
public final class SecretProof {
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

  /**
   * The target's CHALLENGE payload: a fresh nonce, which the ANSWER must prove the secret over.
   *
   * @return the payload, to keep for {@link #checkAnswer}
   */
  public static byte[] challenge() {
    return nonce();
  }

  /**
   * The target's check of the initiator's ANSWER to {@code challenge}.
   *
   * @param secret the shared secret
   * @param challenge what {@link #challenge} gave and the CHALLENGE carried
   * @param answerPayload the ANSWER frame's payload
   * @return the PROOF payload the target sends back, proving it knows the secret too
   * @throws BootstrapException {@link Refusal#UNAUTHORIZED} when the answer does not prove the
   *     secret; another refusal when the payload is malformed
   */
  public static byte[] checkAnswer(byte[] secret, byte[] challenge, byte[] answerPayload)
      throws BootstrapException {
    byte[][] a = decodeAnswer(answerPayload);
    if (!same(initiator(secret, challenge, a[0]), a[1])) {
      throw new BootstrapException(
          Refusal.UNAUTHORIZED, "wrong shared secret (the answer to the challenge is not right)");
    }
    return target(secret, challenge, a[0]);
  }

  /**
   * The initiator's answer to a CHALLENGE, and the target's proof it then expects.
   *
   * @param secret the shared secret
   * @param challengePayload the CHALLENGE frame's payload
   * @return the ANSWER's payload and the check of the PROOF that follows
   * @throws BootstrapException when the payload is malformed
   */
  public static Answer answer(byte[] secret, byte[] challengePayload) throws BootstrapException {
    byte[] targetNonce = decodeChallenge(challengePayload);
    byte[] ownNonce = nonce();
    return new Answer(
        encodeAnswer(ownNonce, initiator(secret, targetNonce, ownNonce)),
        target(secret, targetNonce, ownNonce));
  }

  /** The initiator's side of one challenge: what it sends, and what it must get back. */
  public static final class Answer {
    private final byte[] payload;
    private final byte[] expectedProof;

    private Answer(byte[] payload, byte[] expectedProof) {
      this.payload = payload;
      this.expectedProof = expectedProof;
    }

    /**
     * The ANSWER frame's payload.
     *
     * @return a copy of it
     */
    public byte[] payload() {
      return payload.clone();
    }

    /**
     * Checks the target's PROOF, so a target that does not know the secret hands out nothing.
     *
     * @param proofPayload the PROOF frame's payload
     * @param target what the target is in the message ("serve", "bench server")
     * @throws BootstrapException {@link Refusal#UNAUTHORIZED} when the proof is wrong; another
     *     refusal when the payload is malformed
     */
    public void checkProof(byte[] proofPayload, String target) throws BootstrapException {
      if (!same(expectedProof, decodeProof(proofPayload))) {
        throw new BootstrapException(
            Refusal.UNAUTHORIZED,
            "the "
                + target
                + " did not prove it knows the shared secret: not the "
                + target
                + " meant");
      }
    }
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
