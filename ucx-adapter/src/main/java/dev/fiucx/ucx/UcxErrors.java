package dev.fiucx.ucx;

import java.lang.System.Logger.Level;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a transport caught and did not rethrow (a peer's malformed message, a send or flush UCX
 * refused, a completion handler that failed inside an upcall): counted by place, shown by {@code
 * describe()} as {@code ucx.errors}, and logged on the {@code dev.fiucx.ucx} logger, at DEBUG when
 * a peer caused it (a hostile peer must not flood the log) and at WARNING otherwise.
 */
final class UcxErrors {
  static final System.Logger LOG = System.getLogger("dev.fiucx.ucx");

  private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();

  /** Counts and logs an exception our own side caused or could not handle. */
  void caught(String where, Throwable t) {
    count(where);
    LOG.log(Level.WARNING, "ucx transport caught an exception in " + where, t);
  }

  /**
   * Counts and logs (at DEBUG) what a peer caused: a message we refused, or a send, flush or
   * connection that failed because the peer is gone or unreachable.
   */
  void peerCaused(String where, Throwable t) {
    count(where);
    LOG.log(Level.DEBUG, () -> "ucx transport refused a peer's input in " + where + ": " + t);
  }

  /**
   * Counts and logs (at WARNING, once per key resolved) a region refused because its atomics and
   * ours would not be coherent ({@link AtomicExecution#mixingRefusal}).
   */
  void incoherent(String why) {
    count("incoherent atomics");
    LOG.log(Level.WARNING, "ucx transport refused a region: " + why);
  }

  private void count(String where) {
    counts.computeIfAbsent(where, w -> new AtomicLong()).incrementAndGet();
  }

  /** How many were caught at {@code where}. */
  long countOf(String where) {
    AtomicLong c = counts.get(where);
    return c == null ? 0 : c.get();
  }

  /** {@code none}, or every place with its count, sorted by place. */
  String summary() {
    if (counts.isEmpty()) {
      return "none";
    }
    StringBuilder b = new StringBuilder();
    new TreeMap<>(counts)
        .forEach(
            (w, c) -> {
              if (!b.isEmpty()) {
                b.append(", ");
              }
              b.append(w).append(' ').append(c.get());
            });
    return b.toString();
  }
}
