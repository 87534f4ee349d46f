package dev.fiucx.conformance.replay;

import dev.fiucx.conformance.replay.MemoryImages.Match;
import dev.fiucx.conformance.vectors.VectorCase;
import dev.fiucx.conformance.vectors.VectorReader;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;

/**
 * Runs vector files through an engine: one line per failing case, then the plain summary line
 * {@code N passed, M failed} (with {@code , K skipped} for cases the engine reports unsupported).
 */
public final class Replayer {
  private static final HexFormat HEX = HexFormat.of();

  /**
   * Counts of one replay; NaN-equal passes are counted among the passes and also apart.
   *
   * @param passed cases whose bytes matched
   * @param failed cases whose bytes differed or that failed
   * @param skipped cases the engine does not support
   * @param nanEqual passed cases that matched only as NaN of another payload
   */
  public record Summary(int passed, int failed, int skipped, int nanEqual) {
    /** {@return the summary line: {@code N passed, M failed[, K skipped]}} */
    public String line() {
      return passed
          + " passed, "
          + failed
          + " failed"
          + (skipped > 0 ? ", " + skipped + " skipped" : "");
    }
  }

  private final ReplayEngine engine;
  private final PrintStream out;
  private int passed;
  private int failed;
  private int skipped;
  private int nanEqual;

  /**
   * A replayer that prints each failure to {@code out}.
   *
   * @param engine the engine the cases run on
   * @param out where failures and the summary go
   */
  public Replayer(ReplayEngine engine, PrintStream out) {
    this.engine = engine;
    this.out = out;
  }

  /**
   * {@return the outcome of replaying every file (the summary line is printed)}
   *
   * @param files the vector files
   */
  public Summary replay(List<Path> files) {
    for (Path f : files) {
      VectorReader.read(
          f,
          this::replay,
          m ->
              fail(
                  m.id() == null ? m.source() + ":" + m.line() : m.id(),
                  "malformed at " + m.source() + ":" + m.line() + ": " + m.problem()));
    }
    Summary s = new Summary(passed, failed, skipped, nanEqual);
    if (nanEqual > 0) {
      out.println(
          nanEqual
              + " cases with NaN inputs passed as NaN-equal (NaN where NaN was expected, payload bits aside)");
    }
    out.println(s.line());
    return s;
  }

  /**
   * Replays one case and counts it.
   *
   * @param c the case
   */
  public void replay(VectorCase c) {
    ReplayEngine.Outcome o;
    try {
      o = engine.run(c);
    } catch (RuntimeException e) {
      fail(c.id(), "engine threw " + e);
      return;
    }
    switch (o.status()) {
      case UNSUPPORTED -> skipped++;
      case ERROR -> fail(c.id(), o.detail());
      case RAN -> check(c, o);
    }
  }

  private void check(VectorCase c, ReplayEngine.Outcome o) {
    Match target = MemoryImages.compare(c.datatype(), c.finalTarget(), o.finalTarget());
    Match result =
        c.family().fetches()
            ? MemoryImages.compare(c.datatype(), c.result(), o.result())
            : Match.EXACT;
    boolean nanOk = c.nan();
    boolean targetOk = target == Match.EXACT || (nanOk && target == Match.NAN_EQUAL);
    boolean resultOk = result == Match.EXACT || (nanOk && result == Match.NAN_EQUAL);
    if (targetOk && resultOk) {
      passed++;
      if (target == Match.NAN_EQUAL || result == Match.NAN_EQUAL) {
        nanEqual++;
      }
      return;
    }
    StringBuilder why = new StringBuilder();
    if (!targetOk) {
      why.append("final_target expected ")
          .append(hex(c.finalTarget()))
          .append(" got ")
          .append(hex(o.finalTarget()));
    }
    if (!resultOk) {
      if (!why.isEmpty()) {
        why.append("; ");
      }
      why.append("result expected ")
          .append(hex(c.result()))
          .append(" got ")
          .append(hex(o.result()));
    }
    fail(c.id(), why.toString());
  }

  private void fail(String id, String why) {
    failed++;
    out.println("FAIL " + id + ": " + why);
  }

  private static String hex(byte[] b) {
    return b == null ? "null" : HEX.formatHex(b);
  }
}
