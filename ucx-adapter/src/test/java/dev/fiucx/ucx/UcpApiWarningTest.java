package dev.fiucx.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import dev.fiucx.conformance.remote.JavaCommand;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * jucx 1.14 over a libucp older than its API (Debian's 1.13.1): the benign "UCP API version is
 * incompatible" warning that every context creation printed is silenced for that call only, UCX's
 * log level is set back, and a user who asks UCX for more (UCX_LOG_LEVEL=info) still sees it. Over
 * a libucp of 1.14 or later there is no such warning, and nothing is silenced.
 */
@RequiresUcx
class UcpApiWarningTest {
  private static final String WARNING = "UCP API version is incompatible";

  /** Whether the libucp here is older than jucx's API, so that UCX warns at every context. */
  private static boolean olderThanJucx() {
    return UcpNative.version()[1] < UcxLayout.JUCX_API_MINOR;
  }

  @Test
  void openingADomainLeavesUcxsLogLevelAsItWas() {
    assertEquals(UcxLayout.LOG_LEVEL_WARN, UcpNative.logLevel(), "UCX's default: warn");
    try (Domain d =
        Fabric.openDomain(
            "ucx", new DomainAttr("shm", DomainAttr.Progress.MANUAL, false, Map.of()))) {
      assertEquals(UcxLayout.LOG_LEVEL_WARN, UcpNative.logLevel());
      String api = d.describe().get("ucx.api");
      int[] v = UcpNative.version();
      assertTrue(
          olderThanJucx()
              ? api.contains("silenced")
              : api.equals("jucx 1.14 API, libucp " + v[0] + "." + v[1]),
          api);
    }
  }

  @Test
  void aNewProcessPrintsNoWarningUnlessUcxIsAskedForMore() throws Exception {
    String quiet = stderrOfOpening(null);
    assertFalse(quiet.contains(WARNING), quiet);
    String verbose = stderrOfOpening("info");
    assertEquals(olderThanJucx(), verbose.contains(WARNING), verbose);
  }

  private static String stderrOfOpening(String ucxLogLevel) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(JavaCommand.of(List.of(), OpeningProcess.class));
    pb.environment().remove("UCX_LOG_LEVEL");
    if (ucxLogLevel != null) {
      pb.environment().put("UCX_LOG_LEVEL", ucxLogLevel);
    }
    pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
    Process p = pb.start();
    try {
      byte[] err = p.getErrorStream().readAllBytes();
      assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the child ended");
      assertEquals(0, p.exitValue(), new String(err, StandardCharsets.UTF_8));
      return new String(err, StandardCharsets.UTF_8);
    } finally {
      p.destroyForcibly();
    }
  }
}
