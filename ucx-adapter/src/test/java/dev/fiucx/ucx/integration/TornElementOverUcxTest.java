package dev.fiucx.ucx.integration;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.AtomicFamily;
import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.MemoryRegion;
import dev.fiucx.conformance.remote.Initiator;
import dev.fiucx.conformance.remote.JavaCommand;
import dev.fiucx.conformance.suite.RequiresProvider;
import dev.fiucx.emulation.LockWords;
import dev.fiucx.engine.EngineDomain;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A process killed in the middle of writing a DOUBLE_COMPLEX under its lock ({@link
 * LockHolderProcess}'s {@code torn}: its stripe's redo record armed, half the element written). The
 * target reclaims its stripe and completes the dead holder's write first, so the next caller
 * fetches exactly the armed value, never the torn one, and leaves exactly that plus its operand.
 * Over shared memory only: there a holder's write is its own copy into the mapping, which can tear;
 * over TCP the target writes a put whole, and no holder arms a record.
 */
@RequiresProvider("ucx")
class TornElementOverUcxTest {
  private static final long ACCESS = FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE;

  @Test
  void aHolderKilledMidWriteLeavesItsWholeValueForTheNext() throws Exception {
    String transport = "shm";
    try (Domain target =
            Fabric.openDomain(
                "ucx", new DomainAttr(transport, DomainAttr.Progress.AUTO, false, Map.of()));
        Initiator me = new Initiator("ucx", transport, DomainAttr.Progress.MANUAL);
        Arena arena = Arena.ofConfined()) {
      MemoryRegion region = target.allocateMemory(64, ACCESS);
      MemorySegment element = region.segment();
      element.set(JAVA_DOUBLE, 0, 1.0);
      element.set(JAVA_DOUBLE, 8, 2.0);
      byte[] address = target.openEndpoint().name();
      int stripe = LockWords.stripe(element.address());
      MemorySegment locks = ((EngineDomain) target).lockRegion();

      Process child =
          JavaCommand.inheritingIo(
                  JavaCommand.of(
                      List.of(),
                      LockHolderProcess.class,
                      "torn",
                      transport,
                      HexFormat.of().formatHex(address),
                      Integer.toString(stripe),
                      Long.toHexString(region.key())))
              .redirectOutput(ProcessBuilder.Redirect.PIPE)
              .start();
      Set<Path> itsFiles = Set.of();
      try {
        String line;
        try (BufferedReader r =
            new BufferedReader(
                new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
          line = r.readLine();
        }
        assertTrue(line != null, "the torn process said nothing");
        itsFiles = shmFilesMappedBy(child.pid());
        String[] said = line.split(" ");
        assertEquals("TORN", said[0]);
        long held = LockWords.taken(0, Integer.parseUnsignedInt(said[1]));
        assertEquals(held, locks.get(JAVA_LONG, LockWords.offset(stripe)));
        assertEquals(held, locks.get(JAVA_LONG, LockWords.recordTag(stripe)), "armed");
        assertEquals(LockHolderProcess.TORN_RE, element.get(JAVA_DOUBLE, 0), "half written");
        assertEquals(2.0, element.get(JAVA_DOUBLE, 8), "half not");
      } finally {
        child.destroyForcibly();
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        Set<Path> ours = shmFilesMappedBy(ProcessHandle.current().pid());
        for (Path f : itsFiles) {
          if (!ours.contains(f)) {
            Files.deleteIfExists(f); // the killed process's UCX shared memory (never unlinked)
          }
        }
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (target.emulationCounts().locksReclaimed() == 0 && System.nanoTime() - deadline < 0) {
        Thread.sleep(10);
      }
      assertEquals(1, target.emulationCounts().locksReclaimed(), "the target freed its stripe");
      // and completed the dead holder's write first: whole before anyone enters, so a holder that
      // maps nothing (over tcp) reads it whole too
      assertEquals(LockHolderProcess.TORN_RE, element.get(JAVA_DOUBLE, 0));
      assertEquals(LockHolderProcess.TORN_IM, element.get(JAVA_DOUBLE, 8));
      assertEquals(0, locks.get(JAVA_LONG, LockWords.recordTag(stripe)), "disarmed");
      assertEquals(1, target.emulationCounts().writesRedone());

      long peer = me.av.insert(address);
      MemorySegment operand = arena.allocate(16, 16);
      operand.set(JAVA_DOUBLE, 0, 1.0);
      operand.set(JAVA_DOUBLE, 8, 2.0);
      MemorySegment result = arena.allocate(16, 16);
      assertEquals(
          0,
          me.post(
              AtomicFamily.FETCH,
              FiOp.SUM,
              FiDatatype.DOUBLE_COMPLEX,
              1,
              operand,
              null,
              result,
              peer,
              0,
              region.key(),
              null));
      me.awaitCompletion();
      assertEquals(LockHolderProcess.TORN_RE, result.get(JAVA_DOUBLE, 0));
      assertEquals(LockHolderProcess.TORN_IM, result.get(JAVA_DOUBLE, 8));
      assertEquals(LockHolderProcess.TORN_RE + 1.0, element.get(JAVA_DOUBLE, 0));
      assertEquals(LockHolderProcess.TORN_IM + 2.0, element.get(JAVA_DOUBLE, 8));
      assertEquals(0, locks.get(JAVA_LONG, LockWords.recordTag(stripe)), "completed, cleared");
      assertTrue(LockWords.isFree(locks.get(JAVA_LONG, LockWords.offset(stripe))));
    }
  }

  /** The UCX posix shared-memory files a process has mapped. */
  private static Set<Path> shmFilesMappedBy(long pid) throws java.io.IOException {
    try (var lines = Files.lines(Path.of("/proc/" + pid + "/maps"))) {
      return lines
          .map(l -> l.substring(l.lastIndexOf(' ') + 1))
          .filter(f -> f.startsWith("/dev/shm/ucx_shm_posix_"))
          .map(Path::of)
          .collect(Collectors.toSet());
    }
  }
}
