package dev.fiucx.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.fiucx.AtomicAttr;
import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import dev.fiucx.FiException;
import dev.fiucx.semantics.AtomicCell;
import dev.fiucx.semantics.AtomicTable;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code fiucx info}: the capability table, as text or JSON, of the reference or a provider. */
@Command(
    name = "info",
    mixinStandardHelpOptions = true,
    description = "Print the capability table: every (family, op, datatype) and how it is done.")
final class InfoCommand implements Callable<Integer>, ProviderGate.OpensProvider {
  @Option(
      names = "--json",
      description =
          "print a JSON array of {family, op, datatype, valid, count, size, mechanism, reason}")
  boolean json;

  @Option(
      names = "--provider",
      description = "open this provider (e.g. ucx) and show what it reports, asked cell by cell")
  String provider;

  @Option(
      names = "--transport",
      description = "the provider's transport: shm, tcp, rc_verbs or a UCX_TLS list")
  String transport;

  @Override
  public String providerToOpen() {
    return provider;
  }

  @Override
  public Integer call() throws Exception {
    if (provider == null) {
      print(AtomicTable.reference(), Map.of(), "fiucx reference semantics (docs/semantics.md)");
      return 0;
    }
    try (Domain domain =
        Fabric.openDomain(
            provider, new DomainAttr(transport, DomainAttr.Progress.MANUAL, false, Map.of()))) {
      print(asked(domain), domain.describe(), "fiucx provider " + provider);
    }
    return 0;
  }

  /** The table as the domain's query call answers it, cell by cell. */
  static AtomicTable asked(Domain domain) {
    return AtomicTable.reference()
        .map(
            cell -> {
              try {
                AtomicAttr a =
                    domain.queryAtomic(cell.datatype(), cell.op(), cell.family().queryFlag());
                return new AtomicCell(
                    cell.family(),
                    cell.op(),
                    cell.datatype(),
                    true,
                    a.count(),
                    (int) a.size(),
                    a.mechanism(),
                    cell.nativeOp(),
                    a.reason());
              } catch (FiException e) {
                return cell.unsupported(cell.valid() ? e.getMessage() : cell.reason());
              }
            });
  }

  private void print(AtomicTable table, Map<String, String> facts, String title) throws Exception {
    if (json) {
      ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
      System.out.println(
          mapper.writeValueAsString(table.cells().stream().map(CapabilityRow::of).toList()));
      return;
    }
    System.out.println(title);
    facts.forEach((k, v) -> System.out.printf("  %-12s %s%n", k, v));
    System.out.println();
    CapabilityTableView.print(table, System.out);
  }
}
