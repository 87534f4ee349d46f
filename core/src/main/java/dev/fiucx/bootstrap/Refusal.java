package dev.fiucx.bootstrap;

/**
 * Why a bootstrap peer refused a frame or a connection; its {@link #code} travels in the ERROR
 * frame, so both sides name the same reason.
 */
public enum Refusal {
  /** The first four bytes are not {@link Frames#MAGIC}: not a fiucx bootstrap peer. */
  BAD_MAGIC(1),
  /** Another version of the frame format. */
  BAD_VERSION(2),
  /** A type neither the bootstrap nor the protocol on it knows. */
  BAD_TYPE(3),
  /** A payload length beyond what the receiver takes (negative included). */
  TOO_LONG(4),
  /** The stream ended inside a frame. */
  TRUNCATED(5),
  /** A payload whose fields do not parse or break their limits. */
  MALFORMED(6),
  /** A known type at the wrong moment (anything but HELLO first, for instance). */
  UNEXPECTED(7),
  /** The peer did not finish a frame (or never said HELLO) in time. */
  STALLED(8),
  /** The server serves as many connections as it takes. */
  TOO_MANY(9),
  /** The peer did not prove it knows the shared secret (or this side has none to prove). */
  UNAUTHORIZED(10),
  /** The peer's own reason, for a code this side does not know. */
  OTHER(255);

  private final int code;

  Refusal(int code) {
    this.code = code;
  }

  /** The code in the ERROR frame. */
  public int code() {
    return code;
  }

  /** The refusal of that code; {@link #OTHER} for a code this side does not know. */
  public static Refusal ofCode(int code) {
    for (Refusal r : values()) {
      if (r.code == code) {
        return r;
      }
    }
    return OTHER;
  }
}
