package dev.fiucx.perf.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.fiucx.semantics.AtomicTable;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code fiucx info}: the capability table, as text or JSON. */
@Command(
    name = "info",
    mixinStandardHelpOptions = true,
    description = "Print the capability table: every (family, op, datatype) and how it is done.")
final class InfoCommand implements Callable<Integer> {
  @Option(
      names = "--json",
      description =
          "print a JSON array of {family, op, datatype, valid, count, size, mechanism, reason}")
  boolean json;

  @Override
  public Integer call() throws Exception {
    AtomicTable table = AtomicTable.reference();
    if (json) {
      ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
      System.out.println(
          mapper.writeValueAsString(table.cells().stream().map(CapabilityRow::of).toList()));
    } else {
      System.out.println("fiucx reference semantics (DESIGN.md's table and default mechanisms)");
      System.out.println();
      CapabilityTableView.print(table, System.out);
    }
    return 0;
  }
}
