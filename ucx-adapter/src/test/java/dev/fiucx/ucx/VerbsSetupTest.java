package dev.fiucx.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The UCX settings fiucx makes where UCX may use verbs, read from sysfs trees laid out as the
 * kernel lays out /sys/class/infiniband (Soft-RoCE's rxe0 has no device driver link; a ConnectX
 * port's driver is mlx5_core).
 */
class VerbsSetupTest {
  private static final UcxSeries V1_13 = UcxSeries.of(1, 13);
  private static final UcxSeries V1_18 = UcxSeries.of(1, 18);
  private static final UcxSeries V1_19 = UcxSeries.of(1, 19);

  /** What fiucx sets wherever rc may run: short rc retries, and keepalive that finds the dead. */
  private static final Map<String, String> RC_AND_KEEPALIVE =
      Map.of(
          "RC_TIMEOUT", "1s",
          "RC_RETRY_COUNT", "3",
          "KEEPALIVE_INTERVAL", "2s",
          "UD_TIMEOUT", "5s");

  /** The same and the ud destination-GID check off. */
  private static final Map<String, String> ALL =
      Map.of(
          "UD_ETH_DGID_CHECK", "n",
          "RC_TIMEOUT", "1s",
          "RC_RETRY_COUNT", "3",
          "KEEPALIVE_INTERVAL", "2s",
          "UD_TIMEOUT", "5s");

  @TempDir Path sysfs;
  @TempDir Path drivers;

  private VerbsPorts rxe() throws IOException {
    port("rxe0", "1", "Ethernet", null);
    return VerbsPorts.under(sysfs);
  }

  private void port(String device, String number, String linkLayer, String driver)
      throws IOException {
    Path p = Files.createDirectories(sysfs.resolve(device).resolve("ports").resolve(number));
    Files.writeString(p.resolve("link_layer"), linkLayer + "\n");
    if (driver != null) {
      Files.createDirectories(sysfs.resolve(device).resolve("device"));
      Files.createSymbolicLink(
          sysfs.resolve(device).resolve("device/driver"),
          Files.createDirectories(drivers.resolve(driver)));
    }
  }

  /** The overrides VerbsSetup makes, in order. */
  private static Map<String, String> apply(
      String tls, VerbsPorts ports, UcxSeries series, Map<String, String> env) {
    Map<String, String> overrides = new LinkedHashMap<>();
    Map<String, String> reasons = new LinkedHashMap<>();
    VerbsSetup.apply(tls, ports, series, env, overrides, reasons);
    assertEquals(overrides.keySet(), reasons.keySet(), "every setting has its reason");
    return overrides;
  }

  @Test
  void portsAreReadWithLinkLayerAndDriver() throws IOException {
    port("rxe0", "1", "Ethernet", null);
    port("mlx5_0", "1", "InfiniBand", "mlx5_core");
    VerbsPorts ports = VerbsPorts.under(sysfs.toAbsolutePath());
    assertEquals(
        List.of(
            new VerbsPorts.Port("mlx5_0:1", "InfiniBand", "mlx5_core"),
            new VerbsPorts.Port("rxe0:1", "Ethernet", "software")),
        ports.ports());
    assertEquals(List.of(new VerbsPorts.Port("rxe0:1", "Ethernet", "software")), ports.roce());
    assertEquals("none", VerbsPorts.under(sysfs.resolve("absent")).toString());
  }

  @Test
  void softRoceOnUcxBefore119GetsTheDgidCheckOffAndShortRcRetries() throws IOException {
    Map<String, String> expected = ALL;
    VerbsPorts ports = rxe();
    assertEquals(expected, apply("rc_verbs,ud_verbs:aux", ports, V1_13, Map.of()));
    assertEquals(expected, apply("rc_verbs,ud_verbs:aux", ports, V1_18, Map.of()));
    assertEquals(expected, apply(null, ports, V1_13, Map.of()), "UCX's choice is every transport");
    assertEquals(expected, apply("all", ports, V1_13, Map.of()));
    // UCX 1.19 reads the address family from the packet: nothing to turn off
    assertEquals(RC_AND_KEEPALIVE, apply("rc_verbs,ud_verbs:aux", ports, V1_19, Map.of()));
    // ud alone: no rc to time out
    assertEquals(
        Map.of("UD_ETH_DGID_CHECK", "n", "KEEPALIVE_INTERVAL", "2s", "UD_TIMEOUT", "5s"),
        apply("ud_verbs", ports, V1_13, Map.of()));
  }

  @Test
  void noVerbsInTheListOrOnTheMachineSetsNothing() throws IOException {
    assertEquals(Map.of(), apply("tcp", rxe(), V1_13, Map.of()));
    assertEquals(Map.of(), apply("sm,self", rxe(), V1_13, Map.of()));
    assertEquals(
        Map.of(), apply("rc_verbs", VerbsPorts.under(sysfs.resolve("none")), V1_13, Map.of()));
  }

  @Test
  void connectXRoceKeepsUcxsDgidCheck() throws IOException {
    port("mlx5_0", "1", "Ethernet", "mlx5_core");
    assertEquals(
        RC_AND_KEEPALIVE, apply("rc_verbs,ud_verbs:aux", VerbsPorts.under(sysfs), V1_13, Map.of()));
  }

  @Test
  void theUsersOwnSettingsWin() throws IOException {
    VerbsPorts ports = rxe();
    assertEquals(
        Map.of("RC_RETRY_COUNT", "3", "UD_TIMEOUT", "5s"),
        apply(
            "rc_verbs,ud_verbs:aux",
            ports,
            V1_13,
            Map.of(
                "UCX_UD_VERBS_ETH_DGID_CHECK", "n",
                "UCX_RC_VERBS_TIMEOUT", "100ms",
                "UCX_KEEPALIVE_INTERVAL", "20s")));
    assertEquals(
        Map.of("UD_ETH_DGID_CHECK", "n", "KEEPALIVE_INTERVAL", "2s"),
        apply(
            "rc",
            ports,
            V1_13,
            Map.of("UCX_RC_TIMEOUT", "2s", "UCX_RC_RETRY_COUNT", "7", "UCX_UD_TIMEOUT", "30s")));
  }

  @Test
  void theDgidCheckForcedOnWhereUcxWouldAbortIsRefusedWithTheReason() throws IOException {
    VerbsPorts ports = rxe();
    for (String name : List.of("UCX_UD_VERBS_ETH_DGID_CHECK", "UCX_UD_ETH_DGID_CHECK")) {
      FiException e =
          assertThrows(
              FiException.class,
              () -> apply("rc_verbs,ud_verbs:aux", ports, V1_13, Map.of(name, "yes")));
      assertEquals(FiErrno.ENODEV, e.errno());
      assertTrue(e.getMessage().contains(name + "=yes"), e.getMessage());
      assertTrue(e.getMessage().contains("rxe0:1"), e.getMessage());
      assertTrue(e.getMessage().contains("fixed in UCX 1.19"), e.getMessage());
    }
    // where UCX reads the family from the packet, the user's check stays on
    assertEquals(
        RC_AND_KEEPALIVE,
        apply("rc_verbs,ud_verbs:aux", ports, V1_19, Map.of("UCX_UD_VERBS_ETH_DGID_CHECK", "y")));
  }

  @Test
  void rcVerbsAloneGetsUdForWireUp() {
    assertEquals("rc_verbs,ud_verbs:aux", VerbsSetup.tls("rc_verbs"));
    assertEquals("rc_verbs,ud_verbs", VerbsSetup.tls("rc_verbs,ud_verbs"));
    assertEquals("tcp", VerbsSetup.tls("tcp"));
  }
}
