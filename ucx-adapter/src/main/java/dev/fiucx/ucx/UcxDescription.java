package dev.fiucx.ucx;

import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import org.openucx.jucx.ucp.UcpContext;

/**
 * The facts {@link UcxTransport#describe} gives of a transport's UCX: version, the effective
 * UCX_TLS, UCX_ATOMIC_MODE and UCX_PROTO_ENABLE, thread mode, failure detection, control route,
 * request slots, allocation limit, errors and the direct path. Its peers' lanes the transport adds.
 *
 * @param setup what the transport decided before it opened UCX
 * @param dataEndpoints endpoints on the data worker
 * @param controlEndpoints endpoints on the control worker, or null where there is none
 * @param controlWorkerFailure why a transport that wanted a control worker has none, or null
 * @param addressBytes the length of the transport's encoded address
 * @param workerHandle the data worker's native ucp_worker_h
 * @param poster the transport's atomic poster (its request slots)
 * @param initiators the initiators the transport serves as a target
 * @param errors what the transport caught and survived
 * @param directPath who executes UCX's atomics, and whether the direct path is on
 */
record UcxDescription(
    UcxSetup setup,
    WorkerEndpoints dataEndpoints,
    WorkerEndpoints controlEndpoints,
    String controlWorkerFailure,
    int addressBytes,
    long workerHandle,
    AtomicPoster poster,
    ServedInitiators initiators,
    UcxErrors errors,
    DirectPath directPath) {

  /** The facts, in the order describe shows them; a new map at each call. */
  Map<String, String> facts() {
    Map<String, String> configOverrides = setup.configOverrides();
    UcxOptions options = setup.options();
    boolean detectPeerFailure = setup.detectPeerFailure();
    Map<String, String> d = new LinkedHashMap<>();
    d.put("provider", "ucx");
    d.put("ucx.version", UcpNative.versionString());
    d.put("ucx.series", UcxSeries.verdict());
    d.put("ucx.api", UcpNative.apiNote());
    d.put("jucx.version", jucxVersion());
    d.put("ucx.tls", String.valueOf(UcpNative.configValue("TLS", configOverrides)));
    d.put("ucx.atomic_mode", String.valueOf(UcpNative.configValue("ATOMIC_MODE", configOverrides)));
    d.put(
        "ucx.protocols",
        (setup.operandKept() ? "v2" : "v1")
            + " (UCX_PROTO_ENABLE="
            + UcpNative.configValue("PROTO_ENABLE", configOverrides)
            + (configOverrides.containsKey("PROTO_ENABLE") ? ", set by fiucx)" : ")"));
    d.put("ucx.thread_mode", options.threadSafe() ? "multi" : "serialized");
    d.put("ucx.peer_failure_detection", detectPeerFailure ? "on" : "off");
    d.put(
        "ucx.control_endpoint",
        controlEndpoints != null
            ? "per peer, on the control worker (tcp, peer-failure handling) where the peer has"
                + " one and it reaches it, else the data endpoint"
            : "the data endpoint");
    d.put(
        "ucx.control_worker",
        controlEndpoints != null
            ? "UCX context of its own (UCX_TLS="
                + ControlWorker.TLS
                + "), "
                + controlEndpoints.addressLength()
                + " address bytes; progressed every "
                + UcxTransport.CONTROL_EVERY
                + "th progress, while control answers are awaited and when its event fd wakes"
            : controlWorkerAbsence());
    d.put(
        "ucx.dead_peers",
        (detectPeerFailure ? "UCX's peer-failure handling; " : "")
            + "processes of peers in this host and pid namespace are watched");
    d.put("ucx.initiators_served", Integer.toString(initiators.served()));
    d.put("ucx.initiator_endpoints", Integer.toString(initiators.endpointCount()));
    d.put("ucx.initiator_claims", initiators.claims());
    d.put("ucx.address_bytes", Integer.toString(addressBytes));
    d.put("ucx.worker.address_bytes", Integer.toString(dataEndpoints.addressLength()));
    d.put("ucx.worker.atomics", DirectPath.workerAtomics(workerHandle));
    d.put("ucx.atomics", directPath.atomics().describe());
    d.put("ucx.verbs_ports", setup.verbsPorts().toString());
    d.put("ucx.set_for_verbs", VerbsSetup.describe(configOverrides, setup.settingReasons()));
    d.put("ucx.environment", environment(configOverrides));
    d.put(
        "ucx.request_slots",
        poster.requestSlots() == 0
            ? "unused (UCX never purges requests without peer-failure detection)"
            : poster.requestSlots()
                + " for fetching atomics in flight, "
                + poster.requestSlotsInUse()
                + " in use; "
                + poster.slotsExhausted()
                + " posts refused with FI_EAGAIN when all were in use");
    d.put(
        "ucx.alloc_limit",
        options.allocationLimit() == 0
            ? "what the machine can back at each allocation ("
                + dev.fiucx.DomainAttr.ALLOC_LIMIT_OPTION
                + "=machine): now "
                + MachineMemory.backable(setup.sharedMemory(), errors).bytes()
                + " bytes"
            : options.allocationLimit()
                + " bytes ("
                + dev.fiucx.DomainAttr.ALLOC_LIMIT_OPTION
                + ")");
    d.put("ucx.errors", errors.summary());
    d.put(
        "ucx.direct_path",
        directPath.on()
            ? "on (native ops on peer memory UCX maps here are CPU atomics on the mapping)"
            : directPath.offReason());
    return d;
  }

  /**
   * The settings fiucx made, as environment variables another UCX program (ucx_perftest) needs to
   * run with the same configuration.
   */
  static String environment(Map<String, String> configOverrides) {
    StringBuilder b = new StringBuilder();
    configOverrides.forEach(
        (k, v) -> b.append(b.isEmpty() ? "" : " ").append("UCX_").append(k).append('=').append(v));
    return b.toString();
  }

  /** Why this transport has no control worker. */
  private String controlWorkerAbsence() {
    if (!setup.options().controlWorker(System.getenv("UCX_TLS"), setup.series())) {
      return "none (the data endpoints have peer-failure handling themselves)";
    }
    return "none (it could not be opened: "
        + controlWorkerFailure
        + "; control goes on the data worker)";
  }

  private String jucxVersion() {
    try (InputStream in =
        UcpContext.class.getResourceAsStream("/META-INF/maven/org.openucx/jucx/pom.properties")) {
      if (in == null) {
        return "unknown";
      }
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("version", "unknown");
    } catch (IOException e) {
      errors.caught("reading jucx's version", e);
      return "unknown";
    }
  }
}
