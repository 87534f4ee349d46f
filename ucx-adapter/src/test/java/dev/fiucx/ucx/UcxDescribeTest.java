package dev.fiucx.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** describe(): what the info command shows about a transport. */
@RequiresUcx
class UcxDescribeTest {
  private static String expectedAtomicMode() {
    String env = System.getenv("UCX_ATOMIC_MODE");
    return env == null ? "guess" : env; // UCX's default
  }

  @Test
  void sharedMemoryTransportNamesItsVersionLanesAndSettings() {
    try (TransportPair pair = TransportPair.of("shm")) {
      Map<String, String> d = pair.a.describe();
      int[] v = UcpNative.version();
      assertEquals(v[0] + "." + v[1] + "." + v[2], d.get("ucx.version"));
      assertEquals("1.14", d.get("jucx.version"));
      assertEquals("sm,self", d.get("ucx.tls"));
      // v1 where the series pins it (1.13), else UCX's default v2
      assertEquals(
          UcxSeries.loaded().protocolV1Only() && System.getenv("UCX_PROTO_ENABLE") == null
              ? "v1 (UCX_PROTO_ENABLE=n, set by fiucx)"
              : "v2 (UCX_PROTO_ENABLE=y)",
          d.get("ucx.protocols"));
      assertTrue(d.get("ucx.series").contains(" series, proven (tested on "), d.get("ucx.series"));
      assertEquals(expectedAtomicMode(), d.get("ucx.atomic_mode"));
      assertEquals("serialized", d.get("ucx.thread_mode"));
      assertEquals("off", d.get("ucx.peer_failure_detection"));
      assertEquals(Integer.toString(pair.a.address().length), d.get("ucx.address_bytes"));
      UcxAddress both = UcxAddress.read(pair.a.address());
      assertEquals(Integer.toString(both.data().length), d.get("ucx.worker.address_bytes"));
      String lanes = d.get("ucx.peer.0.lanes");
      assertTrue(lanes.contains("sysv/memory") || lanes.contains("posix/memory"), lanes);
      assertTrue(lanes.contains("amo#"), "an atomic lane: " + lanes);
      assertFalse(lanes.contains("tcp"), lanes);
      // the control channel: a tcp worker of its own, the data worker without tcp
      String worker = d.get("ucx.control_worker");
      assertTrue(
          worker.startsWith(
              "UCX context of its own (UCX_TLS=tcp), " + both.control().length + " address bytes"),
          worker);
      assertTrue(d.get("ucx.control_endpoint").startsWith("per peer, on the control worker"));
      String control = d.get("ucx.peer.0.control_lanes");
      assertTrue(control.contains("tcp/") && !control.contains("memory"), control);
      assertFalse(UcpNative.workerInfo(pair.a.dataWorkerHandle()).contains("tcp/"));
    }
  }

  @Test
  void tcpTransportUsesTcpOnlyWithFailureDetection() {
    try (TransportPair pair = TransportPair.of("tcp")) {
      Map<String, String> d = pair.a.describe();
      assertEquals("tcp", d.get("ucx.tls"));
      if (UcxSeries.loaded().softwareAtomicsWithFailureHandling()) {
        assertEquals("on", d.get("ucx.peer_failure_detection"));
        assertEquals("the data endpoint", d.get("ucx.control_endpoint"));
        assertTrue(d.get("ucx.control_worker").startsWith("none (the data endpoints have"));
        assertNull(d.get("ucx.peer.0.control_lanes"));
      } else { // protocols v2: no software atomics with failure handling; a control worker watches
        assertEquals("off", d.get("ucx.peer_failure_detection"));
        assertTrue(d.get("ucx.control_endpoint").startsWith("per peer, on the control worker"));
        assertTrue(d.get("ucx.control_worker").startsWith("UCX context of its own (UCX_TLS=tcp)"));
      }
      String lanes = d.get("ucx.peer.0.lanes");
      assertTrue(lanes.startsWith("lane[0]: "), lanes);
      assertTrue(lanes.contains("tcp/"), lanes);
      assertFalse(lanes.contains("memory"), lanes);
      assertFalse(lanes.contains("amo#"), "tcp has no atomic lane: software atomics: " + lanes);
    }
  }

  @Test
  void versionStringMatchesTheNumericVersion() {
    int[] v = UcpNative.version();
    assertEquals(v[0] + "." + v[1] + "." + v[2], UcpNative.versionString());
  }
}
