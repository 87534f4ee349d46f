package dev.fiucx.perf.bench;

import dev.fiucx.conformance.report.ConformanceReport;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** The machine a run was measured on, for the header and the JSON. */
final class MachineFacts {
  private MachineFacts() {}

  static Map<String, String> collect() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("host", hostName());
    m.put("cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
    m.put("cpu", cpuModel());
    m.put(
        "os",
        System.getProperty("os.name")
            + " "
            + System.getProperty("os.version")
            + " "
            + System.getProperty("os.arch"));
    m.put("jdk", System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"));
    m.put("fiucx", ConformanceReport.fiucxVersion());
    return m;
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return System.getenv().getOrDefault("HOSTNAME", "unknown");
    }
  }

  /** The first "model name" of /proc/cpuinfo (Linux), or "unknown". */
  private static String cpuModel() {
    try {
      return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
          .filter(l -> l.startsWith("model name"))
          .map(l -> l.substring(l.indexOf(':') + 1).trim())
          .findFirst()
          .orElse("unknown");
    } catch (IOException e) {
      return "unknown";
    }
  }
}
