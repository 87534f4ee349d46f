package dev.fiucx.engine;

import java.lang.System.Logger.Level;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Every exception a domain catches instead of letting it kill a thread or escape a call that must
 * not throw: counted by where it happened, then handed to the application's handler ({@link
 * dev.fiucx.Domain#setErrorHandler}), which by default logs it through the {@code dev.fiucx.engine}
 * logger. The progress thread keeps serving after one: a domain that stopped progressing would
 * silently stop serving its peers' software atomics.
 */
final class DomainErrors {
  /** Where an exception was caught. */
  enum Where {
    /** the transport's progress (completions, peers' software atomics, control messages) */
    PROGRESS,
    /** an emulation engine's step (CAS loop, remote lock) */
    EMULATION,
    /** routing a transport completion to its operation */
    COMPLETION,
    /** the progress thread outside the domain's progress */
    PROGRESS_THREAD,
    /** closing one of the domain's objects */
    CLOSE,
    /** an endpoint's atomic call, which returned {@code -FI_EOTHER} instead of throwing */
    CALL
  }

  static final System.Logger LOG = System.getLogger("dev.fiucx.engine");

  private final String domainName;
  private final Map<Where, AtomicLong> counts = new EnumMap<>(Where.class);

  /** The application's handler, or null for the default: log. */
  private volatile Consumer<? super Throwable> handler;

  DomainErrors(String domainName) {
    this.domainName = domainName;
    for (Where w : Where.values()) {
      counts.put(w, new AtomicLong());
    }
  }

  /** Null restores the default (log through {@code dev.fiucx.engine}). */
  void setHandler(Consumer<? super Throwable> h) {
    handler = h;
  }

  /**
   * Counts {@code t} and hands it to the handler, or logs it (the first ten of each place, then the
   * 16th, 32nd, 64th...). Never throws: a handler that throws is logged, and the caller goes on
   * serving.
   */
  void caught(Where where, Throwable t) {
    long n = counts.get(where).incrementAndGet();
    LOG.log(Level.DEBUG, () -> domainName + ": caught in " + where + ": " + t);
    Consumer<? super Throwable> h = handler;
    try {
      if (h != null) {
        h.accept(t);
      } else if (n <= 10 || Long.bitCount(n) == 1) {
        // an exception that recurs on every progress would otherwise log at the progress rate
        LOG.log(
            Level.ERROR,
            domainName + " caught exception number " + n + " in " + where + " and keeps serving",
            t);
      }
    } catch (Throwable fromHandler) {
      try {
        LOG.log(Level.ERROR, domainName + ": the error handler threw", fromHandler);
      } catch (Throwable ignored) {
        // counted above; a logger that throws leaves nobody to tell, and the caller must go on
      }
    }
  }

  /** How many exceptions were caught at {@code where}. */
  long count(Where where) {
    return counts.get(where).get();
  }

  /** Every count, for {@code describe()}: e.g. {@code progress 0, emulation 0, ...}. */
  String summary() {
    StringBuilder b = new StringBuilder();
    for (Where w : Where.values()) {
      if (!b.isEmpty()) {
        b.append(", ");
      }
      b.append(w.name().toLowerCase(java.util.Locale.ROOT)).append(' ').append(count(w));
    }
    return b.toString();
  }

  /** The total over every place. */
  long total() {
    long n = 0;
    for (AtomicLong c : counts.values()) {
      n += c.get();
    }
    return n;
  }
}
