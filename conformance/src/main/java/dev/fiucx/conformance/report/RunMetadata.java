package dev.fiucx.conformance.report;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * What the HTML report says about a run that no provider tells: when, on which host, with which
 * fiucx.
 *
 * @param date when the report was made, to the second
 * @param host the local host name
 * @param fiucxVersion the project version, from a resource the build fills in
 */
record RunMetadata(Instant date, String host, String fiucxVersion) {
  /** The project version ({@code 0.1.0-SNAPSHOT}), also when running from target/classes. */
  static final String FIUCX_VERSION = dev.fiucx.Fabric.version();

  static RunMetadata now() {
    return new RunMetadata(
        Instant.now().truncatedTo(ChronoUnit.SECONDS), hostName(), FIUCX_VERSION);
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "unknown host";
    }
  }
}
