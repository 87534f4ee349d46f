package dev.fiucx.perf.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.fiucx.Domain;
import dev.fiucx.EmulationCounts;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * What one initiator process of bench -P reports to its parent: the {@code process} section of its
 * {@code --json} (its calls per thread, when it measured on the host's monotonic clock, its whole
 * latency histogram, HdrHistogram's compressed encoding in base64, so the parent adds histograms
 * exactly, and its domains' emulation counters), written by the initiator and read by the parent.
 *
 * @param pid the initiator's process id
 * @param opsPerThread calls each of its threads completed while measuring
 * @param callsPerThread calls each of its threads made, warm-up included
 * @param startNanos when its first thread started measuring ({@code System.nanoTime})
 * @param endNanos when its last thread finished
 * @param error 0, or the negative fi_errno that stopped one of its threads
 * @param emulation its domains' {@link EmulationCounts} since they opened (warm-up included), by
 *     their JSON names, added up over its domains (the {@code max_} ones: the largest)
 */
record InitiatorFigures(
    long pid,
    long[] opsPerThread,
    long[] callsPerThread,
    long startNanos,
    long endNanos,
    Histogram histogram,
    int error,
    Map<String, Long> emulation) {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The counters' JSON names, in {@link EmulationCounts}' order. */
  private static final Map<String, ToLongFunction<EmulationCounts>> COUNTERS = counters();

  private static Map<String, ToLongFunction<EmulationCounts>> counters() {
    Map<String, ToLongFunction<EmulationCounts>> m = new LinkedHashMap<>();
    m.put("cas_elements", EmulationCounts::casElements);
    m.put("cas_attempts", EmulationCounts::casAttempts);
    m.put("cas_retries", EmulationCounts::casRetries);
    m.put("swaps_skipped", EmulationCounts::swapsSkipped);
    m.put("lock_elements", EmulationCounts::lockElements);
    m.put("lock_acquisitions", EmulationCounts::lockAcquisitions);
    m.put("lock_waits", EmulationCounts::lockWaits);
    m.put("lock_turns", EmulationCounts::lockTurns);
    m.put("max_lock_turns", EmulationCounts::maxLockTurns);
    m.put("tickets", EmulationCounts::tickets);
    m.put("max_ticket_turns", EmulationCounts::maxTicketTurns);
    m.put("turns_skipped", EmulationCounts::turnsSkipped);
    m.put("locks_taken_over", EmulationCounts::locksTakenOver);
    m.put("locks_reclaimed", EmulationCounts::locksReclaimed);
    m.put("lock_restarts", EmulationCounts::lockRestarts);
    m.put("locks_lost", EmulationCounts::locksLost);
    m.put("puts_skipped", EmulationCounts::putsSkipped);
    return m;
  }

  /** Calls completed while measuring, all its threads. */
  long ops() {
    return Arrays.stream(opsPerThread).sum();
  }

  /** Calls made in all, warm-up included, all its threads: what the target saw of it. */
  long calls() {
    return Arrays.stream(callsPerThread).sum();
  }

  /**
   * Its run as one process's: its own calls, measuring time and histogram.
   *
   * @param cfg the run's configuration (one initiator's threads)
   * @param check the target check over every initiator's elements
   */
  BenchResult result(BenchConfig cfg, TargetCheck check) {
    return new BenchResult(
        cfg,
        opsPerThread,
        callsPerThread,
        seconds(),
        histogram,
        error,
        check,
        List.of(),
        startNanos,
        endNanos);
  }

  double seconds() {
    return (endNanos - startNanos) / 1e9;
  }

  /** Its own rate: its calls over its own measuring time. */
  double opsPerSecond() {
    double s = seconds();
    return s > 0 ? ops() / s : 0;
  }

  /** Counters of several initiators added up (the {@code max_} ones: the largest). */
  static Map<String, Long> sum(List<InitiatorFigures> all) {
    Map<String, Long> m = new LinkedHashMap<>();
    for (String k : COUNTERS.keySet()) {
      long v = 0;
      for (InitiatorFigures f : all) {
        long x = f.emulation.getOrDefault(k, 0L);
        v = k.startsWith("max_") ? Math.max(v, x) : v + x;
      }
      m.put(k, v);
    }
    return m;
  }

  /** An initiator's {@code process} section: its run {@code r} and its {@code domains}' counts. */
  static ObjectNode section(BenchResult r, List<Domain> domains) {
    ObjectNode o = JSON.createObjectNode();
    o.put("pid", ProcessHandle.current().pid());
    array(o.putArray("ops_per_thread"), r.opsPerThread());
    array(o.putArray("calls_per_thread_with_warmup"), r.callsPerThread());
    o.put("measuring_start_ns", r.startNanos());
    o.put("measuring_end_ns", r.endNanos());
    o.put("error", r.error());
    ByteBuffer buf = ByteBuffer.allocate(r.histogram().getNeededByteBufferCapacity());
    int n = r.histogram().encodeIntoCompressedByteBuffer(buf);
    o.put("histogram", Base64.getEncoder().encodeToString(Arrays.copyOf(buf.array(), n)));
    ObjectNode em = o.putObject("emulation");
    COUNTERS.forEach(
        (k, f) -> {
          long v = 0;
          for (Domain d : domains) {
            long x = f.applyAsLong(d.emulationCounts());
            v = k.startsWith("max_") ? Math.max(v, x) : v + x;
          }
          em.put(k, v);
        });
    ObjectNode root = JSON.createObjectNode();
    root.set("process", o);
    return root;
  }

  /** The {@code process} section of an initiator's JSON file. */
  static InitiatorFigures read(Path json) throws IOException {
    JsonNode p = JSON.readTree(json.toFile()).get("process");
    if (p == null) {
      throw new IOException(json + " has no process section");
    }
    Map<String, Long> em = new LinkedHashMap<>();
    p.get("emulation").properties().forEach(e -> em.put(e.getKey(), e.getValue().asLong()));
    Histogram h;
    try {
      h =
          Histogram.decodeFromCompressedByteBuffer(
              ByteBuffer.wrap(Base64.getDecoder().decode(p.get("histogram").asText())), 0);
    } catch (DataFormatException | IllegalArgumentException e) {
      throw new IOException(json + ": the histogram does not decode: " + e.getMessage(), e);
    }
    return new InitiatorFigures(
        p.get("pid").asLong(),
        longs(p.get("ops_per_thread")),
        longs(p.get("calls_per_thread_with_warmup")),
        p.get("measuring_start_ns").asLong(),
        p.get("measuring_end_ns").asLong(),
        h,
        p.get("error").asInt(),
        em);
  }

  private static void array(ArrayNode a, long[] values) {
    for (long v : values) {
      a.add(v);
    }
  }

  private static long[] longs(JsonNode a) {
    long[] v = new long[a.size()];
    for (int i = 0; i < v.length; i++) {
      v[i] = a.get(i).asLong();
    }
    return v;
  }
}
