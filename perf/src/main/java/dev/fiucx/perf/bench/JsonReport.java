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
 * bench's JSON: every input, the machine, UCX (version, transports, lanes), the pinning, the cell
 * and path, every figure of the run (latencies in nanoseconds), the target check, and when asked
 * the window sweep and the comparison with ucx_perftest (at top level, {@code vs_ucx_perftest}). A
 * matrix is one document too: the run's facts once, then a {@code cells} array, each cell with its
 * mechanism, figures and target check, or why it was not timed.
 */
final class JsonReport {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private JsonReport() {}

  /** What every report says of its run, besides the cells: how figures are reported, pinning. */
  record Run(Percentiles percentiles, CpuSet cpus) {}

  static void write(
      Path file,
      BenchConfig cfg,
      RunFacts facts,
      Run run,
      BenchResult result,
      List<BenchResult> sweep,
      PerftestComparison vs)
      throws IOException {
    write(file, cfg, facts, run, result, sweep, vs, null);
  }

  /**
   * The same, with {@code more}'s fields at the top level after the rest (bench -P's {@code
   * processes}, an initiator's {@code process}), or null.
   */
  static void write(
      Path file,
      BenchConfig cfg,
      RunFacts facts,
      Run run,
      BenchResult result,
      List<BenchResult> sweep,
      PerftestComparison vs,
      ObjectNode more)
      throws IOException {
    ObjectNode root = facts(cfg, facts, run);
    ObjectNode cell = root.putObject("cell");
    cell.put("family", cfg.family().label());
    cell.put("op", cfg.op().fiName());
    cell.put("datatype", cfg.datatype().fiName());
    cell.put("mechanism", facts.attr().mechanism().name());
    cell.put("count_limit", facts.attr().count());
    cell.put("size", facts.attr().size());
    cell.put("reason", facts.attr().reason());
    cell.put("path", facts.path());
    root.set("results", figures(result, run.percentiles()));
    root.set("target_check", check(result.check()));
    if (sweep != null) {
      ArrayNode s = root.putArray("sweep");
      sweep.forEach(r -> s.add(figures(r, run.percentiles())));
    }
    if (vs != null) {
      root.set("vs_ucx_perftest", comparison(vs));
    }
    if (more != null) {
      root.setAll(more);
    }
    JSON.writeValue(file.toFile(), root);
  }

  /**
   * A matrix: the facts once, {@code selection}, {@code summary} (cells per outcome), then {@code
   * cells} in the table's order.
   */
  static void writeMatrix(
      Path file,
      BenchConfig cfg,
      RunFacts facts,
      Run run,
      CellSelection selection,
      List<MatrixCell> cells)
      throws IOException {
    ObjectNode root = facts(cfg, facts, run);
    // the cells are the selection's, each named in its entry
    ((ObjectNode) root.get("inputs")).remove(List.of("family", "op", "datatype"));
    ObjectNode sel = root.putObject("selection");
    ArrayNode fam = sel.putArray("families");
    if (selection.familyNamed()) {
      selection.families().forEach(f -> fam.add(f.label()));
    }
    sel.put("family_of_each_op", !selection.familyNamed());
    ArrayNode ops = sel.putArray("ops");
    selection.ops().forEach(o -> ops.add(o.fiName()));
    ArrayNode types = sel.putArray("datatypes");
    selection.datatypes().forEach(d -> types.add(d.fiName()));
    root.put("path", facts.path());
    ObjectNode summary = root.putObject("summary");
    summary.put("cells", cells.size());
    summary.put("valid", cells.stream().filter(MatrixCell::valid).count());
    summary.put("timed", cells.stream().filter(c -> c.status().timed()).count());
    for (MatrixCell.Status st : MatrixCell.Status.values()) {
      summary.put(
          st.word().replace(' ', '_'), cells.stream().filter(c -> c.status() == st).count());
    }
    ArrayNode array = root.putArray("cells");
    for (MatrixCell c : cells) {
      ObjectNode o = array.addObject();
      o.put("family", c.cfg().family().label());
      o.put("op", c.cfg().op().fiName());
      o.put("datatype", c.cfg().datatype().fiName());
      o.put("valid", c.valid());
      o.put("status", c.status().word());
      if (c.valid()) {
        o.put("mechanism", c.mechanismName());
        o.put("count_limit", c.attr().count());
        o.put("size", c.attr().size());
        o.put("mechanism_reason", c.attr().reason());
      } else {
        o.putNull("mechanism");
      }
      o.put("reason", c.reason());
      if (c.result() != null) {
        o.set("results", figures(c.result(), run.percentiles()));
        o.set("target_check", check(c.result().check()));
      }
    }
    JSON.writeValue(file.toFile(), root);
  }

  private static ObjectNode check(TargetCheck c) {
    ObjectNode check = JSON.createObjectNode();
    check.put("checked", c.checked());
    check.put("ok", c.ok());
    check.put("detail", c.detail());
    return check;
  }

  /** The document's head: tool, inputs, machine, UCX, domain and pinning. */
  private static ObjectNode facts(BenchConfig cfg, RunFacts facts, Run run) {
    ObjectNode root = JSON.createObjectNode();
    root.put("tool", "fiucx bench");
    root.put("fiucx_version", facts.machine().get("fiucx"));
    root.put("finished", Instant.now().toString());
    root.set("inputs", inputs(cfg, facts, run));
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
    if (run.cpus() == null) {
      root.putNull("pinning");
    } else {
      ObjectNode pin = root.putObject("pinning");
      pin.put("cpu_list", run.cpus().toString());
      ArrayNode cpus = pin.putArray("cpus");
      run.cpus().cpus().forEach(cpus::add);
      pin.put(
          "how",
          "sched_setaffinity(2) by each measuring thread on itself, before its first call; the"
              + " target, the provider's progress thread and the JVM's own threads are not pinned");
    }
    return root;
  }

  private static ObjectNode inputs(BenchConfig cfg, RunFacts facts, Run run) {
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
    ArrayNode ranks = in.putArray("percentiles");
    run.percentiles().ranks().forEach(ranks::add);
    in.put("cpus", run.cpus() == null ? null : run.cpus().toString());
    return in;
  }

  /**
   * One run's figures; latencies in nanoseconds, at {@code percentiles}' ranks; each measuring
   * thread's {@code Cpus_allowed_list} when they were pinned.
   */
  static ObjectNode figures(BenchResult r, Percentiles percentiles) {
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
    if (!r.cpusAllowed().isEmpty()) {
      ArrayNode allowed = o.putArray("cpus_allowed_per_thread");
      r.cpusAllowed().forEach(allowed::add);
    }
    LatencySummary l = r.latency(percentiles);
    ObjectNode lat = o.putObject("latency_ns");
    lat.put("kind", l.kindKey());
    lat.put("samples", l.samples());
    for (int i = 0; i < percentiles.size(); i++) {
      lat.put(percentiles.key(i), l.values()[i]);
    }
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
