package dev.fiucx.ucx.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import dev.fiucx.conformance.remote.Initiator;
import dev.fiucx.conformance.remote.JavaCommand;
import dev.fiucx.conformance.suite.RequiresProvider;
import dev.fiucx.ucx.HostileControlProcess;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A peer that sends a target control messages no fiucx initiator sends (random bytes, truncated and
 * old-layout RESOLVEs, a worker address wrapped in a right fiucx header, well-formed messages
 * naming workers and initiators that are not the sender) cannot kill or confuse it: before the
 * reply endpoint, the worker address in a RESOLVE went to ucp_ep_create, and garbage there was a
 * UCX assertion (SIGABRT) in the target. The target counts each message it could not decode and
 * each it refused, exactly, and serves the next honest initiator.
 */
@RequiresProvider("ucx")
class HostileControlMessagesTest {
  private static final long WAIT_NANOS = 10_000_000_000L;

  @ParameterizedTest
  @ValueSource(strings = {"shm", "tcp"})
  void aTargetSurvivesHostileControlMessagesAndServesTheNextInitiator(String transport)
      throws Exception {
    try (ServingTarget target = ServingTarget.start(transport, false, 64);
        Arena arena = Arena.ofConfined()) {
      // what the target holds before (over tcp its own self-test's connection to itself)
      String served = target.fact("ucx.initiators_served");
      String endpoints = target.fact("ucx.initiator_endpoints");
      ProcessBuilder b =
          new ProcessBuilder(
                  JavaCommand.of(
                      List.of(),
                      HostileControlProcess.class,
                      transport,
                      HexFormat.of().formatHex(target.address),
                      "11"))
              .redirectError(ProcessBuilder.Redirect.INHERIT);
      Process hostile = b.start();
      try {
        String line =
            new BufferedReader(
                    new InputStreamReader(hostile.getInputStream(), StandardCharsets.UTF_8))
                .readLine();
        assertEquals("SENT " + malformed() + " " + refused(), line);
        assertTrue(hostile.waitFor(10, TimeUnit.SECONDS), "the hostile peer did not exit");
        assertEquals(0, hostile.exitValue());
      } finally {
        hostile.destroyForcibly();
        hostile.waitFor(10, TimeUnit.SECONDS);
      }

      // every message was counted once, the target lives, and it let go of the hostile worker (the
      // one RESOLVE it answered made it an initiator served here until its process was seen gone)
      long deadline = System.nanoTime() + WAIT_NANOS;
      while (count(target, "decoding a control message") < malformed()
          || count(target, "refusing a control message") < refused()
          || !target.fact("ucx.initiators_served").equals(served)) {
        assertTrue(
            System.nanoTime() - deadline < 0,
            "the target counted "
                + target.fact("ucx.errors")
                + "; serves "
                + target.fact("ucx.initiators_served")
                + " initiators, holds "
                + target.fact("ucx.initiator_endpoints")
                + " endpoints to them");
        Thread.sleep(10);
      }
      assertEquals(malformed(), count(target, "decoding a control message"));
      assertEquals(refused(), count(target, "refusing a control message"));
      assertTrue(target.process.isAlive());
      assertEquals(endpoints, target.fact("ucx.initiator_endpoints"));

      MemorySegment one = arena.allocate(8, 8);
      one.set(ValueLayout.JAVA_LONG, 0, 1);
      MemorySegment result = arena.allocate(8, 8);
      result.set(ValueLayout.JAVA_LONG, 0, -1);
      try (Initiator ini = new Initiator("ucx", Initiator.manual(transport))) {
        long peer = ini.av.insert(target.address);
        assertEquals(
            0,
            ini.ep.fetchAtomic(
                one,
                1,
                null,
                result,
                null,
                peer,
                0,
                target.key,
                FiDatatype.UINT64,
                FiOp.SUM,
                null));
        ini.awaitCompletion();
      }
      assertEquals(0, result.get(ValueLayout.JAVA_LONG, 0));
      assertEquals(1, ByteBuffer.wrap(target.get(0, 8)).order(ByteOrder.LITTLE_ENDIAN).getLong());
      assertEquals(refused(), count(target, "refusing a control message"), "nothing more refused");
    }
  }

  private static int malformed() {
    return HostileControlProcess.MALFORMED;
  }

  private static int refused() {
    return HostileControlProcess.REFUSED;
  }

  /** The count {@code ucx.errors} shows for {@code place}, 0 when it shows none. */
  private static long count(ServingTarget target, String place) {
    Matcher m =
        Pattern.compile(Pattern.quote(place) + " (\\d+)").matcher(target.fact("ucx.errors"));
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }
}
