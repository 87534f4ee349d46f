package dev.fiucx.ucx;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a transport decides about UCX before it opens a context: the UCX configuration fiucx sets on
 * top of the environment's, and what the options and the loaded series mean here. Decided once,
 * read by the transport and by its {@link UcxDescription}.
 *
 * @param options how the transport opens
 * @param series what fiucx knows of the UCX series loaded here
 * @param configOverrides UCX configuration set by fiucx (name without {@code UCX_}), in the order
 *     it is applied
 * @param operandKept whether UCX's protocols in use may read an atomic's operand after the call
 *     returned (v2)
 * @param detectPeerFailure whether UCX reports a dead peer by itself (peer-failure handling on
 *     every endpoint)
 * @param sharedMemory whether UCX may allocate in /dev/shm: its free space then bounds allocations
 * @param sharedMemoryBetweenProcesses whether UCX may reach other processes over shared memory
 * @param settingReasons why fiucx set each of {@code configOverrides} it explains (the verbs
 *     settings, {@link VerbsSetup})
 * @param verbsPorts the verbs ports of this machine
 */
record UcxSetup(
    UcxOptions options,
    UcxSeries series,
    Map<String, String> configOverrides,
    boolean operandKept,
    boolean detectPeerFailure,
    boolean sharedMemory,
    boolean sharedMemoryBetweenProcesses,
    Map<String, String> settingReasons,
    VerbsPorts verbsPorts) {

  /**
   * Decides the set-up for {@code options} under the environment's UCX_TLS.
   *
   * @param protoEnable UCX_PROTO_ENABLE for the transport's context ({@code "y"} or {@code "n"}),
   *     or null for the series' choice
   */
  static UcxSetup of(UcxOptions options, String protoEnable) {
    UcxSeries series = UcxSeries.loaded();
    boolean sharedMemory = options.mayUseSharedMemory(System.getenv("UCX_TLS"));
    boolean sharedMemoryBetweenProcesses =
        options.mayUseSharedMemoryBetweenProcesses(System.getenv("UCX_TLS"));
    Map<String, String> overrides = new LinkedHashMap<>();
    String tls = options.tlsOverride();
    if (tls != null) {
      overrides.put("TLS", tls);
    }
    // UCX's default protocols, but v1 where the series' facts say so (UcxSeries#protocolV1Only)
    // and the user set no UCX_PROTO_ENABLE of their own (which bench uses to compare the two)
    if (protoEnable != null) {
      overrides.put("PROTO_ENABLE", protoEnable);
    } else if (series.protocolV1Only() && System.getenv("UCX_PROTO_ENABLE") == null) {
      overrides.put("PROTO_ENABLE", "n");
    }
    // v2 may read an atomic's operand after ucp_atomic_op_nbx returned (at the first send attempt
    // of a request it queued); v1 copies it inside the call
    boolean operandKept = !"n".equalsIgnoreCase(UcpNative.configValue("PROTO_ENABLE", overrides));
    boolean detectPeerFailure = options.detectPeerFailure(System.getenv("UCX_TLS"), series);
    // what UCX needs on verbs ports, where UCX_TLS may use them (may refuse the user's setting)
    Map<String, String> reasons = new LinkedHashMap<>();
    VerbsPorts ports = VerbsPorts.here();
    String effectiveTls = tls != null ? tls : System.getenv("UCX_TLS");
    VerbsSetup.apply(effectiveTls, ports, series, System.getenv(), overrides, reasons);
    return new UcxSetup(
        options,
        series,
        Collections.unmodifiableMap(overrides),
        operandKept,
        detectPeerFailure,
        sharedMemory,
        sharedMemoryBetweenProcesses,
        Collections.unmodifiableMap(reasons),
        ports);
  }
}
