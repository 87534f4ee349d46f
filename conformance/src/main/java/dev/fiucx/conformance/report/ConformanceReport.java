package dev.fiucx.conformance.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import dev.fiucx.Mechanism;
import dev.fiucx.conformance.suite.CheckResult;
import dev.fiucx.conformance.suite.CheckResult.Status;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a conformance run found, in the three shapes a user reads: the text matrix (ops by datatypes
 * per family, each cell its mechanism, {@code -} or {@code FAIL}), a JSON array of every check, and
 * a self-contained HTML page.
 */
public final class ConformanceReport {
  private final String provider;
  private final String transport;
  private final Map<String, String> providerFacts;
  private final RunMetadata metadata;
  private final List<CheckResult> results;

  /**
   * A report without the provider's facts.
   *
   * @param provider the provider's name, e.g. {@code ucx}
   * @param transport the transport the run used, or null for the provider's default
   * @param results the checks, in run order
   */
  public ConformanceReport(String provider, String transport, List<CheckResult> results) {
    this(provider, transport, Map.of(), results);
  }

  /**
   * A report with the provider's facts.
   *
   * @param provider the provider's name, e.g. {@code ucx}
   * @param transport the transport the run used, or null for the provider's default
   * @param providerFacts what the provider says about itself ({@code Domain.describe()}: UCX
   *     version, transports, atomic mode, self-test), printed above the matrix in their order
   * @param results the checks, in run order
   */
  public ConformanceReport(
      String provider,
      String transport,
      Map<String, String> providerFacts,
      List<CheckResult> results) {
    this(provider, transport, providerFacts, RunMetadata.now(), results);
  }

  ConformanceReport(
      String provider,
      String transport,
      Map<String, String> providerFacts,
      RunMetadata metadata,
      List<CheckResult> results) {
    this.provider = provider;
    this.transport = transport;
    this.providerFacts = Collections.unmodifiableMap(new LinkedHashMap<>(providerFacts));
    this.metadata = metadata;
    this.results = List.copyOf(results);
  }

  /** {@return the version of fiucx this report comes from, as the project's build names it} */
  public static String fiucxVersion() {
    return RunMetadata.FIUCX_VERSION;
  }

  Map<String, String> providerFacts() {
    return providerFacts;
  }

  RunMetadata metadata() {
    return metadata;
  }

  /**
   * {@return how many checks ended with {@code status}}
   *
   * @param status the status
   */
  public long count(Status status) {
    return results.stream().filter(r -> r.status() == status).count();
  }

  /** {@return {@code N passed, M failed, K unsupported}} */
  public String summaryLine() {
    return count(Status.PASS)
        + " passed, "
        + count(Status.FAIL)
        + " failed, "
        + count(Status.UNSUPPORTED)
        + " unsupported";
  }

  /** {@return the command's exit status: 1 when any check failed, else 0} */
  public int exitStatus() {
    return count(Status.FAIL) > 0 ? 1 : 0;
  }

  /** {@return the checks that failed, in run order} */
  public List<CheckResult> failures() {
    return results.stream().filter(r -> r.status() == Status.FAIL).toList();
  }

  /** {@return who was checked: {@code provider ucx, transport shm}} */
  public String subject() {
    return "provider " + provider + ", transport " + (transport == null ? "default" : transport);
  }

  /**
   * The word a cell shows: {@code FAIL} when any of its checks failed, {@code -} when it is
   * unsupported (and every call refused it), otherwise its mechanism.
   *
   * @param family the call's family
   * @param op the operation
   * @param dt the datatype
   * @return the word
   */
  public String cellLabel(AtomicFamily family, FiOp op, FiDatatype dt) {
    Mechanism mechanism = null;
    boolean failed = false;
    boolean checked = false;
    for (CheckResult r : cellChecks(family, op, dt)) {
      checked = true;
      failed |= r.status() == Status.FAIL;
      if (r.mechanism() != null) {
        mechanism = r.mechanism();
      }
    }
    if (failed) {
      return "FAIL";
    }
    if (!checked || mechanism == null) {
      return "-";
    }
    return OpMatrix.word(mechanism);
  }

  /**
   * {@return the checks of one cell (query, call forms, count limit), in run order}
   *
   * @param family the call's family
   * @param op the operation
   * @param dt the datatype
   */
  public List<CheckResult> cellChecks(AtomicFamily family, FiOp op, FiDatatype dt) {
    List<CheckResult> out = new ArrayList<>();
    for (CheckResult r : results) {
      if (r.family() == family && r.op() == op && r.datatype() == dt && r.isCellCheck()) {
        out.add(r);
      }
    }
    return out;
  }

  /** {@return the checks that are not of one cell: flags, counters, error entries} */
  public List<CheckResult> flagChecks() {
    return results.stream().filter(r -> !r.isCellCheck()).toList();
  }

  /**
   * The matrix, the flag checks, every failure and the summary line.
   *
   * @param out where it goes
   */
  public void printText(PrintStream out) {
    out.println("conformance: " + subject() + ", " + results.size() + " checks");
    providerFacts.forEach((k, v) -> out.printf("  %-12s %s%n", k, v));
    out.println();
    OpMatrix.print(
        out,
        f -> {
          long cells = 0;
          long failed = 0;
          for (FiOp op : FiOp.values()) {
            for (FiDatatype dt : FiDatatype.values()) {
              String label = cellLabel(f, op, dt);
              cells += label.equals("-") ? 0 : 1;
              failed += label.equals("FAIL") ? 1 : 0;
            }
          }
          return String.format(
              "%s atomics (%d cells carried out, %d failed)", f.label(), cells, failed);
        },
        this::cellLabel);
    out.println(OpMatrix.LEGEND + "; -: unsupported, every call refused it; FAIL: a check failed");
    out.println();
    out.println("flags and completions");
    for (CheckResult r : flagChecks()) {
      out.printf(
          "  %-14s %-7s %-8s %-18s %s%s%n",
          r.call(),
          r.mechanism() == null ? "-" : OpMatrix.word(r.mechanism()),
          r.family().label(),
          r.op().fiName() + " " + OpMatrix.shortName(r.datatype()),
          status(r),
          r.status() == Status.PASS ? "" : ": " + r.detail());
    }
    out.println();
    List<CheckResult> failures = failures();
    if (!failures.isEmpty()) {
      out.println("failures");
      for (CheckResult r : failures) {
        out.println("  " + describe(r) + ": " + r.detail());
      }
      out.println();
    }
    out.println(summaryLine());
  }

  /** {@code fetch FI_SUM FI_UINT64 fi_fetch_atomicv}. */
  static String describe(CheckResult r) {
    return r.family().label()
        + " "
        + r.op().fiName()
        + " "
        + r.datatype().fiName()
        + " "
        + r.call();
  }

  /** {@code pass}, {@code fail}, {@code unsupported}. */
  static String status(CheckResult r) {
    return r.status().name().toLowerCase(Locale.ROOT);
  }

  /** One JSON object of the {@code --json} array. */
  record JsonCheck(
      String family,
      String op,
      String datatype,
      String call,
      String mechanism,
      String status,
      String detail) {
    static JsonCheck of(CheckResult r) {
      return new JsonCheck(
          r.family().label(),
          r.op().fiName(),
          r.datatype().fiName(),
          r.call(),
          r.mechanism() == null ? null : r.mechanism().name(),
          ConformanceReport.status(r),
          r.detail());
    }
  }

  /**
   * The JSON array of every check: {@code {family, op, datatype, call, mechanism, status, detail}}
   * with libfabric's names, the mechanism as {@code info --json} spells it (or null).
   *
   * @return the JSON text
   */
  public String json() {
    try {
      return new ObjectMapper()
          .writerWithDefaultPrettyPrinter()
          .writeValueAsString(results.stream().map(JsonCheck::of).toList());
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@return the self-contained HTML page} */
  public String html() {
    return new HtmlPage(this, results).render();
  }
}
