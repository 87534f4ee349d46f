package dev.fiucx.perf.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.fiucx.AtomicAttr;
import dev.fiucx.BootstrapSecurity;
import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import dev.fiucx.FiFlags;
import dev.fiucx.Mechanism;
import dev.fiucx.ServeAttr;
import dev.fiucx.Server;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * bench -P: N initiator processes against one target, as OSU's multi-pair tests run one pair per
 * process. The target is a serve this process runs itself (on loopback, with a fresh secret) or a
 * user's ({@code --connect HOST:PORT --region NAME}). This process reads every element the
 * initiators will change ({@link ElementReader}), starts them ({@link InitiatorProcess}), lets them
 * measure together once all have warmed up, checks each one's exit status, reads each one's figures
 * from its JSON ({@link InitiatorFigures}), reads the elements again and checks them against what
 * every initiator's calls leave ({@link TargetCheck#ofSlots}).
 *
 * <p>The aggregate rate is every initiator's calls over the common measuring interval: from the
 * first initiator's start to the last one's end, on the host's monotonic clock that every process
 * of the host shares ({@code System.nanoTime}), as bench's threads are counted in one process.
 */
final class ProcessesRun {
  /** The region of the serve -P runs itself. */
  static final String REGION = "bench";

  private static final long RW = FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE;

  private BenchConfig cfg;
  private final int processes;
  private final boolean sameElement;
  private final BenchOutputs outputs;
  private final PrintStream out;
  private final PrintStream csv;
  private final PrintStream err;
  private CpuSet cpus;
  private Duration warmupLimit = ProcessOptions.WARMUP_LIMIT;

  ProcessesRun(
      BenchConfig cfg,
      int processes,
      boolean sameElement,
      BenchOutputs outputs,
      PrintStream out,
      PrintStream err) {
    this.cfg = cfg;
    this.processes = processes;
    this.sameElement = sameElement;
    this.outputs = outputs;
    this.out = outputs.csv() ? err : out;
    this.csv = out;
    this.err = err;
  }

  /**
   * How long to wait for every initiator to say it has warmed up; after that every initiator is
   * killed and the run fails, naming those that did not say it.
   */
  ProcessesRun warmupLimit(Duration limit) {
    this.warmupLimit = limit;
    return this;
  }

  /** The CPUs each initiator's threads pin themselves to ({@code -c}), or null: for the header. */
  ProcessesRun pinTo(CpuSet set) {
    this.cpus = set;
    return this;
  }

  /** Elements shared by several threads: one slot per thread, or per thread number. */
  int slots() {
    return sameElement ? cfg.threads() : processes * cfg.threads();
  }

  /** Where initiator {@code p}'s thread 0's elements are. */
  long elementsAt(int p) {
    return sameElement ? 0 : (long) p * cfg.threads() * cfg.threadStride();
  }

  /**
   * @param host the serve's host, or null to run a serve here
   * @param region the serve's region (null with {@code host} null)
   * @param transportGiven whether --transport was given (else a user's serve's is taken)
   * @param passedOn the options every initiator gets as they were given
   * @return the exit status
   */
  int run(
      String host,
      int port,
      String region,
      BootstrapSecurity security,
      boolean transportGiven,
      List<String> passedOn)
      throws IOException {
    long regionBytes = slots() * cfg.threadStride();
    Server own = null;
    if (host == null) {
      byte[] secret = ServerProcess.randomSecret();
      security = BootstrapSecurity.none().withSecret(secret);
      own =
          Fabric.serve(
              "ucx",
              new ServeAttr(
                  "127.0.0.1",
                  0,
                  List.of(new ServeAttr.Region(REGION, regionBytes, RW)),
                  new DomainAttr(cfg.transport(), DomainAttr.Progress.AUTO, false, Map.of()),
                  security),
              null);
      host = "127.0.0.1";
      port = own.port();
      region = REGION;
    }
    try (Server s = own;
        ServeLink link = new ServeLink(host, port, region, regionBytes, security)) {
      if (!transportGiven && link.transport() != null) {
        cfg = cfg.withTransport(link.transport());
      }
      try (BenchInitiator observer =
          new BenchInitiator(cfg.withThreads(1).withWindow(1), 1, regionBytes)) {
        AtomicAttr attr = BenchSession.checkedCell(cfg, observer.domain());
        observer.connect(link.address());
        String path = observer.endpoint(0).atomicPath(observer.peer(0), link.key());
        RunFacts facts =
            new RunFacts(
                host + ":" + port,
                own != null,
                region,
                own != null ? "auto" : null,
                attr,
                path,
                observer.domain().describe(),
                MachineFacts.collect());
        BenchHeader.print(out, cfg, facts, cpus);
        out.printf("  %-10s %s%n", "initiators", initiatorsWords());
        out.flush();
        ElementReader reader = new ElementReader(observer, link.key());
        byte[][] before = readSlots(reader);
        List<InitiatorFigures> figures =
            initiators(host + ":" + port, region, security.secret(), passedOn);
        if (figures == null) {
          return 1;
        }
        byte[][] after = readSlots(reader);
        return report(facts.withDomain(observer.domain().describe()), figures, before, after);
      }
    }
  }

  /** How many initiators, and on which elements: for the header and the page. */
  private String initiatorsWords() {
    return processes
        + " processes (each a JVM with the threads above), "
        + (sameElement
            ? "all on the same elements (--same-element)"
            : "each on elements of its own");
  }

  private byte[][] readSlots(ElementReader reader) throws IOException {
    byte[][] slots = new byte[slots()][];
    for (int s = 0; s < slots.length; s++) {
      slots[s] = reader.read(s * cfg.threadStride(), cfg.datatype(), cfg.count());
    }
    return slots;
  }

  /**
   * Starts the initiators, lets them measure together once all have warmed up, and reads their
   * figures; null (having said why) when one failed, or when one had not said it warmed up once the
   * warm-up's limit passed (every initiator is killed then).
   */
  private List<InitiatorFigures> initiators(
      String target, String region, byte[] secret, List<String> passedOn) throws IOException {
    Path dir = Files.createTempDirectory("fiucx-bench-processes");
    List<InitiatorProcess> started = new ArrayList<>();
    try {
      for (int p = 0; p < processes; p++) {
        List<String> args = new ArrayList<>(passedOn);
        args.addAll(List.of("--connect", target, "--region", region));
        args.addAll(List.of("--json", json(dir, p).toString(), "--parent-watch"));
        args.addAll(List.of("--initiator-of-processes", "--elements-at", "" + elementsAt(p)));
        started.add(new InitiatorProcess(p, args, secret));
      }
      long deadline = System.nanoTime() + warmupLimit.toNanos();
      List<InitiatorProcess> silent = new ArrayList<>();
      for (InitiatorProcess c : started) {
        switch (c.awaitWarmedUp(deadline)) {
          case EXITED -> {
            failed(c, c.waitFor(), "before it warmed up");
            return null;
          }
          case SILENT -> silent.add(c);
          case DONE -> {}
        }
      }
      if (!silent.isEmpty()) {
        silent(silent);
        started.forEach(InitiatorProcess::kill);
        return null;
      }
      for (InitiatorProcess c : started) {
        c.go();
      }
      boolean ok = true;
      for (InitiatorProcess c : started) {
        int status = c.waitFor();
        if (status != 0) {
          failed(c, status, "");
          ok = false;
        }
      }
      if (!ok) {
        return null;
      }
      List<InitiatorFigures> figures = new ArrayList<>();
      for (int p = 0; p < processes; p++) {
        figures.add(InitiatorFigures.read(json(dir, p)));
      }
      return figures;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while the initiators ran", e);
    } finally {
      started.forEach(InitiatorProcess::close);
      for (int p = 0; p < processes; p++) {
        Files.deleteIfExists(json(dir, p));
      }
      Files.deleteIfExists(dir);
    }
  }

  private static Path json(Path dir, int p) {
    return dir.resolve("initiator-" + p + ".json");
  }

  /** Says which initiators did not say they warmed up in time, with their last lines. */
  private void silent(List<InitiatorProcess> silent) {
    List<String> names = new ArrayList<>();
    for (InitiatorProcess c : silent) {
      c.lastLines().forEach(err::println);
      names.add(c.index() + " (pid " + c.pid() + ")");
    }
    err.printf(
        Locale.ROOT,
        "fiucx bench: initiator%s %s did not say %s warmed up within %s; every initiator was"
            + " killed (--warmup-limit gives a slow warm-up longer)%n",
        silent.size() == 1 ? "" : "s",
        String.join(", ", names),
        silent.size() == 1 ? "it had" : "they had",
        words(warmupLimit));
  }

  /** A limit in words: 120 s, 1500 ms. */
  private static String words(Duration d) {
    long ms = d.toMillis();
    return ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms";
  }

  private void failed(InitiatorProcess c, int status, String when) {
    c.lastLines().forEach(err::println);
    err.printf(
        "fiucx bench: initiator %d (pid %d) exited with status %d%s%n",
        c.index(), c.pid(), status, when.isEmpty() ? "" : " " + when);
  }

  /** The tables, the fairness, the emulation's counts, the check and the JSON; the exit status. */
  private int report(
      RunFacts facts, List<InitiatorFigures> figures, byte[][] before, byte[][] after)
      throws IOException {
    int threads = cfg.threads();
    long[] ops = new long[processes * threads];
    long[] calls = new long[processes * threads];
    long[] callsPerSlot = new long[slots()];
    Histogram all = new Histogram(1, MeasuringLoop.HIGHEST_NANOS, 3);
    long start = Long.MAX_VALUE;
    long end = Long.MIN_VALUE;
    long lastStart = Long.MIN_VALUE;
    long firstEnd = Long.MAX_VALUE;
    double[] rates = new double[processes];
    for (int p = 0; p < processes; p++) {
      InitiatorFigures f = figures.get(p);
      for (int t = 0; t < threads; t++) {
        ops[p * threads + t] = f.opsPerThread()[t];
        calls[p * threads + t] = f.callsPerThread()[t];
        callsPerSlot[sameElement ? t : p * threads + t] += f.callsPerThread()[t];
      }
      all.add(f.histogram());
      start = Math.min(start, f.startNanos());
      end = Math.max(end, f.endNanos());
      lastStart = Math.max(lastStart, f.startNanos());
      firstEnd = Math.min(firstEnd, f.endNanos());
      rates[p] = f.opsPerSecond();
    }
    TargetCheck check = TargetCheck.ofSlots(cfg, before, after, callsPerSlot);
    BenchResult total =
        new BenchResult(
            cfg.withThreads(processes * threads),
            ops,
            calls,
            (end - start) / 1e9,
            all,
            0,
            check,
            List.of(),
            start,
            end);
    Fairness fair = Fairness.of(rates);
    Percentiles ranks = outputs.ranks();
    printInitiators(figures, ranks);
    ResultTable table = new ResultTable(ranks);
    table.header(out, total.latency().kind());
    table.row(out, "all", total);
    table.footer(out);
    String fairness =
        String.format(
            Locale.ROOT,
            "min/max %.3f, Jain's index %.4f over %d initiators' calls/s",
            fair.minOverMax(),
            fair.jain(),
            processes);
    out.println("fairness: " + fairness);
    Map<String, Long> em = InitiatorFigures.sum(figures);
    String counts = emulationLine(facts.attr().mechanism(), em);
    if (counts != null) {
      out.println(counts);
    }
    out.println("target check: " + check.detail());
    if (outputs.csv()) {
      csvRows(facts, figures, check, total, fair);
    }
    writeFiles(facts, figures, total, all, fairness);
    if (outputs.json() != null) {
      ObjectNode more = new ObjectMapper().createObjectNode();
      ObjectNode section = more.putObject("processes");
      section.put("count", processes);
      section.put("same_element", sameElement);
      section.put("slots", slots());
      section.put("first_start_to_last_end_s", (end - start) / 1e9);
      section.put("all_measuring_s", Math.max(0, firstEnd - lastStart) / 1e9);
      ObjectNode fairnessNode = section.putObject("fairness");
      fairnessNode.put("min_over_max", fair.minOverMax());
      fairnessNode.put("jain_index", fair.jain());
      fairnessNode.put("over", "ops_per_s of each initiator");
      ObjectNode emulation = section.putObject("emulation");
      em.forEach(emulation::put);
      ArrayNode list = section.putArray("initiators");
      for (int p = 0; p < processes; p++) {
        list.add(initiator(p, figures.get(p), ranks));
      }
      JsonReport.write(
          outputs.json(), cfg, facts, new JsonReport.Run(ranks, cpus), total, null, null, more);
    }
    if (!check.ok()) {
      err.println("fiucx bench: the target holds a wrong value: " + check.detail());
      return 1;
    }
    return 0;
  }

  /**
   * {@code --html}, {@code --hgrm} and {@code --plot}: the page of the one cell with all
   * initiators' figures and a line per initiator, the distribution of all their samples, and the
   * plot of all their latencies with a curve per initiator.
   */
  private void writeFiles(
      RunFacts facts,
      List<InitiatorFigures> figures,
      BenchResult total,
      Histogram all,
      String fairness)
      throws IOException {
    Percentiles ranks = outputs.ranks();
    Map<String, String> page = RunFiles.pageFacts(cfg, facts, cfg.cellLabel(), cpus);
    page.put("initiators", initiatorsWords());
    page.put("fairness", fairness);
    List<PlotWriter.Curve> curves = new ArrayList<>();
    curves.add(
        new PlotWriter.Curve(
            "all "
                + processes
                + " initiators: "
                + Figures.rate(total.opsPerSecond()).strip()
                + " calls/s",
            all));
    for (int p = 0; p < processes; p++) {
      InitiatorFigures f = figures.get(p);
      LatencySummary l = LatencySummary.of(f.histogram(), cfg.window() == 1, ranks);
      String rate = Figures.rate(f.opsPerSecond()).strip() + " calls/s";
      page.put(
          "initiator " + p,
          String.format(
              Locale.ROOT,
              "pid %d: %d calls in %.3f s, %s, %s %s us, max %s us",
              f.pid(),
              f.ops(),
              f.seconds(),
              rate,
              ranks.head(0),
              Figures.micros(l.values()[0]),
              Figures.micros(l.max())));
      curves.add(
          new PlotWriter.Curve(
              "initiator " + p + " (pid " + f.pid() + "): " + rate, f.histogram()));
    }
    RunFiles.write(
        outputs, cfg, facts, page, total, null, curves, ", " + processes + " initiator processes");
  }

  /**
   * {@code --csv}: the header with -P's columns, a row per initiator (its own calls, time, rate and
   * latencies), then one for all of them ({@code all}: as the table's row, with the fairness).
   */
  private void csvRows(
      RunFacts facts,
      List<InitiatorFigures> figures,
      TargetCheck check,
      BenchResult total,
      Fairness fair) {
    Percentiles ranks = outputs.ranks();
    String mechanism = facts.attr().mechanism().name();
    CsvLine.header(csv, ranks, true);
    long calls = 0;
    for (int p = 0; p < processes; p++) {
      InitiatorFigures f = figures.get(p);
      long mine = f.calls();
      calls += mine;
      CsvLine.row(
          csv,
          ranks,
          mechanism,
          facts.path(),
          f.result(cfg, check),
          List.of(Integer.toString(p), Long.toString(f.pid()), Long.toString(mine), "", ""));
    }
    CsvLine.row(
        csv,
        ranks,
        mechanism,
        facts.path(),
        total,
        List.of(
            "all",
            "",
            Long.toString(calls),
            CsvLine.num(fair.minOverMax()),
            String.format(Locale.ROOT, "%.4f", fair.jain())));
    csv.flush();
  }

  private ObjectNode initiator(int p, InitiatorFigures f, Percentiles ranks) {
    ObjectNode o = new ObjectMapper().createObjectNode();
    o.put("index", p);
    o.put("pid", f.pid());
    o.put("elements_at", elementsAt(p));
    o.put("ops", f.ops());
    o.put("elements", f.ops() * cfg.count());
    o.put("seconds", f.seconds());
    o.put("ops_per_s", f.opsPerSecond());
    o.put("elements_per_s", f.opsPerSecond() * cfg.count());
    ArrayNode perThread = o.putArray("ops_per_thread");
    for (long v : f.opsPerThread()) {
      perThread.add(v);
    }
    ArrayNode calls = o.putArray("calls_per_thread_with_warmup");
    for (long v : f.callsPerThread()) {
      calls.add(v);
    }
    LatencySummary l = LatencySummary.of(f.histogram(), cfg.window() == 1, ranks);
    ObjectNode lat = o.putObject("latency_ns");
    lat.put("kind", l.kindKey());
    lat.put("samples", l.samples());
    for (int i = 0; i < ranks.size(); i++) {
      lat.put(ranks.key(i), l.values()[i]);
    }
    lat.put("max", l.max());
    lat.put("mean", l.mean());
    ObjectNode em = o.putObject("emulation");
    f.emulation().forEach(em::put);
    return o;
  }

  private void printInitiators(List<InitiatorFigures> figures, Percentiles ranks) {
    out.println();
    out.printf(
        "%-10s %9s %12s %9s %13s %13s %11s %11s%n",
        "initiator",
        "pid",
        "# calls",
        "seconds",
        "calls/s",
        "elements/s",
        ranks.head(0) + " us",
        "max us");
    for (int p = 0; p < figures.size(); p++) {
      InitiatorFigures f = figures.get(p);
      LatencySummary l = LatencySummary.of(f.histogram(), cfg.window() == 1, ranks);
      out.printf(
          Locale.ROOT,
          "%-10d %9d %12d %9.3f %13.0f %13.0f %11s %11s%n",
          p,
          f.pid(),
          f.ops(),
          f.seconds(),
          f.opsPerSecond(),
          f.opsPerSecond() * cfg.count(),
          Figures.micros(l.values()[0]),
          Figures.micros(l.max()));
    }
  }

  /** What the emulation did, added up over the initiators' domains (warm-up included), or null. */
  static String emulationLine(Mechanism mechanism, Map<String, Long> em) {
    return switch (mechanism) {
      case REMOTE_LOCK ->
          String.format(
              Locale.ROOT,
              "remote lock: %d elements, %d lock waits, %d tickets (at most %d turns), %d taken"
                  + " over, %d lost, %d restarts (all initiators, warm-up included)",
              em.get("lock_elements"),
              em.get("lock_waits"),
              em.get("tickets"),
              em.get("max_lock_turns"),
              em.get("locks_taken_over"),
              em.get("locks_lost"),
              em.get("lock_restarts"));
      case CAS_LOOP ->
          String.format(
              Locale.ROOT,
              "cas loop: %d elements, %d compare-and-swaps, %d retries (all initiators, warm-up"
                  + " included)",
              em.get("cas_elements"),
              em.get("cas_attempts"),
              em.get("cas_retries"));
      default -> null;
    };
  }
}
