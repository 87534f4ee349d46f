package dev.fiucx.ucx;

import java.util.Map;
import java.util.Set;

/**
 * Whether peers' regions that UCX maps into this process may get CPU atomics on the mapping (the
 * direct path). It is honest only where every atomic on the memory is a CPU atomic: the option is
 * on, UCX is not told to use device (NIC) atomics, the worker's atomic resources are all memory
 * domains whose atomics the CPU executes, and the CPU atomics were seen right here.
 */
final class DirectPath {
  /** UCX memory domains whose atomics are executed by a CPU (shared memory, self, software). */
  private static final Set<String> CPU_ATOMIC_DOMAINS =
      Set.of("self", "sysv", "posix", "xpmem", "cma", "knem", "tcp");

  private DirectPath() {}

  /**
   * Why the direct path is off for the worker {@code workerHandle} of a context configured with
   * {@code configOverrides}, or null when it is on.
   */
  static String offReason(
      UcxOptions options, Map<String, String> configOverrides, long workerHandle) {
    if (!options.directPath()) {
      return "off (" + dev.fiucx.DomainAttr.DIRECT_PATH_OPTION + "=off)";
    }
    String mode = UcpNative.configValue("ATOMIC_MODE", configOverrides);
    if ("device".equalsIgnoreCase(mode)) {
      return "off (UCX_ATOMIC_MODE=device: NIC atomics are not coherent with CPU atomics)";
    }
    String resources = workerAtomics(workerHandle);
    for (String r : resources.split(",")) {
      String md = r.replaceFirst("^\\s*\\d+:", "").replaceFirst("/.*", "").trim();
      if (!md.isEmpty() && !CPU_ATOMIC_DOMAINS.contains(md)) {
        return "off (UCX has device atomics on " + md + ")";
      }
    }
    String wrong = MappedAtomics.selfTest();
    return wrong == null ? null : "off (" + wrong + ")";
  }

  /** The "atomics:" line of ucp_worker_print_info: the worker's atomic resources. */
  static String workerAtomics(long workerHandle) {
    return UcpNative.workerInfo(workerHandle)
        .lines()
        .map(l -> l.replaceFirst("^#\\s*", ""))
        .filter(l -> l.startsWith("atomics:"))
        .map(l -> l.substring("atomics:".length()).trim())
        .findFirst()
        .orElse("");
  }
}
