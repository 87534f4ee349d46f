package dev.fiucx.ucx;

import dev.fiucx.DomainAttr;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;

/**
 * How a {@link UcxTransport} opens.
 *
 * @param transports which UCX transports to use: {@code "shm"} (UCX's shared-memory transports plus
 *     {@code self}), {@code "tcp"}, {@code "rc_verbs"} (with ud_verbs for wire-up, {@link
 *     VerbsSetup}), any other UCX_TLS list passed through as is, or null to leave it to UCX (which
 *     reads the {@code UCX_TLS} environment variable). Each transport has its own UCX context, so
 *     two transports in one JVM may use different lists. Where the list may use shared memory, the
 *     control channel goes on a context of its own on tcp ({@link #controlWorker}).
 * @param threadSafe ask UCX for {@code UCS_THREAD_MODE_MULTI}, so several threads may post and
 *     progress at once; otherwise one thread at a time (UCX aborts when two threads meet in a
 *     single-threaded worker)
 * @param peerFailureDetection UCX's {@code UCP_ERR_HANDLING_MODE_PEER}: a dead peer fails its
 *     endpoint and its pending operations. Null picks it when the transports and the UCX series can
 *     do it: UCX's shared-memory transports cannot ("no peer failure handler"), and asking for it
 *     with them in the list makes UCX drop them; from UCX 1.16 on (protocols v2) an endpoint with
 *     it has no software atomics, which every atomic over tcp is. So it is on only for lists
 *     without shared memory (e.g. {@code "tcp"}) on UCX 1.13 to 1.15; elsewhere a control worker
 *     with it watches each peer ({@link #controlWorker}).
 * @param controlTimeout how long a resolve waits for its answer, and a revoke for its
 *     acknowledgements
 * @param directPath whether native atomics on a peer region that UCX can map into this process
 *     ({@code ucp_rkey_ptr}) are done by this CPU on the mapping instead of through {@code
 *     ucp_atomic_op_nbx}; used only where UCX's own atomics are CPU atomics too
 * @param allocationLimit the largest region {@code allocate} hands out, in bytes, or 0 for what the
 *     machine can back when asked ({@link MachineMemory}); a larger request is {@code FI_ENOMEM} at
 *     once
 */
public record UcxOptions(
    String transports,
    boolean threadSafe,
    Boolean peerFailureDetection,
    Duration controlTimeout,
    boolean directPath,
    long allocationLimit) {

  /**
   * The options a domain was opened with, as this transport takes them.
   *
   * @param attr the domain's attributes
   * @return the options
   */
  public static UcxOptions of(DomainAttr attr) {
    return new UcxOptions(
        attr.transport(),
        attr.progress() == DomainAttr.Progress.AUTO, // the progress thread shares the worker
        attr.peerFailureDetection(),
        attr.controlTimeout(),
        attr.directPath(),
        attr.allocationLimit());
  }

  /** UCX_TLS names that are, or may include, shared memory (UCX 1.13 aliases included). */
  private static final Set<String> SHARED_MEMORY =
      Set.of("all", "sm", "shm", "mm", "posix", "sysv", "self", "cma", "knem", "xpmem");

  /** Checks the control timeout (positive) and the allocation limit (0 or positive). */
  public UcxOptions {
    if (controlTimeout == null || controlTimeout.isNegative() || controlTimeout.isZero()) {
      throw new IllegalArgumentException("controlTimeout must be positive");
    }
    if (allocationLimit < 0) {
      throw new IllegalArgumentException("allocationLimit must be 0 (the machine's) or positive");
    }
  }

  /**
   * {@return UCX's own transport choice (UCX_TLS), single-threaded, 5 s control timeout, direct
   * path}
   */
  public static UcxOptions defaults() {
    return new UcxOptions(null, false, null, Duration.ofSeconds(5), true, 0);
  }

  /**
   * These options with other transports.
   *
   * @param transports the UCX transports, or null for UCX's choice
   * @return the new options
   */
  public UcxOptions withTransports(String transports) {
    return new UcxOptions(
        transports, threadSafe, peerFailureDetection, controlTimeout, directPath, allocationLimit);
  }

  /**
   * These options with another thread mode.
   *
   * @param threadSafe whether several threads may post and progress at once
   * @return the new options
   */
  public UcxOptions withThreadSafe(boolean threadSafe) {
    return new UcxOptions(
        transports, threadSafe, peerFailureDetection, controlTimeout, directPath, allocationLimit);
  }

  /**
   * These options with another peer-failure detection.
   *
   * @param on true or false, or null for the choice described above
   * @return the new options
   */
  public UcxOptions withPeerFailureDetection(Boolean on) {
    return new UcxOptions(transports, threadSafe, on, controlTimeout, directPath, allocationLimit);
  }

  /**
   * These options with another control timeout.
   *
   * @param timeout how long a resolve or revoke waits
   * @return the new options
   */
  public UcxOptions withControlTimeout(Duration timeout) {
    return new UcxOptions(
        transports, threadSafe, peerFailureDetection, timeout, directPath, allocationLimit);
  }

  /**
   * These options with the direct path on or off.
   *
   * @param on whether native atomics on mapped peer memory are CPU atomics
   * @return the new options
   */
  public UcxOptions withDirectPath(boolean on) {
    return new UcxOptions(
        transports, threadSafe, peerFailureDetection, controlTimeout, on, allocationLimit);
  }

  /** The UCX_TLS value to set on the context, or null to leave UCX's own. */
  String tlsOverride() {
    if (transports == null || transports.isBlank()) {
      return null;
    }
    return switch (transports.trim().toLowerCase(Locale.ROOT)) {
      case "shm" -> "sm,self";
      case "tcp" -> "tcp";
      default -> VerbsSetup.tls(transports.trim());
    };
  }

  /**
   * Whether to open data endpoints with peer failure detection, given UCX_TLS from the environment
   * and the UCX series loaded: never where the list may use shared memory (UCX's shared-memory
   * transports cannot do it), nor where the series has no software atomics on such endpoints
   * ({@link UcxSeries#softwareAtomicsWithFailureHandling}); an explicit choice is kept.
   */
  boolean detectPeerFailure(String environmentTls, UcxSeries series) {
    if (peerFailureDetection != null) {
      return peerFailureDetection;
    }
    return !mayUseSharedMemory(environmentTls) && series.softwareAtomicsWithFailureHandling();
  }

  /**
   * Whether the control channel gets a UCX context and worker of its own, on tcp ({@link
   * ControlWorker}): wherever the data endpoints lack peer-failure handling, so that a dead peer is
   * still seen by one endpoint to it. Why it matters: UCX frees an endpoint that was wired up to
   * its peer (every endpoint a target claims for an initiator is) only when it is closed by force,
   * and forces a close only with peer-failure handling; so a shm target kept one endpoint, with its
   * mapping of the initiator's FIFO, per initiator that ever came (about 15 KiB each, until the
   * worker died). On a tcp worker of their own, control endpoints have peer-failure handling and
   * are closed by force; the data worker keeps only the listed transports, so its progress costs
   * what it did (a tcp interface on it would add an epoll_wait to every progress). Where the data
   * endpoints have peer-failure handling ({@code "tcp"} on UCX 1.13) none is needed.
   */
  boolean controlWorker(String environmentTls, UcxSeries series) {
    return !detectPeerFailure(environmentTls, series);
  }

  /**
   * Whether UCX may use its shared-memory transports (whose allocations are files in {@code
   * /dev/shm}), given UCX_TLS from the environment.
   */
  boolean mayUseSharedMemory(String environmentTls) {
    return listsAnyOf(SHARED_MEMORY, environmentTls);
  }

  /**
   * Whether UCX may pick a shared-memory transport to reach another process ({@code self} reaches
   * only this one), given UCX_TLS from the environment.
   */
  boolean mayUseSharedMemoryBetweenProcesses(String environmentTls) {
    return listsAnyOf(BETWEEN_PROCESSES, environmentTls);
  }

  private static final Set<String> BETWEEN_PROCESSES =
      Set.of("all", "sm", "shm", "mm", "posix", "sysv", "cma", "knem", "xpmem");

  /** Whether the effective UCX_TLS names one of {@code names} (a "^" exclusion list may too). */
  private boolean listsAnyOf(Set<String> names, String environmentTls) {
    String tls = tlsOverride();
    if (tls == null) {
      tls = environmentTls == null || environmentTls.isBlank() ? "all" : environmentTls;
    }
    for (String item : tls.toLowerCase(Locale.ROOT).split(",")) {
      String t = item.trim();
      if (t.startsWith("^") || names.contains(t)) {
        return true;
      }
    }
    return false;
  }
}
