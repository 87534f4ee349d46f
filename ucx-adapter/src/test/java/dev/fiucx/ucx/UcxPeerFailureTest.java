package dev.fiucx.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.FiErrno;
import dev.fiucx.spi.RemoteAtomicOp;
import dev.fiucx.spi.TransportPeer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A peer that dies, for real: a target in a child JVM is frozen (SIGSTOP) while a software atomic
 * to it is pending, then killed (SIGKILL). Over tcp, with failure detection on, UCX fails the
 * endpoint and the pending operation.
 */
class UcxPeerFailureTest {
  @Test
  void aPeerThatDiesFailsItsPendingOperationAndLaterPosts() throws Exception {
    Process child =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "-cp",
                System.getProperty("java.class.path"),
                PeerProcess.class.getName(),
                "tcp")
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    RecordingCompletions completions = new RecordingCompletions();
    try (UcxTransport a =
            new UcxTransport(completions, UcxOptions.defaults().withTransports("tcp"));
        Arena arena = Arena.ofConfined()) {
      BufferedReader out =
          new BufferedReader(
              new InputStreamReader(child.getInputStream(), StandardCharsets.US_ASCII));
      byte[] address = HexFormat.of().parseHex(field(out.readLine(), "ADDRESS"));
      long key = Long.parseUnsignedLong(field(out.readLine(), "KEY"), 16);

      UcxPeer peer = (UcxPeer) a.connect(address);
      assertEquals(0, peer.resolve(key)); // the child answers from its own progress loop

      signal("STOP", child.pid());
      awaitStopped(child.pid());
      MemorySegment result = arena.allocate(8, 8);
      int posted =
          peer.postAtomic(peer.cached(key), 0, RemoteAtomicOp.ADD, 8, 1, result.address(), 1);
      assertEquals(TransportPeer.PENDING, posted, "a software atomic waits for the target");
      long until = System.nanoTime() + 100_000_000L;
      while (System.nanoTime() - until < 0) {
        a.progress();
      }
      assertNull(completions.status(1), "a frozen target executes nothing");
      assertFalse(peer.failed());

      child.destroyForcibly();
      assertTrue(child.waitFor(10, TimeUnit.SECONDS));
      long deadline = System.nanoTime() + TransportPair.TIMEOUT_NANOS;
      while (completions.status(1) == null) {
        assertTrue(System.nanoTime() - deadline < 0, "the dead peer's operation never failed");
        a.progress();
      }
      assertEquals(-FiErrno.ECONNRESET, completions.status(1));
      assertTrue(peer.failed());
      assertEquals(
          -FiErrno.ECONNRESET,
          peer.postAtomic(peer.cached(key), 0, RemoteAtomicOp.ADD, 8, 1, result.address(), 2));
      assertEquals(-FiErrno.ECONNRESET, peer.resolve(key));
      assertNull(completions.status(2), "a refused post reports nothing later");
    } finally {
      child.destroyForcibly();
    }
  }

  private static String field(String line, String name) {
    assertTrue(line != null && line.startsWith(name + " "), "child said: " + line);
    return line.substring(name.length() + 1);
  }

  /**
   * kill returns once the signal is queued; the child's threads stop a little later. Waits until
   * every one of them shows state T (stopped) in /proc.
   */
  private static void awaitStopped(long pid) throws Exception {
    long deadline = System.nanoTime() + TransportPair.TIMEOUT_NANOS;
    Path tasks = Path.of("/proc", Long.toString(pid), "task");
    while (true) {
      boolean all;
      try (var threads = java.nio.file.Files.list(tasks)) {
        all =
            threads.allMatch(
                t -> {
                  try {
                    String stat = java.nio.file.Files.readString(t.resolve("stat"));
                    char state = stat.charAt(stat.lastIndexOf(')') + 2); // after "(comm) "
                    return state == 'T' || state == 't';
                  } catch (java.io.IOException e) {
                    return true; // the thread is gone
                  }
                });
      }
      if (all) {
        return;
      }
      assertTrue(System.nanoTime() - deadline < 0, "the child did not stop");
      Thread.sleep(1);
    }
  }

  private static void signal(String signal, long pid) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start();
    assertEquals(0, kill.waitFor());
  }
}
