package dev.fiucx.ucx;

import java.util.Map;

/**
 * Whether peers' regions that UCX maps into this process may get CPU atomics on the mapping (the
 * direct path), and who executes the atomics UCX does for the worker. The direct path is honest
 * only where every atomic on the memory is a CPU atomic: the option is on, UCX is not told to use
 * device (NIC) atomics, the worker's atomic resources are all CPU ones ({@link AtomicExecution}),
 * and the CPU atomics were seen right here. A target whose memory a device updates says so when it
 * resolves a key, and that region is never mapped ({@link UcxPeer}).
 *
 * @param atomics who executes the worker's UCX atomics
 * @param offReason why the direct path is off, or null when it is on
 */
record DirectPath(AtomicExecution atomics, String offReason) {

  /** {@return whether the direct path is on} */
  boolean on() {
    return offReason == null;
  }

  /**
   * The decision for the worker {@code workerHandle} of a context configured with {@code
   * configOverrides}.
   */
  static DirectPath of(UcxOptions options, Map<String, String> configOverrides, long workerHandle) {
    AtomicExecution atomics = AtomicExecution.of(workerAtomics(workerHandle));
    return new DirectPath(atomics, offReason(options, configOverrides, atomics));
  }

  private static String offReason(
      UcxOptions options, Map<String, String> configOverrides, AtomicExecution atomics) {
    if (!options.directPath()) {
      return "off (" + dev.fiucx.DomainAttr.DIRECT_PATH_OPTION + "=off)";
    }
    String mode = UcpNative.configValue("ATOMIC_MODE", configOverrides);
    if ("device".equalsIgnoreCase(mode)) {
      return "off (UCX_ATOMIC_MODE=device: NIC atomics are not coherent with CPU atomics)";
    }
    if (atomics.kind() == AtomicExecution.Kind.DEVICE) {
      return "off (UCX has device atomics on "
          + String.join(", ", atomics.deviceLanes())
          + ": NIC atomics are not coherent with CPU atomics)";
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
