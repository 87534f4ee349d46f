package dev.fiucx.perf.cli;

import dev.fiucx.semantics.AtomicTable;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/**
 * {@code fiucx demo}: the main job. Until the ucx provider exists it shows the capability table.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = "Show what fiucx does: the capability table (over UCX once the provider exists).")
final class DemoCommand implements Callable<Integer> {
  @Override
  public Integer call() {
    System.out.println(
        "fiucx demo: the whole fi_atomic(3) table, and how each cell is carried out");
    System.out.println();
    CapabilityTableView.print(AtomicTable.reference(), System.out);
    return 0;
  }
}
