package dev.fiucx.conformance.report;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import dev.fiucx.conformance.suite.CheckResult;
import java.util.List;

/**
 * The {@code --html} report: one file with its style inline and nothing fetched from anywhere, a
 * coloured matrix per family whose cells list their checks on hover, the flag checks and a table of
 * failures.
 */
final class HtmlPage {
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
      td.unsupported { background: #f4f4f4; color: #999; }
      td.FAIL, td.fail { background: #ff8f8f; font-weight: bold; }
      td.detail { text-align: left; font-family: monospace; }
      table.facts th, table.facts td { text-align: left; }
      .summary { font-size: 1.2em; font-weight: bold; }
      """;

  private final ConformanceReport report;
  private final List<CheckResult> results;
  private final StringBuilder html = new StringBuilder();

  HtmlPage(ConformanceReport report, List<CheckResult> results) {
    this.report = report;
    this.results = results;
  }

  String render() {
    html.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    html.append("<title>fiucx conformance: ").append(escape(report.subject())).append("</title>\n");
    html.append("<style>").append(STYLE).append("</style>\n</head>\n<body>\n");
    RunMetadata run = report.metadata();
    html.append("<h1>fiucx conformance: ").append(escape(report.subject())).append("</h1>\n");
    html.append("<table class=\"facts\">\n");
    fact("date", run.date().toString());
    fact("host", run.host());
    fact("fiucx", run.fiucxVersion());
    fact("checks", Integer.toString(results.size()));
    report.providerFacts().forEach(this::fact);
    html.append("</table>\n");
    html.append("<p class=\"summary\">").append(escape(report.summaryLine())).append("</p>\n");
    for (AtomicFamily f : AtomicFamily.values()) {
      family(f);
    }
    html.append("<p>")
        .append(escape(OpMatrix.LEGEND))
        .append("; -: unsupported, every call refused it; FAIL: a check failed.")
        .append(" Hover over a cell for its checks.</p>\n");
    checks("Flags and completions", report.flagChecks());
    if (report.failures().isEmpty()) {
      html.append("<h2>Failures</h2>\n<p>No check failed.</p>\n");
    } else {
      checks("Failures", report.failures());
    }
    html.append("</body>\n</html>\n");
    return html.toString();
  }

  private void family(AtomicFamily f) {
    html.append("<h2>").append(escape(f.label())).append(" atomics</h2>\n<table>\n<tr><th>op</th>");
    for (FiDatatype dt : FiDatatype.values()) {
      html.append("<th>").append(escape(OpMatrix.shortName(dt))).append("</th>");
    }
    html.append("</tr>\n");
    for (FiOp op : FiOp.values()) {
      html.append("<tr><td class=\"op\">").append(escape(op.fiName())).append("</td>");
      for (FiDatatype dt : FiDatatype.values()) {
        String label = report.cellLabel(f, op, dt);
        String css = label.equals("-") ? "unsupported" : label;
        StringBuilder title = new StringBuilder();
        for (CheckResult r : report.cellChecks(f, op, dt)) {
          title.append(r.call()).append(": ").append(ConformanceReport.status(r));
          if (!r.detail().isEmpty()) {
            title.append(" (").append(r.detail()).append(')');
          }
          title.append('\n');
        }
        html.append("<td class=\"")
            .append(css)
            .append("\" title=\"")
            .append(escape(title.toString().strip()))
            .append("\">")
            .append(escape(label))
            .append("</td>");
      }
      html.append("</tr>\n");
    }
    html.append("</table>\n");
  }

  private void checks(String heading, List<CheckResult> list) {
    html.append("<h2>").append(escape(heading)).append("</h2>\n<table>\n");
    html.append(
        "<tr><th>family</th><th>op</th><th>datatype</th><th>check</th><th>mechanism</th>"
            + "<th>status</th><th>detail</th></tr>\n");
    for (CheckResult r : list) {
      html.append("<tr>");
      cell(r.family().label(), "");
      cell(r.op().fiName(), "");
      cell(r.datatype().fiName(), "");
      cell(r.call(), "");
      cell(r.mechanism() == null ? "-" : OpMatrix.word(r.mechanism()), "");
      cell(ConformanceReport.status(r), ConformanceReport.status(r));
      cell(r.detail(), "detail");
      html.append("</tr>\n");
    }
    html.append("</table>\n");
  }

  private void fact(String name, String value) {
    html.append("<tr><th>")
        .append(escape(name))
        .append("</th><td>")
        .append(escape(value))
        .append("</td></tr>\n");
  }

  private void cell(String text, String css) {
    html.append(css.isEmpty() ? "<td>" : "<td class=\"" + css + "\">")
        .append(escape(text))
        .append("</td>");
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
