package dev.fiucx;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.function.Consumer;

/**
 * How to open a domain: the parts of libfabric's {@code fi_info} (domain and endpoint attributes)
 * that matter to atomics, and fiucx's own settings, typed and validated once, when the attributes
 * are built (a bad value throws {@code FI_EINVAL} there, never deep inside a provider). The
 * provider gets all of it.
 *
 * <table>
 *   <caption>Settings, with their names as domain options, system properties and environment
 *   variables</caption>
 *   <tr><th>setting</th><th>option</th><th>property / variable</th><th>default</th></tr>
 *   <tr><td>{@link #transport}: {@code shm}, {@code tcp} or a {@code UCX_TLS} list for ucx; null
 *       lets the provider choose</td><td>-</td><td>{@code fiucx.transport} / {@code
 *       FIUCX_TRANSPORT}</td><td>null</td></tr>
 *   <tr><td>{@link #progress}: {@code auto} or {@code manual}</td><td>-</td><td>{@code
 *       fiucx.progress}</td><td>auto</td></tr>
 *   <tr><td>{@link #virtualAddressing}: peers pass virtual addresses, not offsets</td><td>-</td>
 *       <td>{@code fiucx.virtual_addressing}</td><td>false</td></tr>
 *   <tr><td>{@link #threading}: {@code endpoint} ({@code FI_THREAD_ENDPOINT}: a second thread in
 *       an endpoint's call gets {@code -FI_EBUSY}), {@code safe} ({@code FI_THREAD_SAFE}: every
 *       call of the domain serialized by one lock) or {@code domain} ({@code FI_THREAD_DOMAIN}: the
 *       application serializes every call of the domain; nothing is checked)</td><td>{@code threading}</td><td>{@code
 *       fiucx.threading}</td><td>endpoint</td></tr>
 *   <tr><td>{@link #lockLease}: how long a remote lock's turn may stay the same before a waiter
 *       takes it (every domain of a job must use the same)</td><td>{@code lock_lease_ms}</td><td>
 *       {@code fiucx.lock_lease_ms}</td><td>10,000 ms</td></tr>
 *   <tr><td>{@link #operationTimeout}: how long an operation may stay in flight before it ends
 *       with {@code FI_ETIMEDOUT} (marked {@link CqErrEntry#uncertain} when it writes: its requests
 *       are still out); over tcp a peer cut off by the network is otherwise waited for as long as
 *       the kernel retransmits</td><td>{@code operation_timeout_ms}</td><td>{@code
 *       fiucx.operation_timeout_ms}</td><td>30,000 ms</td></tr>
 *   <tr><td>{@link #controlTimeout}: how long a key's resolution waits for its answer, and a
 *       revocation for its acknowledgements</td><td>{@code control_timeout_ms}</td><td>{@code
 *       fiucx.control_timeout_ms}</td><td>5,000 ms</td></tr>
 *   <tr><td>{@link #peerFailureDetection}: {@code on}, {@code off} or {@code auto} (the provider's
 *       choice: ucx turns it on where its transports can detect a dead peer)</td><td>{@code
 *       peer_failure_detection}</td><td>{@code fiucx.peer_failure_detection}</td><td>auto</td></tr>
 *   <tr><td>{@link #directPath}: native atomics on peer memory mapped into this process are CPU
 *       atomics on the mapping</td><td>{@code direct_path}</td><td>{@code fiucx.direct_path}</td>
 *       <td>on</td></tr>
 *   <tr><td>{@link #allocationLimit}: the largest region {@code allocateMemory} hands out, bytes
 *       with an optional {@code k}/{@code m}/{@code g}/{@code t}, or {@code machine} (what the
 *       machine can back when asked)</td><td>{@code alloc_limit}</td><td>{@code
 *       fiucx.alloc_limit}</td><td>machine</td></tr>
 *   <tr><td>{@link #errorHandler}: told of every exception the domain catches and survives (its
 *       progress thread's, say)</td><td>-</td><td>-</td><td>none (counted and logged)</td></tr>
 * </table>
 *
 * <p>An environment variable is the property's name in upper case with {@code .} as {@code _}
 * ({@code FIUCX_LOCK_LEASE_MS}); {@link #fromEnvironment} reads both, a system property winning.
 *
 * <p><b>Threads.</b> The attributes are immutable and may be shared between threads; a {@link
 * Builder} is one thread's. {@link #threading} chooses the rules for the domain's endpoints,
 * completion queues and counters ({@link Threading}).
 *
 * <p><b>Errors.</b> The constructor, {@link Builder#build}, {@link Builder#option}, {@link
 * Builder#options}, {@link Builder#fromEnvironment} and {@link #fromEnvironment} throw {@link
 * FiException} with {@code FI_EINVAL} for an unknown option or a bad value.
 */
public final class DomainAttr {
  /** libfabric's {@code enum fi_progress} for data. */
  public enum Progress {
    /**
     * {@code FI_PROGRESS_AUTO}, the default: a provider thread progresses, so a process that only
     * exposes memory still serves its peers' software atomics (UCX runs them in the target's
     * progress over TCP and on registered memory).
     */
    AUTO,
    /**
     * {@code FI_PROGRESS_MANUAL}: reading a CQ or counter progresses, and nothing else does; the
     * lowest latency for an initiator, but a target that never reads stalls its initiators.
     */
    MANUAL
  }

  /** libfabric's threading models that fiucx offers. */
  public enum Threading {
    /**
     * {@code FI_THREAD_ENDPOINT}, the default: one thread at a time per endpoint; another gets
     * -FI_EBUSY and nothing is posted. Threads may take turns on an endpoint when the application
     * orders them. Under manual progress the domain's endpoints, completion queue reads and counter
     * progress share one guard, so one thread at a time in the whole domain (a counter read that
     * finds it taken returns its count without progressing).
     */
    ENDPOINT,
    /**
     * {@code FI_THREAD_SAFE}: any thread may call the domain's endpoints, completion queues and
     * counters at any time. The endpoints' operation calls, queue reads and counter progress of the
     * domain are serialized by one lock: a second thread waits for it (a counter read that finds it
     * taken returns its count without progressing). An endpoint's set-up calls are not locked.
     */
    SAFE,
    /**
     * {@code FI_THREAD_DOMAIN}: the application serializes every call on the domain's objects
     * (endpoints, completion queues, counters), so fiucx takes no guard at all: a second thread
     * inside at the same time is not detected, and may corrupt the endpoint's state. What
     * ucx_perftest's single-thread UCX mode is; it saves two compare-and-swaps per call and read.
     */
    DOMAIN
  }

  /** The domain option of {@link #threading}: {@code endpoint}, {@code safe} or {@code domain}. */
  public static final String THREADING_OPTION = "threading";

  /** The domain option of {@link #lockLease}, in milliseconds. */
  public static final String LOCK_LEASE_OPTION = "lock_lease_ms";

  /** The domain option of {@link #operationTimeout}, in milliseconds. */
  public static final String OPERATION_TIMEOUT_OPTION = "operation_timeout_ms";

  /** The domain option of {@link #controlTimeout}, in milliseconds. */
  public static final String CONTROL_TIMEOUT_OPTION = "control_timeout_ms";

  /**
   * The domain option of {@link #peerFailureDetection}: {@code on}, {@code off} or {@code auto}.
   */
  public static final String PEER_FAILURE_DETECTION_OPTION = "peer_failure_detection";

  /** The domain option of {@link #directPath}: {@code on} or {@code off}. */
  public static final String DIRECT_PATH_OPTION = "direct_path";

  /** The domain option of {@link #allocationLimit}: bytes (k, m, g, t) or {@code machine}. */
  public static final String ALLOC_LIMIT_OPTION = "alloc_limit";

  /**
   * The remote lock's lease when none is set. Long, because a lease can only guess that a holder is
   * dead, and a live holder whose put is delayed past it loses atomicity (over tcp on an overloaded
   * machine a step went without completion for over 10 s); dead holders are freed at once by the
   * target wherever it sees them die (tcp, same-host processes).
   */
  public static final Duration DEFAULT_LOCK_LEASE = Duration.ofSeconds(10);

  /**
   * The operation timeout when none is set: three lock leases, so that an operation queued behind a
   * lock whose holder died still ends well inside it.
   */
  public static final Duration DEFAULT_OPERATION_TIMEOUT = Duration.ofSeconds(30);

  /** The control timeout when none is set. */
  public static final Duration DEFAULT_CONTROL_TIMEOUT = Duration.ofSeconds(5);

  private static final List<String> OPTIONS =
      List.of(
          THREADING_OPTION,
          LOCK_LEASE_OPTION,
          OPERATION_TIMEOUT_OPTION,
          CONTROL_TIMEOUT_OPTION,
          PEER_FAILURE_DETECTION_OPTION,
          DIRECT_PATH_OPTION,
          ALLOC_LIMIT_OPTION);

  private final String transport;
  private final Progress progress;
  private final boolean virtualAddressing;
  private final Threading threading;
  private final Duration lockLease;
  private final Duration operationTimeout;
  private final Duration controlTimeout;
  private final Boolean peerFailureDetection;
  private final boolean directPath;
  private final long allocationLimit;
  private final Consumer<? super Throwable> errorHandler;

  private DomainAttr(Builder b) {
    this.transport = b.transport == null || b.transport.isBlank() ? null : b.transport.trim();
    this.progress = b.progress == null ? Progress.AUTO : b.progress;
    this.virtualAddressing = b.virtualAddressing;
    this.threading = b.threading == null ? Threading.ENDPOINT : b.threading;
    this.lockLease = positive(LOCK_LEASE_OPTION, b.lockLease);
    this.operationTimeout = positive(OPERATION_TIMEOUT_OPTION, b.operationTimeout);
    this.controlTimeout = positive(CONTROL_TIMEOUT_OPTION, b.controlTimeout);
    this.peerFailureDetection = b.peerFailureDetection;
    this.directPath = b.directPath;
    if (b.allocationLimit < 0) {
      throw invalid(ALLOC_LIMIT_OPTION, "must be 0 (the machine's) or positive", b.allocationLimit);
    }
    this.allocationLimit = b.allocationLimit;
    this.errorHandler = b.errorHandler;
  }

  /**
   * The attributes with {@code options}, the domain options of the table above by name, parsed and
   * checked now: an unknown name or a bad value throws {@code FI_EINVAL}.
   *
   * @param transport the transport, provider-specific, or null for the provider's choice
   * @param progress automatic or manual progress
   * @param virtualAddressing whether peers pass this domain's virtual addresses (else byte offsets)
   * @param options domain options by name
   */
  public DomainAttr(
      String transport, Progress progress, boolean virtualAddressing, Map<String, String> options) {
    this(
        builder()
            .transport(transport)
            .progress(progress)
            .virtualAddressing(virtualAddressing)
            .options(options == null ? Map.of() : options));
  }

  /**
   * {@return the provider's choice of transport, automatic progress, offset addressing, every
   * default}
   */
  public static DomainAttr defaults() {
    return builder().build();
  }

  /** {@return the defaults, with what the environment and then the system properties set} */
  public static DomainAttr fromEnvironment() {
    return builder().fromEnvironment(System.getenv(), System.getProperties()).build();
  }

  /** {@return A builder holding the defaults} */
  public static Builder builder() {
    return new Builder();
  }

  /** {@return A builder holding these attributes} */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.transport = transport;
    b.progress = progress;
    b.virtualAddressing = virtualAddressing;
    b.threading = threading;
    b.lockLease = lockLease;
    b.operationTimeout = operationTimeout;
    b.controlTimeout = controlTimeout;
    b.peerFailureDetection = peerFailureDetection;
    b.directPath = directPath;
    b.allocationLimit = allocationLimit;
    b.errorHandler = errorHandler;
    return b;
  }

  /**
   * {@return the transport, provider-specific: {@code shm}, {@code tcp} or a {@code UCX_TLS} list
   * for ucx; or null}
   */
  public String transport() {
    return transport;
  }

  /** {@return automatic or manual progress} */
  public Progress progress() {
    return progress;
  }

  /**
   * {@return whether peers pass this domain's virtual addresses (else byte offsets into the
   * region)}
   */
  public boolean virtualAddressing() {
    return virtualAddressing;
  }

  /** {@return the threading model: endpoint, safe or domain} */
  public Threading threading() {
    return threading;
  }

  /** {@return how long a remote lock's turn may stay the same before a waiter takes it} */
  public Duration lockLease() {
    return lockLease;
  }

  /** {@return how long an operation may stay in flight before it ends with {@code FI_ETIMEDOUT}} */
  public Duration operationTimeout() {
    return operationTimeout;
  }

  /**
   * {@return how long a key's resolution waits for its answer, a revocation for its
   * acknowledgements}
   */
  public Duration controlTimeout() {
    return controlTimeout;
  }

  /** {@return true or false when set, null for the provider's choice} */
  public Boolean peerFailureDetection() {
    return peerFailureDetection;
  }

  /**
   * {@return whether native atomics on peer memory mapped into this process are CPU atomics on it}
   */
  public boolean directPath() {
    return directPath;
  }

  /**
   * {@return the largest region {@code allocateMemory} hands out, in bytes; 0: what the machine
   * backs}
   */
  public long allocationLimit() {
    return allocationLimit;
  }

  /**
   * {@return the handler told of every exception the domain catches and survives; null for none}
   */
  public Consumer<? super Throwable> errorHandler() {
    return errorHandler;
  }

  /**
   * {@return the settings that have domain options, as their option strings (what a config file
   * holds)}
   */
  public Map<String, String> options() {
    Map<String, String> o = new LinkedHashMap<>();
    o.put(THREADING_OPTION, threading.name().toLowerCase(Locale.ROOT));
    o.put(LOCK_LEASE_OPTION, Long.toString(lockLease.toMillis()));
    o.put(OPERATION_TIMEOUT_OPTION, Long.toString(operationTimeout.toMillis()));
    o.put(CONTROL_TIMEOUT_OPTION, Long.toString(controlTimeout.toMillis()));
    o.put(
        PEER_FAILURE_DETECTION_OPTION,
        peerFailureDetection == null ? "auto" : peerFailureDetection ? "on" : "off");
    o.put(DIRECT_PATH_OPTION, directPath ? "on" : "off");
    o.put(ALLOC_LIMIT_OPTION, allocationLimit == 0 ? "machine" : Long.toString(allocationLimit));
    return Map.copyOf(o);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DomainAttr a
        && Objects.equals(transport, a.transport)
        && progress == a.progress
        && virtualAddressing == a.virtualAddressing
        && threading == a.threading
        && lockLease.equals(a.lockLease)
        && operationTimeout.equals(a.operationTimeout)
        && controlTimeout.equals(a.controlTimeout)
        && Objects.equals(peerFailureDetection, a.peerFailureDetection)
        && directPath == a.directPath
        && allocationLimit == a.allocationLimit
        && Objects.equals(errorHandler, a.errorHandler);
  }

  @Override
  public int hashCode() {
    return Objects.hash(transport, progress, virtualAddressing, threading, lockLease);
  }

  @Override
  public String toString() {
    return "DomainAttr[transport="
        + transport
        + ", progress="
        + progress
        + ", virtualAddressing="
        + virtualAddressing
        + ", "
        + new java.util.TreeMap<>(options())
        + "]";
  }

  /** Builds {@link DomainAttr}: typed setters; {@link #build} checks what they cannot. */
  public static final class Builder {
    private String transport;
    private Progress progress = Progress.AUTO;
    private boolean virtualAddressing;
    private Threading threading = Threading.ENDPOINT;
    private Duration lockLease = DEFAULT_LOCK_LEASE;
    private Duration operationTimeout = DEFAULT_OPERATION_TIMEOUT;
    private Duration controlTimeout = DEFAULT_CONTROL_TIMEOUT;
    private Boolean peerFailureDetection;
    private boolean directPath = true;
    private long allocationLimit;
    private Consumer<? super Throwable> errorHandler;

    private Builder() {}

    /**
     * Sets the transport.
     *
     * @param transport provider-specific ({@code shm}, {@code tcp}, a {@code UCX_TLS} list for
     *     ucx), or null for the provider's choice
     * @return this builder
     */
    public Builder transport(String transport) {
      this.transport = transport;
      return this;
    }

    /**
     * Sets the progress model.
     *
     * @param progress automatic or manual progress
     * @return this builder
     */
    public Builder progress(Progress progress) {
      this.progress = progress;
      return this;
    }

    /**
     * Sets the addressing.
     *
     * @param on virtual addresses; false: byte offsets into the region
     * @return this builder
     */
    public Builder virtualAddressing(boolean on) {
      this.virtualAddressing = on;
      return this;
    }

    /**
     * Sets the threading model.
     *
     * @param threading endpoint, safe or domain
     * @return this builder
     */
    public Builder threading(Threading threading) {
      this.threading = threading;
      return this;
    }

    /**
     * Sets the remote lock's lease.
     *
     * @param lease how long a lock unchanged may be held before others take it over
     * @return this builder
     */
    public Builder lockLease(Duration lease) {
      this.lockLease = lease;
      return this;
    }

    /**
     * Sets how long an operation may stay in flight before it ends with {@code FI_ETIMEDOUT}.
     *
     * @param timeout the longest an operation waits for its peer
     * @return this builder
     */
    public Builder operationTimeout(Duration timeout) {
      this.operationTimeout = timeout;
      return this;
    }

    /**
     * Sets how long a key's resolution and a revocation's acknowledgements wait at most.
     *
     * @param timeout the longest wait
     * @return this builder
     */
    public Builder controlTimeout(Duration timeout) {
      this.controlTimeout = timeout;
      return this;
    }

    /**
     * Peer-failure detection on or off.
     *
     * @param on true or false, or null for the provider's choice
     * @return this builder
     */
    public Builder peerFailureDetection(Boolean on) {
      this.peerFailureDetection = on;
      return this;
    }

    /**
     * Sets the direct shared-memory path on or off.
     *
     * @param on whether native ops on mapped peer memory are CPU atomics
     * @return this builder
     */
    public Builder directPath(boolean on) {
      this.directPath = on;
      return this;
    }

    /**
     * The largest region {@code allocateMemory} hands out.
     *
     * @param bytes bytes, or 0 for what the machine can back when asked
     * @return this builder
     */
    public Builder allocationLimit(long bytes) {
      this.allocationLimit = bytes;
      return this;
    }

    /**
     * Sets who hears of exceptions the domain survives.
     *
     * @param handler the handler, or null for the default (logged)
     * @return this builder
     */
    public Builder errorHandler(Consumer<? super Throwable> handler) {
      this.errorHandler = handler;
      return this;
    }

    /**
     * Sets what {@code options} names (the domain options of the table), parsed now: an unknown
     * name or a bad value throws {@code FI_EINVAL}.
     *
     * @param options domain options by name
     * @return this builder
     */
    public Builder options(Map<String, String> options) {
      for (Map.Entry<String, String> e : options.entrySet()) {
        option(e.getKey(), e.getValue());
      }
      return this;
    }

    /**
     * Sets one domain option by name, parsed now: an unknown name or a bad value throws {@code
     * FI_EINVAL}.
     *
     * @param name the option's name, e.g. {@code lock_lease_ms}
     * @param value its value, as in the table of domain options
     * @return this builder
     */
    public Builder option(String name, String value) {
      if (name == null || value == null) {
        throw new FiException(FiErrno.EINVAL, "a domain option needs a name and a value");
      }
      String v = value.trim();
      switch (name.trim()) {
        case THREADING_OPTION -> threading = threadingOf(v);
        case LOCK_LEASE_OPTION -> lockLease = Duration.ofMillis(positiveLong(name, v));
        case CONTROL_TIMEOUT_OPTION -> controlTimeout = Duration.ofMillis(positiveLong(name, v));
        case OPERATION_TIMEOUT_OPTION ->
            operationTimeout = Duration.ofMillis(positiveLong(name, v));
        case PEER_FAILURE_DETECTION_OPTION ->
            peerFailureDetection = v.equalsIgnoreCase("auto") ? null : onOff(name, v);
        case DIRECT_PATH_OPTION -> directPath = onOff(name, v);
        case ALLOC_LIMIT_OPTION -> allocationLimit = bytes(name, v);
        default ->
            throw new FiException(
                FiErrno.EINVAL, "unknown domain option '" + name + "'; known: " + OPTIONS);
      }
      return this;
    }

    /**
     * Sets what the environment ({@code FIUCX_*}) and then the system properties ({@code fiucx.*})
     * name: transport, progress, virtual_addressing and every domain option.
     *
     * @param environment the environment, e.g. {@code System.getenv()}
     * @param properties the system properties, e.g. {@code System.getProperties()}
     * @return this builder
     */
    public Builder fromEnvironment(Map<String, String> environment, Properties properties) {
      List<String> names = new java.util.ArrayList<>(OPTIONS);
      names.addAll(List.of("transport", "progress", "virtual_addressing"));
      for (String n : names) {
        String fromEnv = environment.get("FIUCX_" + n.toUpperCase(Locale.ROOT));
        String fromProperty = properties.getProperty("fiucx." + n);
        String v = fromProperty != null ? fromProperty : fromEnv;
        if (v == null) {
          continue;
        }
        switch (n) {
          case "transport" -> transport = v;
          case "progress" ->
              progress =
                  switch (v.trim().toLowerCase(Locale.ROOT)) {
                    case "auto" -> Progress.AUTO;
                    case "manual" -> Progress.MANUAL;
                    default -> throw invalid("progress", "must be auto or manual", v);
                  };
          case "virtual_addressing" -> virtualAddressing = onOff(n, v);
          default -> option(n, v);
        }
      }
      return this;
    }

    /** {@return the attributes, checked} */
    public DomainAttr build() {
      return new DomainAttr(this);
    }
  }

  private static Threading threadingOf(String v) {
    return switch (v.toLowerCase(Locale.ROOT)) {
      case "endpoint" -> Threading.ENDPOINT;
      case "safe" -> Threading.SAFE;
      case "domain" -> Threading.DOMAIN;
      default -> throw invalid(THREADING_OPTION, "must be endpoint, safe or domain", v);
    };
  }

  private static boolean onOff(String name, String v) {
    return switch (v.toLowerCase(Locale.ROOT)) {
      case "on", "true" -> true;
      case "off", "false" -> false;
      default -> throw invalid(name, "must be on or off", v);
    };
  }

  private static long positiveLong(String name, String v) {
    long n;
    try {
      n = Long.parseLong(v);
    } catch (NumberFormatException e) {
      n = -1;
    }
    if (n <= 0) {
      throw invalid(name, "must be a positive integer", v);
    }
    return n;
  }

  /** Bytes with an optional binary suffix, or {@code machine} for 0. */
  private static long bytes(String name, String value) {
    String v = value.toLowerCase(Locale.ROOT);
    String given = value;
    if (v.equals("machine")) {
      return 0;
    }
    int shift =
        v.isEmpty()
            ? 0
            : switch (v.charAt(v.length() - 1)) {
              case 'k' -> 10;
              case 'm' -> 20;
              case 'g' -> 30;
              case 't' -> 40;
              default -> 0;
            };
    String digits = shift == 0 ? v : v.substring(0, v.length() - 1);
    long n;
    try {
      n = Long.parseLong(digits);
    } catch (NumberFormatException e) {
      n = -1;
    }
    if (n <= 0 || n > (Long.MAX_VALUE >> shift)) {
      throw invalid(
          name, "must be a positive byte count (optionally k, m, g or t) or machine", given);
    }
    return n << shift;
  }

  private static Duration positive(String name, Duration d) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw invalid(name, "must be positive", d);
    }
    return d;
  }

  private static FiException invalid(String name, String rule, Object value) {
    return new FiException(FiErrno.EINVAL, name + " " + rule + ": " + value);
  }
}
