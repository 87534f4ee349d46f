package dev.fiucx.bootstrap;

import java.io.IOException;

/**
 * A bootstrap frame this side refuses, or an ERROR frame the peer sent: {@link #refusal} says why,
 * the message says what exactly.
 */
public final class BootstrapException extends IOException {
  private static final long serialVersionUID = 1L;
  private final Refusal refusal;
  private final boolean fromPeer;

  public BootstrapException(Refusal refusal, String message) {
    this(refusal, message, false);
  }

  BootstrapException(Refusal refusal, String message, boolean fromPeer) {
    super(message);
    this.refusal = refusal;
    this.fromPeer = fromPeer;
  }

  public Refusal refusal() {
    return refusal;
  }

  /** True when the peer refused (it sent an ERROR frame), false when this side did. */
  public boolean fromPeer() {
    return fromPeer;
  }
}
