package dev.fiucx.conformance.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import dev.fiucx.Mechanism;
import dev.fiucx.conformance.suite.CheckResult;
import dev.fiucx.conformance.suite.CheckResult.Status;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The report's shapes from hand-made results: JSON, matrix words, summary, HTML, exit status. */
class ConformanceReportTest {
  private static final CheckResult FETCH_SUM_PASS =
      new CheckResult(
          AtomicFamily.FETCH,
          FiOp.SUM,
          FiDatatype.UINT64,
          "fi_fetch_atomic",
          Mechanism.NATIVE,
          Status.PASS,
          "");
  private static final CheckResult MSWAP_UNSUPPORTED =
      new CheckResult(
          AtomicFamily.BASE,
          FiOp.MSWAP,
          FiDatatype.INT8,
          "fi_atomic",
          null,
          Status.UNSUPPORTED,
          "MSWAP is a compare op");
  private static final CheckResult MIN_FAIL =
      new CheckResult(
          AtomicFamily.BASE,
          FiOp.MIN,
          FiDatatype.DOUBLE,
          "fi_atomicv",
          Mechanism.CAS_LOOP,
          Status.FAIL,
          "target element 3 <&\"'>");

  @Test
  void jsonIsAnArrayOfEveryCheckWithLibfabricNames() {
    String json =
        new ConformanceReport("ucx", "shm", List.of(FETCH_SUM_PASS, MSWAP_UNSUPPORTED)).json();
    assertEquals(
        """
        [ {
          "family" : "fetch",
          "op" : "FI_SUM",
          "datatype" : "FI_UINT64",
          "call" : "fi_fetch_atomic",
          "mechanism" : "NATIVE",
          "status" : "pass",
          "detail" : ""
        }, {
          "family" : "base",
          "op" : "FI_MSWAP",
          "datatype" : "FI_INT8",
          "call" : "fi_atomic",
          "mechanism" : null,
          "status" : "unsupported",
          "detail" : "MSWAP is a compare op"
        } ]""",
        json.replace(System.lineSeparator(), "\n"));
  }

  @Test
  void aCellShowsItsMechanismADashOrFail() {
    ConformanceReport r =
        new ConformanceReport("ucx", "shm", List.of(FETCH_SUM_PASS, MSWAP_UNSUPPORTED, MIN_FAIL));
    assertEquals("native", r.cellLabel(AtomicFamily.FETCH, FiOp.SUM, FiDatatype.UINT64));
    assertEquals("-", r.cellLabel(AtomicFamily.BASE, FiOp.MSWAP, FiDatatype.INT8));
    assertEquals("FAIL", r.cellLabel(AtomicFamily.BASE, FiOp.MIN, FiDatatype.DOUBLE));
    assertEquals("-", r.cellLabel(AtomicFamily.COMPARE, FiOp.CSWAP, FiDatatype.INT8), "no checks");
  }

  @Test
  void summaryAndExitStatusCountEveryCheck() {
    ConformanceReport clean =
        new ConformanceReport("ucx", "tcp", List.of(FETCH_SUM_PASS, MSWAP_UNSUPPORTED));
    assertEquals("1 passed, 0 failed, 1 unsupported", clean.summaryLine());
    assertEquals(0, clean.exitStatus());
    ConformanceReport failed =
        new ConformanceReport("ucx", "tcp", List.of(FETCH_SUM_PASS, MIN_FAIL));
    assertEquals("1 passed, 1 failed, 0 unsupported", failed.summaryLine());
    assertEquals(1, failed.exitStatus());
  }

  @Test
  void theTextListsEachFailureAndEndsWithTheSummary() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    new ConformanceReport("ucx", "shm", List.of(FETCH_SUM_PASS, MIN_FAIL))
        .printText(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String text = bytes.toString(StandardCharsets.UTF_8);
    assertTrue(
        text.contains("  base FI_MIN FI_DOUBLE fi_atomicv: target element 3 <&\"'>\n"), text);
    assertTrue(
        text.contains(
            "  MIN           -      -      -      -      -      -      -      -"
                + "      -      FAIL"),
        text);
    assertTrue(text.endsWith("1 passed, 1 failed, 0 unsupported" + System.lineSeparator()), text);
  }

  @Test
  void theTextShowsTheProviderFactsUnderItsHeader() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    new ConformanceReport(
            "ucx",
            "shm",
            new LinkedHashMap<>(Map.of("ucx.version", "1.13.1")),
            List.of(FETCH_SUM_PASS))
        .printText(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String text = bytes.toString(StandardCharsets.UTF_8).replace(System.lineSeparator(), "\n");
    assertTrue(
        text.startsWith(
            "conformance: provider ucx, transport shm, 1 checks\n  ucx.version  1.13.1\n\n"),
        text);
  }

  @Test
  void htmlHeadsThePageWithTheRunAndTheProviderAndTitlesEachCellWithItsChecks() {
    CheckResult query =
        new CheckResult(
            AtomicFamily.BASE,
            FiOp.MIN,
            FiDatatype.DOUBLE,
            "query",
            Mechanism.CAS_LOOP,
            Status.PASS,
            "");
    String page =
        new ConformanceReport(
                "ucx",
                "tcp",
                Map.of("ucx.tls", "tcp<x>"),
                new RunMetadata(Instant.parse("2026-01-02T03:04:05Z"), "h&st", "9.9.9"),
                List.of(query, MIN_FAIL))
            .html();
    assertTrue(
        page.contains(
            "<h1>fiucx conformance: provider ucx, transport tcp</h1>\n<table class=\"facts\">\n"
                + "<tr><th>date</th><td>2026-01-02T03:04:05Z</td></tr>\n"
                + "<tr><th>host</th><td>h&amp;st</td></tr>\n"
                + "<tr><th>fiucx</th><td>9.9.9</td></tr>\n"
                + "<tr><th>checks</th><td>2</td></tr>\n"
                + "<tr><th>ucx.tls</th><td>tcp&lt;x&gt;</td></tr>\n</table>\n"
                + "<p class=\"summary\">1 passed, 1 failed, 0 unsupported</p>"),
        page);
    assertTrue(
        page.contains(
            "<td class=\"FAIL\" title=\"query: pass\nfi_atomicv: fail (target element 3"
                + " &lt;&amp;&quot;&#39;&gt;)\">FAIL</td>"),
        page);
    assertTrue(
        page.contains(
            "<h2>Failures</h2>\n<table>\n<tr><th>family</th><th>op</th><th>datatype</th>"
                + "<th>check</th><th>mechanism</th><th>status</th><th>detail</th></tr>\n"
                + "<tr><td>base</td><td>FI_MIN</td><td>FI_DOUBLE</td><td>fi_atomicv</td>"
                + "<td>cas</td><td class=\"fail\">fail</td>"
                + "<td class=\"detail\">target element 3 &lt;&amp;&quot;&#39;&gt;</td></tr>"),
        page);
    assertTrue(!page.contains("<script") && !page.contains("http"), "self-contained");
  }

  @Test
  void htmlSaysWhenNothingFailed() {
    String page = new ConformanceReport("ucx", "shm", List.of(FETCH_SUM_PASS)).html();
    assertTrue(page.contains("<h2>Failures</h2>\n<p>No check failed.</p>"), page);
  }

  @Test
  void theVersionIsTheProjectsFilledInByTheBuild() {
    assertTrue(
        ConformanceReport.fiucxVersion().matches("\\d+\\.\\d+\\.\\d+(-SNAPSHOT)?"),
        ConformanceReport.fiucxVersion());
  }

  @Test
  void htmlEscapesEveryDetail() {
    String page = new ConformanceReport("ucx", "shm", List.of(MIN_FAIL)).html();
    assertTrue(page.contains("target element 3 &lt;&amp;&quot;&#39;&gt;"), page);
    assertTrue(!page.contains("<&\""), "no raw detail text");
    assertTrue(page.contains("<td class=\"FAIL\""), page);
    assertEquals("a&amp;b&lt;c&gt;&quot;&#39;", HtmlPage.escape("a&b<c>\"'"));
  }
}
