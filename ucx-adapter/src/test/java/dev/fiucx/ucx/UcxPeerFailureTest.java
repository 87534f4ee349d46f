package dev.fiucx.ucx;

import static dev.fiucx.spi.TransportPeer.DONE;
import static dev.fiucx.spi.TransportPeer.PENDING;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.FiErrno;
import dev.fiucx.conformance.remote.JavaCommand;
import dev.fiucx.spi.ProcessIdentity;
import dev.fiucx.spi.RemoteAtomicOp;
import dev.fiucx.spi.RemoteRegion;
import dev.fiucx.spi.TransportPeer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A peer that dies, for real: a target in a child JVM is frozen (SIGSTOP) while a software atomic
 * to it is pending, then killed (SIGKILL). Over tcp, with failure detection on, UCX fails the
 * endpoint and the pending operation. Over shared memory UCX never notices; the transport looks at
 * the peer's process ({@link UcxTransport#checkPeers}) and ends the operations itself.
 */
@RequiresUcx
class UcxPeerFailureTest {
  @Test
  void aPeerThatDiesFailsItsPendingOperationAndLaterPosts() throws Exception {
    Process child =
        new ProcessBuilder(JavaCommand.of(List.of(), PeerProcess.class, "tcp"))
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

  /**
   * Shared memory, registered memory (software atomics, pending until the target progresses): the
   * target is frozen with fetching atomics, a flush, a get and a put pending, then killed. UCX
   * reports nothing, even to a forced close; the transport's look at the process ends every one of
   * them exactly once with FI_ECONNRESET, refuses later posts, and the peer closes at once.
   */
  @Test
  void aDeadSharedMemoryPeersPendingOperationsEndWhenItsProcessIsSeenGone() throws Exception {
    Process child = start("shm", Memory.REGISTERED);
    RecordingCompletions completions = new RecordingCompletions();
    try (UcxTransport a =
            new UcxTransport(completions, UcxOptions.defaults().withTransports("shm"));
        Arena arena = Arena.ofConfined()) {
      Child c = Child.read(child);
      UcxPeer peer = (UcxPeer) a.connect(c.address, c.process);
      assertEquals(0, peer.resolve(c.key));
      RemoteRegion region = peer.cached(c.key);
      assertEquals("ucp", region.path(), "registered memory takes UCX's software atomics");

      signal("STOP", child.pid());
      awaitStopped(child.pid());
      MemorySegment results = arena.allocate(64, 8);
      long r = results.address();
      assertEquals(PENDING, peer.postAtomic(region, 0, RemoteAtomicOp.ADD, 8, 1, r, 1));
      assertEquals(PENDING, peer.postAtomic(region, 8, RemoteAtomicOp.ADD, 8, 1, r + 8, 5));
      assertEquals(PENDING, peer.postCompareSwap(region, 16, 8, 0, 5, r + 16, 2));
      assertEquals(PENDING, peer.postGet(region, 24, 16, r + 24, 3));
      assertEquals(PENDING, peer.postPut(region, 40, 8, r + 40, 4));
      assertEquals(5, a.trackedPending());
      a.lookForDeadPeers();
      assertEquals(0, a.checkPeers(), "a frozen process is alive");
      assertEquals(0, completions.count());

      child.destroyForcibly();
      assertTrue(child.waitFor(10, TimeUnit.SECONDS));
      awaitSeenGone(a, peer);
      assertEquals(List.of(1L, 2L, 3L, 4L, 5L), completions.order().stream().sorted().toList());
      for (long token = 1; token <= 5; token++) {
        assertEquals(-FiErrno.ECONNRESET, completions.status(token));
      }
      assertEquals(0, a.trackedPending());
      assertTrue(peer.failed());
      assertEquals(-FiErrno.ECONNRESET, peer.postAtomic(region, 0, RemoteAtomicOp.ADD, 8, 1, r, 9));
      assertEquals(-FiErrno.ECONNRESET, peer.resolve(c.key));
      a.lookForDeadPeers();
      assertEquals(0, a.checkPeers(), "seen gone once");

      long t0 = System.nanoTime();
      peer.close();
      assertTrue(System.nanoTime() - t0 < 1_000_000_000L, "closing a dead peer takes no flush");
      for (int i = 0; i < 100; i++) {
        a.progress();
      }
      assertEquals(5, completions.order().size(), "nothing ends twice");
    } finally {
      child.destroyForcibly();
    }
  }

  /**
   * Shared memory, allocated memory: the direct path writes into the peer's memory as mapped here.
   * Once the peer's process is seen gone, posts are refused and not a byte more is written there.
   */
  @Test
  void nothingIsWrittenIntoADeadPeersMappedMemoryOnceItIsSeenGone() throws Exception {
    Process child = start("shm", Memory.ALLOCATED);
    RecordingCompletions completions = new RecordingCompletions();
    try (UcxTransport a =
            new UcxTransport(completions, UcxOptions.defaults().withTransports("shm"));
        Arena arena = Arena.ofConfined()) {
      Child c = Child.read(child);
      UcxPeer peer = (UcxPeer) a.connect(c.address, c.process);
      assertEquals(0, peer.resolve(c.key));
      UcxRemoteRegion region = (UcxRemoteRegion) peer.cached(c.key);
      MemorySegment mapped = region.mapping();
      assertTrue(mapped != null, "UCX maps a peer's allocated shared memory here");
      long r = arena.allocate(8, 8).address();
      assertEquals(DONE, peer.postAtomic(region, 0, RemoteAtomicOp.ADD, 8, 7, r, 1));

      child.destroyForcibly();
      assertTrue(child.waitFor(10, TimeUnit.SECONDS));
      awaitSeenGone(a, peer);
      long before = mapped.get(ValueLayout.JAVA_LONG, 0);
      assertEquals(7, before);
      assertEquals(-FiErrno.ECONNRESET, peer.postAtomic(region, 0, RemoteAtomicOp.ADD, 8, 1, r, 2));
      assertEquals(-FiErrno.ECONNRESET, peer.postCompareSwap(region, 0, 8, 7, 9, r, 3));
      assertEquals(-FiErrno.ECONNRESET, peer.postPut(region, 0, 8, r, 4));
      assertEquals(7, mapped.get(ValueLayout.JAVA_LONG, 0));
      assertEquals(0, completions.count());
      long t0 = System.nanoTime();
      peer.close();
      assertTrue(System.nanoTime() - t0 < 1_000_000_000L, "closing a dead peer takes no flush");
    } finally {
      child.destroyForcibly();
    }
  }

  /**
   * Progresses until the peer is seen gone and nothing is left pending to it: by the peer watch's
   * look at its process, or first by UCX failing an operation to it (UCX 1.23's cma).
   */
  private static void awaitSeenGone(UcxTransport a, UcxPeer peer) {
    long deadline = System.nanoTime() + TransportPair.TIMEOUT_NANOS;
    while (!peer.failed() || a.trackedPending() > 0) {
      assertTrue(System.nanoTime() - deadline < 0, "the dead process was never seen gone");
      a.checkPeers();
      a.progress();
    }
  }

  /** What a {@link PeerProcess} printed. */
  private record Child(byte[] address, long key, ProcessIdentity process) {
    static Child read(Process child) throws Exception {
      BufferedReader out =
          new BufferedReader(
              new InputStreamReader(child.getInputStream(), StandardCharsets.US_ASCII));
      byte[] address = HexFormat.of().parseHex(field(out.readLine(), "ADDRESS"));
      long key = Long.parseUnsignedLong(field(out.readLine(), "KEY"), 16);
      String[] p = field(out.readLine(), "PROCESS").split(" ");
      ProcessIdentity process =
          new ProcessIdentity(
              Integer.parseInt(p[0]),
              Long.parseLong(p[1]),
              Long.parseLong(p[2]),
              Long.parseLong(p[3]),
              Long.parseLong(p[4]));
      assertEquals(child.pid(), process.pid());
      return new Child(address, key, process);
    }
  }

  private static Process start(String transports, Memory memory) throws Exception {
    return new ProcessBuilder(
            JavaCommand.of(List.of(), PeerProcess.class, transports, memory.name()))
        .redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
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
