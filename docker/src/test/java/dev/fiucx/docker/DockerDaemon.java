package dev.fiucx.docker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A Docker daemon to talk to: the one that runs, or a plain {@code dockerd} started here (this
 * machine kind has no systemd) and stopped again on {@link #close()}. Docker itself, compose and
 * debootstrap are installed from Debian first when they are missing.
 */
final class DockerDaemon implements AutoCloseable {
  /** Debian's client, not whatever else is first on the PATH. */
  static final String DOCKER = "/usr/bin/docker";

  static final String COMPOSE = "/usr/bin/docker-compose";
  private static final Path DOCKERD = Path.of("/usr/sbin/dockerd");
  private static final Path DEBOOTSTRAP = Path.of("/usr/sbin/debootstrap");
  private static final Path SOCKET = Path.of("/var/run/docker.sock");

  private final Process started;
  private final Path log;

  private DockerDaemon(Process started, Path log) {
    this.started = started;
    this.log = log;
  }

  /** Installs what is missing, then finds or starts the daemon (within a minute). */
  static DockerDaemon ensure() throws IOException, InterruptedException {
    installMissing();
    if (answers()) {
      return new DockerDaemon(null, null);
    }
    Path log = Files.createTempFile("fiucx-dockerd-", ".log");
    Process dockerd =
        new ProcessBuilder(DOCKERD.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    DockerDaemon daemon = new DockerDaemon(dockerd, log);
    try {
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (!(Files.exists(SOCKET) && answers())) {
        if (!dockerd.isAlive() || System.nanoTime() - deadline > 0) {
          throw new AssertionError(
              "dockerd did not answer within 60 s (alive: "
                  + dockerd.isAlive()
                  + "):\n"
                  + Files.readString(log));
        }
        Thread.sleep(250);
      }
      return daemon;
    } catch (RuntimeException | Error | IOException | InterruptedException e) {
      daemon.close();
      throw e;
    }
  }

  /** Whether this test started the daemon (and will stop it). */
  boolean startedHere() {
    return started != null;
  }

  private static boolean answers() throws IOException, InterruptedException {
    return Files.isExecutable(Path.of(DOCKER))
        && Command.run(Duration.ofSeconds(20), Map.of(), null, DOCKER, "info").exit() == 0;
  }

  private static void installMissing() throws IOException, InterruptedException {
    if (Files.isExecutable(DOCKERD)
        && Files.isExecutable(Path.of(DOCKER))
        && Files.isExecutable(Path.of(COMPOSE))
        && Files.isExecutable(DEBOOTSTRAP)) {
      return;
    }
    Map<String, String> env = Map.of("DEBIAN_FRONTEND", "noninteractive");
    Command.check(Duration.ofMinutes(5), env, null, "apt-get", "update", "-q");
    Command.check(
        Duration.ofMinutes(10),
        env,
        null,
        "apt-get",
        "install",
        "-y",
        "-q",
        "docker.io",
        "docker-compose",
        "debootstrap");
  }

  /** Stops the daemon if it was started here (SIGTERM, which stops its containers, then KILL). */
  @Override
  public void close() throws IOException {
    if (started == null) {
      return;
    }
    try {
      started.destroy();
      if (!started.waitFor(60, TimeUnit.SECONDS)) {
        started.descendants().forEach(ProcessHandle::destroyForcibly);
        started.destroyForcibly();
        started.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      started.destroyForcibly();
      Thread.currentThread().interrupt();
    } finally {
      Files.deleteIfExists(log);
    }
  }
}
