package dev.fiucx.examples.spark;

import dev.fiucx.Connection;
import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The connections of this JVM (a Spark executor, or the driver in {@code local[N]}), one per
 * target, made by the first task that needs it and shared by every later task: a connection is a
 * UCX domain with its worker, address vector and bootstrap socket, far too much to make per task or
 * per record. Tasks take endpoints of their own from it ({@link Connection#openEndpoint}), never
 * share one.
 *
 * <p>Connections are closed by {@link #closeAll}, which the driver calls when the job is over (in
 * {@code local[N]} that closes the executors' too) and a shutdown hook calls when an executor JVM
 * exits, so the target sees every executor depart.
 */
public final class ExecutorConnections {
  /** A connection and which of this JVM's connects made it. */
  record Held(Connection connection, long serial) {}

  private static final Map<String, Held> OPEN = new ConcurrentHashMap<>();
  private static final AtomicLong CONNECTS = new AtomicLong();
  private static final Thread CLOSE_AT_EXIT =
      Thread.ofPlatform()
          .name("fiucx-executor-connections-close")
          .unstarted(ExecutorConnections::closeAll);

  static {
    Runtime.getRuntime().addShutdownHook(CLOSE_AT_EXIT);
  }

  private ExecutorConnections() {}

  /**
   * The connection to {@code target} ({@code host:port} of a {@code fiucx serve}), made now if this
   * JVM has none: one connect per JVM and target however many tasks ask at once (the others wait
   * for it). A failed connect throws {@link dev.fiucx.FiException} and the next caller tries again.
   */
  static Held get(String target) {
    return OPEN.computeIfAbsent(
        target,
        t -> new Held(Fabric.connect(t, DomainAttr.defaults()), CONNECTS.incrementAndGet()));
  }

  /** How many connections this JVM has made so far (reused ones count once). */
  public static long connects() {
    return CONNECTS.get();
  }

  /** Closes every connection of this JVM; the next {@link #get} connects again. */
  public static void closeAll() {
    for (String target : OPEN.keySet()) {
      Held held = OPEN.remove(target);
      if (held != null) {
        held.connection().close();
      }
    }
  }
}
