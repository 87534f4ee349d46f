package dev.fiucx.perf.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** One fetch of bench's {@code /metrics} on loopback, as a scraper does it. */
final class MetricsPage {
  private MetricsPage() {}

  /** The page, or null when nothing answers on {@code port} yet (or any more) or not with 200. */
  static String fetch(HttpClient http, int port) throws InterruptedException {
    try {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 ? r.body() : null;
    } catch (IOException notListening) {
      return null;
    }
  }
}
