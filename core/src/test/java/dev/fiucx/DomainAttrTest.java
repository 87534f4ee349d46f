package dev.fiucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The typed domain attributes: defaults, options parsed once, environment and properties. */
class DomainAttrTest {
  @Test
  void defaults() {
    DomainAttr a = DomainAttr.defaults();
    assertNull(a.transport());
    assertEquals(DomainAttr.Progress.AUTO, a.progress());
    assertEquals(false, a.virtualAddressing());
    assertEquals(DomainAttr.Threading.ENDPOINT, a.threading());
    assertEquals(Duration.ofSeconds(10), a.lockLease());
    assertEquals(Duration.ofSeconds(5), a.controlTimeout());
    assertNull(a.peerFailureDetection());
    assertEquals(true, a.directPath());
    assertEquals(0, a.allocationLimit());
    assertNull(a.errorHandler());
  }

  @Test
  void optionsAreParsedWhenTheAttributesAreBuilt() {
    DomainAttr a =
        new DomainAttr(
            "tcp",
            DomainAttr.Progress.MANUAL,
            true,
            Map.of(
                "threading", "safe",
                "lock_lease_ms", "250",
                "control_timeout_ms", "1500",
                "peer_failure_detection", "off",
                "direct_path", "off",
                "alloc_limit", "64k"));
    assertEquals("tcp", a.transport());
    assertEquals(DomainAttr.Threading.SAFE, a.threading());
    assertEquals(Duration.ofMillis(250), a.lockLease());
    assertEquals(Duration.ofMillis(1500), a.controlTimeout());
    assertEquals(false, a.peerFailureDetection());
    assertEquals(false, a.directPath());
    assertEquals(64L << 10, a.allocationLimit());
    // the options round-trip through their strings, and toBuilder keeps everything
    assertEquals(a, new DomainAttr("tcp", DomainAttr.Progress.MANUAL, true, a.options()));
    assertEquals(a, a.toBuilder().build());
  }

  @Test
  void allocationLimitsInEveryForm() {
    assertEquals(0, limit("machine"));
    assertEquals(0, limit(" Machine "));
    assertEquals(4096, limit("4096"));
    assertEquals(64L << 10, limit("64k"));
    assertEquals(3L << 30, limit("3G"));
    assertEquals(1L << 40, limit("1t"));
    for (String bad : new String[] {"", "0", "-1", "1x", "k", "9999999999t"}) {
      FiException e = assertThrows(FiException.class, () -> limit(bad), bad);
      assertEquals(FiErrno.EINVAL, e.errno());
      assertTrue(e.getMessage().contains("alloc_limit must be a positive byte count"), bad);
    }
  }

  private static long limit(String v) {
    return new DomainAttr(null, null, false, Map.of("alloc_limit", v)).allocationLimit();
  }

  @Test
  void everyBadValueAndUnknownNameIsRefusedWithItsReason() {
    Map<String, String> bad =
        Map.of(
            "threading", "threading must be endpoint, safe or domain: both",
            "lock_lease_ms", "lock_lease_ms must be a positive integer: both",
            "control_timeout_ms", "control_timeout_ms must be a positive integer: both",
            "peer_failure_detection", "peer_failure_detection must be on or off: both",
            "direct_path", "direct_path must be on or off: both",
            "nonsense", "unknown domain option 'nonsense'");
    for (var e : bad.entrySet()) {
      FiException x =
          assertThrows(
              FiException.class,
              () -> new DomainAttr(null, null, false, Map.of(e.getKey(), "both")),
              e.getKey());
      assertEquals(FiErrno.EINVAL, x.errno());
      assertTrue(x.getMessage().contains(e.getValue()), x.getMessage());
    }
    assertThrows(FiException.class, () -> DomainAttr.builder().lockLease(Duration.ZERO).build());
    assertThrows(FiException.class, () -> DomainAttr.builder().allocationLimit(-1).build());
  }

  @Test
  void theEnvironmentAndThenSystemPropertiesSetEverySetting() {
    Properties p = new Properties();
    p.setProperty("fiucx.lock_lease_ms", "700"); // a property wins over the environment
    p.setProperty("fiucx.progress", "manual");
    Map<String, String> env =
        Map.of(
            "FIUCX_LOCK_LEASE_MS", "900",
            "FIUCX_TRANSPORT", "shm",
            "FIUCX_DIRECT_PATH", "off",
            "FIUCX_VIRTUAL_ADDRESSING", "on",
            "FIUCX_PEER_FAILURE_DETECTION", "auto");
    DomainAttr a = DomainAttr.builder().fromEnvironment(env, p).build();
    assertEquals(Duration.ofMillis(700), a.lockLease());
    assertEquals("shm", a.transport());
    assertEquals(DomainAttr.Progress.MANUAL, a.progress());
    assertEquals(false, a.directPath());
    assertEquals(true, a.virtualAddressing());
    assertNull(a.peerFailureDetection());
    Properties badProgress = new Properties();
    badProgress.setProperty("fiucx.progress", "sometimes");
    FiException e =
        assertThrows(
            FiException.class, () -> DomainAttr.builder().fromEnvironment(Map.of(), badProgress));
    assertTrue(e.getMessage().contains("progress must be auto or manual: sometimes"));
  }
}
