package dev.fiucx.ucx;

import dev.fiucx.DomainAttr;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;

/**
 * How a {@link UcxTransport} opens.
 *
 * @param transports which UCX transports to use: {@code "shm"} (UCX's shared-memory transports plus
 *     {@code self}), {@code "tcp"}, any other UCX_TLS list passed through as is ({@code
 *     "sm,self,tcp"}: shared memory with the control channel on tcp, see {@link #splitControl}), or
 *     null to leave it to UCX (which reads the {@code UCX_TLS} environment variable). Each
 *     transport has its own UCX context, so two transports in one JVM may use different lists.
 * @param threadSafe ask UCX for {@code UCS_THREAD_MODE_MULTI}, so several threads may post and
 *     progress at once; otherwise one thread at a time (UCX aborts when two threads meet in a
 *     single-threaded worker)
 * @param peerFailureDetection UCX's {@code UCP_ERR_HANDLING_MODE_PEER}: a dead peer fails its
 *     endpoint and its pending operations. Null picks it when the transports can do it: UCX 1.13's
 *     shared-memory transports cannot ("no peer failure handler"), and asking for it with them in
 *     the list makes UCX drop them, so it is on only for lists without them (e.g. {@code "tcp"}).
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

  /** The options a domain was opened with, as this transport takes them. */
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

  public UcxOptions {
    if (controlTimeout == null || controlTimeout.isNegative() || controlTimeout.isZero()) {
      throw new IllegalArgumentException("controlTimeout must be positive");
    }
    if (allocationLimit < 0) {
      throw new IllegalArgumentException("allocationLimit must be 0 (the machine's) or positive");
    }
  }

  /** UCX's own transport choice (UCX_TLS), single-threaded, 5 s control timeout, direct path. */
  public static UcxOptions defaults() {
    return new UcxOptions(null, false, null, Duration.ofSeconds(5), true, 0);
  }

  public UcxOptions withTransports(String transports) {
    return new UcxOptions(
        transports, threadSafe, peerFailureDetection, controlTimeout, directPath, allocationLimit);
  }

  public UcxOptions withThreadSafe(boolean threadSafe) {
    return new UcxOptions(
        transports, threadSafe, peerFailureDetection, controlTimeout, directPath, allocationLimit);
  }

  public UcxOptions withPeerFailureDetection(Boolean on) {
    return new UcxOptions(transports, threadSafe, on, controlTimeout, directPath, allocationLimit);
  }

  public UcxOptions withControlTimeout(Duration timeout) {
    return new UcxOptions(
        transports, threadSafe, peerFailureDetection, timeout, directPath, allocationLimit);
  }

  public UcxOptions withDirectPath(boolean on) {
    return new UcxOptions(
        transports, threadSafe, peerFailureDetection, controlTimeout, on, allocationLimit);
  }

  public UcxOptions withAllocationLimit(long bytes) {
    return new UcxOptions(
        transports, threadSafe, peerFailureDetection, controlTimeout, directPath, bytes);
  }

  /** The UCX_TLS value to set on the context, or null to leave UCX's own. */
  String tlsOverride() {
    if (transports == null || transports.isBlank()) {
      return null;
    }
    return switch (transports.trim().toLowerCase(Locale.ROOT)) {
      case "shm" -> "sm,self";
      case "tcp" -> "tcp";
      default -> transports.trim();
    };
  }

  /** Whether to open endpoints with peer failure detection, given UCX_TLS from the environment. */
  boolean detectPeerFailure(String environmentTls) {
    if (peerFailureDetection != null) {
      return peerFailureDetection;
    }
    return !mayUseSharedMemory(environmentTls);
  }

  /**
   * Whether each peer gets a second endpoint, for the control channel only, with peer-failure
   * handling: where failure detection is off (shared memory in the list) and tcp is named in the
   * list too. Why: UCX 1.13 frees an endpoint that was wired up to its peer (every endpoint a
   * target claims for an initiator is) only when it is closed by force, and forces a close only
   * with peer-failure handling, which its shared-memory transports lack; so a shm target kept one
   * endpoint, with its mapping of the initiator's FIFO, per initiator that ever came (23-40 KiB
   * each, until the worker died). With peer-failure handling UCX drops the shared-memory transports
   * from that endpoint and carries it over tcp; the data endpoint, without it, keeps the
   * shared-memory lanes (atomics, ucp_rkey_ptr mappings) and never wires up, so the target holds
   * nothing of UCX's for it. A peer that cannot be reached over tcp falls back to the data endpoint
   * (UcxPeer).
   *
   * <p>Its price, and why {@code "shm"} does not name tcp: while a tcp endpoint is open, every
   * ucp_worker_progress also polls the tcp interface (uct_tcp_iface_progress: one epoll_wait; a
   * bare system call costs 0.3 us on the VM where this was measured, and a bench run made 165,005
   * epoll_wait calls with it against 22 without). The data path's lanes do not change, but every
   * progress call of a worker with a connected peer does: the choice between a flat long-lived
   * target and cheaper progress is the user's.
   */
  boolean splitControl(String environmentTls) {
    if (detectPeerFailure(environmentTls) || !mayUseSharedMemory(environmentTls)) {
      return false;
    }
    String tls = tlsOverride();
    if (tls == null) {
      tls = environmentTls == null ? "" : environmentTls;
    }
    for (String item : tls.toLowerCase(Locale.ROOT).split(",")) {
      if (item.trim().equals("tcp")) {
        return true;
      }
    }
    return false;
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
