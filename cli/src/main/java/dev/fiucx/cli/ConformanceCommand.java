package dev.fiucx.cli;

import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import dev.fiucx.FiException;
import dev.fiucx.conformance.report.ConformanceReport;
import dev.fiucx.conformance.suite.CheckResult;
import dev.fiucx.conformance.suite.Conformance;
import dev.fiucx.conformance.suite.SuiteConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code fiucx conformance}: runs the conformance suite against a provider and prints the checked
 * op x datatype matrix; exit 1 when a check failed.
 */
@Command(
    name = "conformance",
    mixinStandardHelpOptions = true,
    description =
        "Check every (family, op, datatype) cell and call form of a provider against the reference"
            + " semantics; print the matrix; exit 1 on any failure, 2 when it cannot run.")
final class ConformanceCommand implements Callable<Integer>, ProviderGate.OpensProvider {
  /** A progress line on stderr every this many checks: a handful per run. */
  private static final int PROGRESS_EVERY = 1000;

  @Option(names = "--provider", defaultValue = "ucx", description = "the provider (default: ucx)")
  String provider;

  @Option(
      names = "--transport",
      defaultValue = "shm",
      description = "the provider's transport: shm, tcp, rc_verbs or a UCX_TLS list (default: shm)")
  String transport;

  @Option(
      names = "--target-process",
      description = "expose the target memory from a second process (default: this process)")
  boolean targetProcess;

  @Option(names = "--json", paramLabel = "FILE", description = "write every check as JSON")
  Path json;

  @Option(names = "--html", paramLabel = "FILE", description = "write a self-contained HTML report")
  Path html;

  @Override
  public String providerToOpen() {
    return provider;
  }

  @Override
  public Integer call() {
    Map<String, String> facts;
    try (Domain domain =
        Fabric.openDomain(
            provider, new DomainAttr(transport, DomainAttr.Progress.MANUAL, false, Map.of()))) {
      facts = domain.describe();
    } catch (FiException e) {
      System.err.println(
          "fiucx conformance: cannot open provider " + provider + ": " + e.getMessage());
      return 2;
    }
    SuiteConfig config = new SuiteConfig(provider, transport, targetProcess);
    System.err.printf(
        "fiucx conformance: checking provider %s over %s, target in %s%n",
        provider, transport, targetProcess ? "a second process" : "this process");
    long started = System.nanoTime();
    long[] done = {0};
    List<CheckResult> results;
    try {
      results =
          Conformance.run(
              config,
              r -> {
                if (++done[0] % PROGRESS_EVERY == 0) {
                  System.err.printf(
                      "fiucx conformance: %d checks done, now %s %s%n",
                      done[0], r.family().label(), r.op().fiName());
                }
              });
    } catch (FiException e) {
      System.err.println(
          "fiucx conformance: cannot run against " + provider + ": " + e.getMessage());
      return 2;
    }
    System.err.printf(
        "fiucx conformance: %d checks in %.1f s%n",
        results.size(), (System.nanoTime() - started) / 1e9);
    ConformanceReport report = new ConformanceReport(provider, transport, facts, results);
    report.printText(System.out);
    try {
      if (json != null) {
        Files.writeString(json, report.json(), StandardCharsets.UTF_8);
      }
      if (html != null) {
        Files.writeString(html, report.html(), StandardCharsets.UTF_8);
      }
    } catch (IOException e) {
      System.err.println("fiucx conformance: cannot write the report: " + e.getMessage());
      return 2;
    }
    return report.exitStatus();
  }
}
