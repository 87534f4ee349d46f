package dev.fiucx.examples.spark;

import dev.fiucx.BootstrapSecurity;
import dev.fiucx.ConnectedEndpoint;
import dev.fiucx.Connection;
import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The connections of this JVM (a Spark executor, or the driver in {@code local[N]}), one per
 * target, made by the first task that needs it and shared by every later task: a connection is a
 * UCX domain with its worker, address vector and bootstrap socket, far too much to make per task or
 * per record. Each running task borrows an endpoint of its own ({@code FI_THREAD_ENDPOINT}: one
 * thread at a time per endpoint) and gives it back when it ends, so an executor opens as many
 * endpoints as it runs tasks at once, and their UCX endpoints and resolved keys serve task after
 * task (over TCP, opening an endpoint and resolving the key cost more than a small task's work).
 *
 * <p>A task whose fetches failed ({@link dev.fiucx.FiException}: the serve stopped, restarted or
 * died) retires the connection, so the next task, such as Spark's retry of it, connects afresh
 * instead of failing on a dead serve's keys. A retired connection is not closed at once, as other
 * tasks may still be inside its calls; it is closed with the others.
 *
 * <p>Connections are closed by {@link #closeAll}, which the driver calls when the job is over (in
 * {@code local[N]} that closes the executors' too) and a shutdown hook calls when an executor JVM
 * exits, so the target sees every executor depart.
 */
public final class ExecutorConnections {
  /** Completions each task endpoint's queue has room for: its window of fetches. */
  static final int CQ_SIZE = TicketTaker.WINDOW;

  /** A connection, which of this JVM's connects made it, and its idle task endpoints. */
  static final class Held {
    private final Connection connection;
    private final long serial;
    private final ConcurrentLinkedQueue<ConnectedEndpoint> idle = new ConcurrentLinkedQueue<>();

    private Held(Connection connection, long serial) {
      this.connection = connection;
      this.serial = serial;
    }

    Connection connection() {
      return connection;
    }

    /** Which of this JVM's connects made the connection (1, 2, ...). */
    long serial() {
      return serial;
    }

    /**
     * An endpoint for this task's thread alone until {@link #giveBack}: an idle one, or a new one
     * when all are in use. The queue hands it over with a happens-before edge, as {@code
     * FI_THREAD_ENDPOINT} asks of threads that take turns on an endpoint.
     */
    ConnectedEndpoint borrow() {
      ConnectedEndpoint ep = idle.poll();
      if (ep != null) {
        return ep;
      }
      ep = connection.openEndpoint(CQ_SIZE);
      ENDPOINTS.incrementAndGet();
      return ep;
    }

    /**
     * Returns an endpoint whose task ended cleanly: nothing in flight, its queue empty. A task that
     * failed closes its endpoint instead.
     */
    void giveBack(ConnectedEndpoint ep) {
      idle.add(ep);
    }
  }

  private static final Map<String, Held> OPEN = new ConcurrentHashMap<>();
  private static final Set<Held> RETIRED = ConcurrentHashMap.newKeySet();
  private static final AtomicLong CONNECTS = new AtomicLong();
  private static final AtomicLong ENDPOINTS = new AtomicLong();
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
   * The serve's shared secret, if it has one, comes from the executor's {@code FIUCX_SECRET}
   * ({@code spark.executorEnv.FIUCX_SECRET}).
   */
  static Held get(String target) {
    return OPEN.computeIfAbsent(
        target,
        t -> new Held(Fabric.connect(t, attributes(), security()), CONNECTS.incrementAndGet()));
  }

  private static BootstrapSecurity security() {
    byte[] secret = BootstrapSecurity.secretFrom(null);
    return secret == null ? BootstrapSecurity.none() : BootstrapSecurity.none().withSecret(secret);
  }

  /**
   * How this JVM's connections open their domains: what the environment says ({@code FIUCX_*}
   * variables, {@code -Dfiucx.*} in {@code spark.executor.extraJavaOptions}; see {@link
   * DomainAttr}), with automatic progress always: the tasks share the domain, and under manual
   * progress a domain is one thread's at a time.
   */
  static DomainAttr attributes() {
    return DomainAttr.fromEnvironment().toBuilder().progress(DomainAttr.Progress.AUTO).build();
  }

  /**
   * Takes {@code held} out of use after a failure of its serve: the next {@link #get} for {@code
   * target} connects again. Retiring it twice, or after a newer connection took its place, does
   * nothing more.
   */
  static void retire(String target, Held held) {
    if (OPEN.remove(target, held)) {
      RETIRED.add(held);
    }
  }

  /** How many connections this JVM has made so far (reused ones count once). */
  public static long connects() {
    return CONNECTS.get();
  }

  /** How many task endpoints this JVM has opened so far (reused ones count once). */
  public static long endpointsOpened() {
    return ENDPOINTS.get();
  }

  /**
   * Closes every connection of this JVM, retired ones too; the next {@link #get} connects again.
   * Call it when no task runs.
   */
  public static void closeAll() {
    for (String target : OPEN.keySet()) {
      Held held = OPEN.remove(target);
      if (held != null) {
        held.connection.close();
      }
    }
    for (Held held : RETIRED) {
      RETIRED.remove(held);
      held.connection.close();
    }
  }
}
