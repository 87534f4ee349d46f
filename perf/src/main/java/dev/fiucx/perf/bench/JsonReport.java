package dev.fiucx.perf.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * bench's JSON: every input, the machine, UCX (version, transports, lanes), the cell and path,
 * every figure of the run (latencies in nanoseconds), the target check, and when asked the window
 * sweep and the comparison with ucx_perftest (at top level, {@code vs_ucx_perftest}).
 */
final class JsonReport {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private JsonReport() {}

  static void write(
      Path file,
      BenchConfig cfg,
      RunFacts facts,
      BenchResult result,
      List<BenchResult> sweep,
      PerftestComparison vs)
      throws IOException {
    ObjectNode root = JSON.createObjectNode();
    root.put("tool", "fiucx bench");
    root.put("fiucx_version", facts.machine().get("fiucx"));
    root.put("finished", Instant.now().toString());
    root.set("inputs", inputs(cfg, facts));
    ObjectNode machine = root.putObject("machine");
    facts.machine().forEach(machine::put);
    machine.put("cores", Integer.parseInt(facts.machine().get("cores")));
    ObjectNode ucx = root.putObject("ucx");
    ucx.put("version", facts.ucxVersion());
    ucx.put("tls", facts.ucxTls());
    ucx.put("atomic_mode", facts.domain().get("ucx.atomic_mode"));
    ObjectNode lanes = ucx.putObject("lanes");
    facts.lanes().forEach(lanes::put);
    ObjectNode domain = root.putObject("domain");
    facts.domain().forEach(domain::put);
    ObjectNode cell = root.putObject("cell");
    cell.put("family", cfg.family().label());
    cell.put("op", cfg.op().fiName());
    cell.put("datatype", cfg.datatype().fiName());
    cell.put("mechanism", facts.attr().mechanism().name());
    cell.put("count_limit", facts.attr().count());
    cell.put("size", facts.attr().size());
    cell.put("reason", facts.attr().reason());
    cell.put("path", facts.path());
    root.set("results", figures(result));
    ObjectNode check = root.putObject("target_check");
    check.put("checked", result.check().checked());
    check.put("ok", result.check().ok());
    check.put("detail", result.check().detail());
    if (sweep != null) {
      ArrayNode s = root.putArray("sweep");
      sweep.forEach(r -> s.add(figures(r)));
    }
    if (vs != null) {
      root.set("vs_ucx_perftest", comparison(vs));
    }
    JSON.writeValue(file.toFile(), root);
  }

  private static ObjectNode inputs(BenchConfig cfg, RunFacts facts) {
    ObjectNode in = JSON.createObjectNode();
    in.put("family", cfg.family().label());
    in.put("op", cfg.op().fiName());
    in.put("datatype", cfg.datatype().fiName());
    in.put("count", cfg.count());
    in.put("window", cfg.window());
    in.put("iterations", cfg.duration() == null ? cfg.iterations() : null);
    in.put("warmup", cfg.warmup());
    in.put("threads", cfg.threads());
    in.put("transport", cfg.transport());
    in.put("progress", cfg.progress().name().toLowerCase(Locale.ROOT));
    if (cfg.duration() == null) {
      in.putNull("duration_s");
    } else {
      in.put("duration_s", cfg.duration().toMillis() / 1e3);
    }
    in.put("direct_path", cfg.directPath());
    in.put("threading", cfg.domainAttr().threading().name().toLowerCase(Locale.ROOT));
    in.put("api", cfg.api().name().toLowerCase(Locale.ROOT));
    in.put("target", facts.target());
    in.put("target_started_by_bench", facts.targetStarted());
    in.put("target_serve_region", facts.servedRegion());
    in.put("target_progress", facts.targetProgress());
    return in;
  }

  /** One run's figures; latencies in nanoseconds. */
  static ObjectNode figures(BenchResult r) {
    ObjectNode o = JSON.createObjectNode();
    o.put("window", r.config().window());
    o.put("threads", r.config().threads());
    o.put("ops", r.ops());
    o.put("elements", r.elements());
    ArrayNode perThread = o.putArray("ops_per_thread");
    for (long v : r.opsPerThread()) {
      perThread.add(v);
    }
    ArrayNode calls = o.putArray("calls_per_thread_with_warmup");
    for (long v : r.callsPerThread()) {
      calls.add(v);
    }
    o.put("seconds", r.seconds());
    o.put("ops_per_s", r.opsPerSecond());
    o.put("elements_per_s", r.elementsPerSecond());
    o.put("overall_ns_per_op", r.overallNanosPerOp());
    o.put("error", r.error());
    LatencySummary l = r.latency();
    ObjectNode lat = o.putObject("latency_ns");
    lat.put("kind", l.kindKey());
    lat.put("samples", l.samples());
    lat.put("p50", l.p50());
    lat.put("p90", l.p90());
    lat.put("p99", l.p99());
    lat.put("p99_9", l.p999());
    lat.put("max", l.max());
    lat.put("mean", l.mean());
    return o;
  }

  private static ObjectNode comparison(PerftestComparison vs) {
    ObjectNode o = JSON.createObjectNode();
    o.put("latency_ratio", vs.latency().median());
    o.put("rate_ratio", vs.rate().median());
    o.put("rounds", vs.rounds().size());
    o.put("latency_ratio_min", vs.latency().min());
    o.put("latency_ratio_max", vs.latency().max());
    o.put("rate_ratio_min", vs.rate().min());
    o.put("rate_ratio_max", vs.rate().max());
    o.put("mode", vs.mode());
    o.put("test", vs.match().test());
    o.put("size", vs.match().size());
    o.put("window", vs.window());
    o.put("iterations", vs.iterations());
    o.put("ucx_tls", vs.ucxTls());
    ArrayNode rounds = o.putArray("per_round");
    for (PerftestComparison.Round r : vs.rounds()) {
      ObjectNode round = rounds.addObject();
      round.put("round", r.round());
      round.put("latency_ratio", r.latencyRatio());
      round.put("rate_ratio", r.rateRatio());
      ObjectNode f = round.putObject("fiucx");
      f.put("ops", r.fiucx().ops());
      f.put("overall_latency_us", r.fiucx().overallNanosPerOp() / 1e3);
      f.put("p50_us", r.fiucx().latency().p50() / 1e3);
      f.put("ops_per_s", r.fiucx().opsPerSecond());
      f.put("clock_free_overall_latency_us", r.clockFree().overallNanosPerOp() / 1e3);
      f.put("clock_free_ops_per_s", r.clockFree().opsPerSecond());
      PerftestResult p = r.perftest();
      ObjectNode pt = round.putObject("ucx_perftest");
      pt.put("iterations", p.iterations());
      pt.put("p50_us_last_samples", p.p50Micros());
      pt.put("average_latency_us_last_interval", p.averageLatencyMicros());
      pt.put("overall_latency_us", p.overallLatencyMicros());
      pt.put("average_rate_last_interval", p.averageRate());
      pt.put("overall_rate", p.overallRate());
      pt.put("overall_bandwidth_mb_s", p.overallBandwidthMBs());
    }
    return o;
  }
}
