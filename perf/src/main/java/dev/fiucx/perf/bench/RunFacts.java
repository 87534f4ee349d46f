package dev.fiucx.perf.bench;

import dev.fiucx.AtomicAttr;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What a run ran against, gathered once the initiator is connected: the target, how the cell is
 * carried out, the domain's facts (UCX version, transports, lanes per peer) and the machine.
 *
 * @param target {@code host:port} of the bench target
 * @param targetStarted true when bench started the target itself
 * @param servedRegion the region's name when the target is a {@code fiucx serve}, else null
 * @param targetProgress how a target bench started progresses ({@code spin} or {@code auto}), else
 *     null (a target started apart progresses as it was told there)
 * @param attr the cell as {@code queryAtomic} answers it (null for a matrix: each cell has its own)
 * @param path the path the calls take ({@code Endpoint.atomicPath}: {@code mapped} or {@code ucp})
 * @param domain {@code Domain.describe()} of the (first) initiator domain, after connecting
 */
record RunFacts(
    String target,
    boolean targetStarted,
    String servedRegion,
    String targetProgress,
    AtomicAttr attr,
    String path,
    Map<String, String> domain,
    Map<String, String> machine) {

  /** The same facts with the domain described again (lanes a peer chose on first use). */
  RunFacts withDomain(Map<String, String> described) {
    return new RunFacts(
        target, targetStarted, servedRegion, targetProgress, attr, path, described, machine);
  }

  /** The mechanism as {@code info} prints it: native, cas_loop, remote_lock. */
  String mechanismWord() {
    return attr.mechanism().name().toLowerCase(Locale.ROOT);
  }

  /** The lanes UCX chose per connected peer: {@code ucx.peer.N.lanes} of the domain. */
  Map<String, String> lanes() {
    Map<String, String> lanes = new LinkedHashMap<>();
    domain.forEach(
        (k, v) -> {
          if (k.startsWith("ucx.peer.") && k.endsWith(".lanes")) {
            lanes.put(k, v);
          }
        });
    return lanes;
  }

  String ucxVersion() {
    return domain.getOrDefault("ucx.version", "unknown");
  }

  String ucxTls() {
    return domain.getOrDefault("ucx.tls", "unknown");
  }

  /**
   * The UCX settings fiucx made on the domain's context, as the environment variables another UCX
   * program needs for the same configuration (the provider's {@code ucx.environment}).
   */
  java.util.Map<String, String> ucxEnvironment() {
    return PerftestRunner.ucxEnvironment(domain);
  }
}
