package dev.fiucx.ucx;

import java.time.Duration;
import java.util.Locale;
import java.util.Set;

/**
 * How a {@link UcxTransport} opens.
 *
 * @param transports which UCX transports to use: {@code "shm"} (UCX's shared-memory transports plus
 *     {@code self}), {@code "tcp"}, any other UCX_TLS list passed through as is, or null to leave
 *     it to UCX (which reads the {@code UCX_TLS} environment variable). Each transport has its own
 *     UCX context, so two transports in one JVM may use different lists.
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
  /** The domain option ({@code DomainAttr.options}) that turns the direct path off: {@code off}. */
  public static final String DIRECT_PATH_OPTION = "direct_path";

  /**
   * The domain option that sets {@link #allocationLimit}: bytes, with an optional {@code k}, {@code
   * m}, {@code g} or {@code t} (powers of 1024), or {@code machine} (the default).
   */
  public static final String ALLOC_LIMIT_OPTION = "alloc_limit";

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

  /**
   * {@link #ALLOC_LIMIT_OPTION}'s value in bytes: 0 for null or {@code machine}; a positive count
   * with an optional binary suffix; anything else is refused.
   */
  static long parseAllocationLimit(String value) {
    if (value == null || value.trim().equalsIgnoreCase("machine")) {
      return 0;
    }
    String v = value.trim().toLowerCase(Locale.ROOT);
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
      throw new dev.fiucx.FiException(
          dev.fiucx.FiErrno.EINVAL,
          ALLOC_LIMIT_OPTION
              + " must be a positive byte count (optionally k, m, g or t) or machine: "
              + value);
    }
    return n << shift;
  }

  /**
   * {@code on} (the default) or {@code off}, as {@link #DIRECT_PATH_OPTION} says; anything else is
   * refused.
   */
  static boolean parseDirectPath(String value) {
    if (value == null) {
      return true;
    }
    return switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "on", "true" -> true;
      case "off", "false" -> false;
      default ->
          throw new dev.fiucx.FiException(
              dev.fiucx.FiErrno.EINVAL, DIRECT_PATH_OPTION + " must be on or off: " + value);
    };
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
   * Whether UCX may use its shared-memory transports (whose allocations are files in {@code
   * /dev/shm}), given UCX_TLS from the environment.
   */
  boolean mayUseSharedMemory(String environmentTls) {
    String tls = tlsOverride();
    if (tls == null) {
      tls = environmentTls == null || environmentTls.isBlank() ? "all" : environmentTls;
    }
    for (String item : tls.toLowerCase(Locale.ROOT).split(",")) {
      String t = item.trim();
      if (t.startsWith("^") || SHARED_MEMORY.contains(t)) {
        return true;
      }
    }
    return false;
  }
}
