package dev.fiucx.perf.bench;

import dev.fiucx.AtomicAttr;
import dev.fiucx.Domain;
import dev.fiucx.FiException;
import dev.fiucx.semantics.AtomicTable;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The cells of a matrix, run one after the other by one initiator against one target: each asked of
 * the provider first ({@code queryAtomic} decides validity and mechanism), each valid one then run
 * as a cell of its own (the region zeroed, warm-up, measurement, the target check), the invalid
 * ones listed and never timed. Between cells it may allocate; within a run the loop does not.
 */
final class MatrixRun {
  private MatrixRun() {}

  /**
   * Asks the domain about every cell: an invalid cell is listed with the provider's reason; a valid
   * one is to run ({@link MatrixCell.Status#NOT_RUN} with no reason), unless the typed layer has no
   * call for it.
   *
   * @throws BenchUsageException when {@code --count} is more than a valid cell takes
   */
  static List<MatrixCell> plan(
      BenchConfig template, List<CellSelection.Cell> cells, Domain domain) {
    List<MatrixCell> plan = new ArrayList<>();
    for (CellSelection.Cell cell : cells) {
      BenchConfig cfg = template.withCell(cell);
      AtomicAttr attr;
      try {
        attr = domain.queryAtomic(cell.datatype(), cell.op(), cell.family().queryFlag());
      } catch (FiException e) {
        plan.add(new MatrixCell(cfg, null, MatrixCell.Status.INVALID, e.getMessage(), null));
        continue;
      }
      if (cfg.count() > attr.count()) {
        throw new BenchUsageException(
            "--count " + cfg.count() + " is more than " + cell.label() + " takes: " + attr.count());
      }
      String typed = cfg.api() == BenchConfig.Api.TYPED ? TypedCall.unsupported(cfg) : null;
      plan.add(
          new MatrixCell(
              cfg,
              attr,
              typed != null ? MatrixCell.Status.SKIPPED : MatrixCell.Status.NOT_RUN,
              typed,
              null));
    }
    return plan;
  }

  /**
   * The target region the widest cell of the selection needs, of those the reference table holds
   * valid (the target is set up before the provider is asked about each cell).
   */
  static long regionBytes(BenchConfig template, List<CellSelection.Cell> cells) {
    AtomicTable table = AtomicTable.reference();
    return cells.stream()
        .filter(c -> table.cell(c.family(), c.op(), c.datatype()).valid())
        .mapToLong(c -> template.withCell(c).regionBytes())
        .max()
        .orElse(template.regionBytes());
  }

  /**
   * Runs every cell of {@code plan} that is to run, in order; after a cell whose call failed (calls
   * of it may still be in flight) the rest are not run.
   */
  static List<MatrixCell> run(
      List<MatrixCell> plan, BenchInitiator initiator, BenchTarget link, PrintStream err)
      throws IOException {
    long toRun = plan.stream().filter(MatrixRun::toRun).count();
    List<MatrixCell> done = new ArrayList<>(plan.size());
    int i = 0;
    boolean failed = false;
    for (MatrixCell c : plan) {
      if (!toRun(c)) {
        done.add(c);
      } else if (failed) {
        done.add(c.untimed(MatrixCell.Status.NOT_RUN, "an earlier cell's call failed"));
      } else {
        err.printf("cell %d of %d: %s (%s)%n", ++i, toRun, c.cfg().cellLabel(), c.mechanismWord());
        MatrixCell t = MatrixCell.timed(c.cfg(), c.attr(), initiator.run(c.cfg(), link, err));
        failed = t.status() == MatrixCell.Status.FAILED;
        done.add(t);
      }
    }
    return done;
  }

  private static boolean toRun(MatrixCell c) {
    return c.status() == MatrixCell.Status.NOT_RUN && c.reason() == null;
  }
}
