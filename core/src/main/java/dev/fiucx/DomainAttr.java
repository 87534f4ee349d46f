package dev.fiucx;

import java.util.Map;

/**
 * How to open a domain: the parts of libfabric's {@code fi_info} (domain and endpoint attributes)
 * that matter to atomics. {@code transport} is provider-specific ({@code shm} or {@code tcp} for
 * ucx; null lets the provider choose); {@code options} carries further provider settings.
 */
public record DomainAttr(
    String transport, Progress progress, boolean virtualAddressing, Map<String, String> options) {

  /** libfabric's {@code enum fi_progress} for data. */
  public enum Progress {
    /** {@code FI_PROGRESS_AUTO}: a provider thread progresses. */
    AUTO,
    /** {@code FI_PROGRESS_MANUAL}: reading a CQ or counter progresses. */
    MANUAL
  }

  public DomainAttr {
    progress = progress == null ? Progress.MANUAL : progress;
    options = options == null ? Map.of() : Map.copyOf(options);
  }

  /** Provider's choice of transport, manual progress, offset addressing. */
  public static DomainAttr defaults() {
    return new DomainAttr(null, Progress.MANUAL, false, Map.of());
  }
}
