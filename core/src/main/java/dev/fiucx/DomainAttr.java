package dev.fiucx;

import java.util.Map;

/**
 * How to open a domain: the parts of libfabric's {@code fi_info} (domain and endpoint attributes)
 * that matter to atomics. {@code transport} is provider-specific ({@code shm} or {@code tcp} for
 * ucx; null lets the provider choose); {@code options} carries further provider settings, e.g.
 * {@code threading}: {@code endpoint} (the default, {@code FI_THREAD_ENDPOINT}: one thread at a
 * time per endpoint, a second one gets {@code -FI_EBUSY}) or {@code safe} ({@code FI_THREAD_SAFE}:
 * every call of the domain serialized by one lock); {@code lock_lease_ms}; ucx's {@code
 * direct_path}.
 */
public record DomainAttr(
    String transport, Progress progress, boolean virtualAddressing, Map<String, String> options) {

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

  public DomainAttr {
    progress = progress == null ? Progress.AUTO : progress;
    options = options == null ? Map.of() : Map.copyOf(options);
  }

  /** Provider's choice of transport, automatic progress, offset addressing. */
  public static DomainAttr defaults() {
    return new DomainAttr(null, Progress.AUTO, false, Map.of());
  }
}
