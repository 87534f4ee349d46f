package dev.fiucx.cli;

import java.util.function.Consumer;

/**
 * SIGTERM and SIGINT as events instead of a JVM shutdown: a handler lets {@code serve} stop through
 * its main thread and exit with status 0 (a shutdown hook alone ends the JVM with 143 or 130).
 */
final class Signals {
  private Signals() {}

  /** Calls {@code handler} with {@code SIGTERM} or {@code SIGINT} when one arrives. */
  static void onTermOrInt(Consumer<String> handler) {
    for (String name : new String[] {"TERM", "INT"}) {
      sun.misc.Signal.handle(new sun.misc.Signal(name), s -> handler.accept("SIG" + s.getName()));
    }
  }
}
