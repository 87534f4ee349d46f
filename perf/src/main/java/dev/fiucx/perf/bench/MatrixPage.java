package dev.fiucx.perf.bench;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import dev.fiucx.conformance.report.OpMatrix;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * {@code --html}: one file, its style inline and nothing fetched from anywhere, in the conformance
 * report's manner: per family a table of ops by datatypes, each cell coloured by its mechanism
 * (native, CAS loop, remote lock; grey when invalid, red when its target check failed), showing p50
 * and the rate, with everything else about it in the cell's hover (its title attribute).
 */
final class MatrixPage {
  private static final String STYLE =
      """
      body { font-family: sans-serif; margin: 2em; color: #222; }
      table { border-collapse: collapse; margin-bottom: 1.5em; }
      th, td { border: 1px solid #bbb; padding: 3px 7px; text-align: center; font-size: 13px; }
      th { background: #eee; }
      td.op { text-align: left; font-family: monospace; }
      td.native { background: #9be39b; }
      td.cas { background: #c9ecff; }
      td.lock { background: #ffe7a8; }
      td.invalid { background: #f4f4f4; color: #999; }
      td.fail { background: #ff8f8f; font-weight: bold; }
      td.untimed { color: #777; font-style: italic; }
      table.facts th, table.facts td { text-align: left; }
      .summary { font-size: 1.2em; font-weight: bold; }
      """;

  private final StringBuilder html = new StringBuilder();
  private final Percentiles hover;

  private MatrixPage(Percentiles asked) {
    TreeSet<Double> ranks = new TreeSet<>(Percentiles.DEFAULT.ranks());
    ranks.addAll(asked.ranks());
    this.hover = new Percentiles(List.copyOf(ranks));
  }

  /**
   * Writes the page.
   *
   * @param facts the run's facts, label to value, shown at the top
   * @param percentiles the ranks asked ({@code -R}); the hover shows these and the default ones
   */
  static void write(
      Path file, Map<String, String> facts, List<MatrixCell> cells, Percentiles percentiles)
      throws IOException {
    Files.writeString(
        file, new MatrixPage(percentiles).render(facts, cells), StandardCharsets.UTF_8);
  }

  private String render(Map<String, String> facts, List<MatrixCell> cells) {
    html.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    html.append("<title>fiucx bench: ").append(cells.size()).append(" cells</title>\n");
    html.append("<style>").append(STYLE).append("</style>\n</head>\n<body>\n");
    html.append("<h1>fiucx bench: ").append(cells.size()).append(" cells</h1>\n");
    html.append("<table class=\"facts\">\n");
    fact("finished", Instant.now().toString());
    facts.forEach(this::fact);
    html.append("</table>\n");
    html.append("<p class=\"summary\">")
        .append(escape(MatrixTable.summary(cells)))
        .append("</p>\n");
    Map<AtomicFamily, List<MatrixCell>> byFamily = new LinkedHashMap<>();
    for (MatrixCell c : cells) {
      byFamily.computeIfAbsent(c.cfg().family(), f -> new ArrayList<>()).add(c);
    }
    byFamily.forEach(this::family);
    html.append("<p>")
        .append(escape(OpMatrix.LEGEND))
        .append("; invalid: the provider refuses the cell, never timed; red: the target held a")
        .append(
            " wrong value or a call failed. Each cell: p50 latency (microseconds) and calls per")
        .append(" second. Hover over a cell for the rest.</p>\n");
    html.append("</body>\n</html>\n");
    return html.toString();
  }

  private void family(AtomicFamily f, List<MatrixCell> cells) {
    Map<String, MatrixCell> at = new HashMap<>();
    TreeSet<FiOp> ops = new TreeSet<>();
    TreeSet<FiDatatype> types = new TreeSet<>();
    for (MatrixCell c : cells) {
      at.put(c.cfg().op() + "/" + c.cfg().datatype(), c);
      ops.add(c.cfg().op());
      types.add(c.cfg().datatype());
    }
    html.append("<h2>").append(escape(f.label())).append(" atomics</h2>\n<table>\n<tr><th>op</th>");
    for (FiDatatype dt : types) {
      html.append("<th title=\"")
          .append(escape(dt.fiName()))
          .append("\">")
          .append(escape(OpMatrix.shortName(dt)))
          .append("</th>");
    }
    html.append("</tr>\n");
    for (FiOp op : ops) {
      html.append("<tr><td class=\"op\">").append(escape(op.fiName())).append("</td>");
      for (FiDatatype dt : types) {
        MatrixCell c = at.get(op + "/" + dt);
        if (c == null) {
          html.append("<td></td>");
        } else {
          cell(c);
        }
      }
      html.append("</tr>\n");
    }
    html.append("</table>\n");
  }

  private void cell(MatrixCell c) {
    String css;
    String text;
    BenchResult r = c.result();
    switch (c.status()) {
      case INVALID -> {
        css = "invalid";
        text = "invalid";
      }
      case WRONG, FAILED -> {
        css = "fail";
        text = c.status().word().toUpperCase(Locale.ROOT) + (r == null ? "" : "<br>" + figures(r));
      }
      case SKIPPED, NOT_RUN -> {
        css = c.mechanismWord() + " untimed";
        text = escape(c.status().word());
      }
      default -> {
        css = c.mechanismWord();
        text = figures(r);
      }
    }
    html.append("<td class=\"")
        .append(css)
        .append("\" title=\"")
        .append(escape(title(c)))
        .append("\">")
        .append(text)
        .append("</td>");
  }

  /** p50 and the rate, as the cell shows them. */
  private static String figures(BenchResult r) {
    return escape(Figures.micros(r.latency(Percentiles.MEDIAN).values()[0]))
        + " us<br>"
        + escape(Figures.rate(r.opsPerSecond()))
        + "/s";
  }

  /** Everything else about a cell, one fact a line. */
  private String title(MatrixCell c) {
    List<String> lines = new ArrayList<>();
    lines.add(c.cfg().cellLabel() + ": " + c.status().word());
    if (c.attr() != null) {
      lines.add(
          "mechanism "
              + c.mechanismWord()
              + " (count "
              + c.attr().count()
              + ", size "
              + c.attr().size()
              + (c.attr().reason() == null ? "" : "; " + c.attr().reason())
              + ")");
    }
    if (c.reason() != null) {
      lines.add(c.reason());
    }
    BenchResult r = c.result();
    if (r != null) {
      LatencySummary l = r.latency(hover);
      lines.add("latency (" + l.kind() + ", usec):");
      for (int i = 0; i < hover.size(); i++) {
        lines.add("  " + hover.head(i) + " " + Figures.micros(l.values()[i]));
      }
      lines.add("  max " + Figures.micros(l.max()) + ", average " + Figures.micros(l.mean()));
      lines.add("  overall " + Figures.micros(r.overallNanosPerOp()));
      lines.add(
          String.format(
              Locale.ROOT,
              "%d calls, %d elements in %.3f s: %.0f calls/s, %.0f elements/s",
              r.ops(),
              r.elements(),
              r.seconds(),
              r.opsPerSecond(),
              r.elementsPerSecond()));
      lines.add("target check: " + r.check().detail());
      if (r.error() != 0) {
        lines.add("a call failed: " + dev.fiucx.FiErrno.errorString(-r.error()));
      }
    }
    return String.join("\n", lines);
  }

  private void fact(String name, String value) {
    html.append("<tr><th>")
        .append(escape(name))
        .append("</th><td>")
        .append(escape(value))
        .append("</td></tr>\n");
  }

  /** Text made safe for HTML element content and double- or single-quoted attributes. */
  static String escape(String s) {
    StringBuilder out = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }
}
