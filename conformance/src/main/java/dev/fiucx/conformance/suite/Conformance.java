package dev.fiucx.conformance.suite;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/** Runs every conformance check of a provider and returns the results in a stable order. */
public final class Conformance {
  private Conformance() {}

  /**
   * Runs the whole suite against {@code config}, handing each result to {@code onEach} as it is
   * known (for progress output), and returns all of them: every (family, op, datatype) cell in the
   * order of the enums, each with its query, call-form and count-limit checks, then the flag checks
   * of each mechanism and the error-entry check. Throws {@code FiException} when the provider or
   * its target cannot be opened.
   *
   * @param config the provider, transport and target placement
   * @param onEach told of each check as it ends
   * @return every check, in run order
   */
  public static List<CheckResult> run(SuiteConfig config, Consumer<CheckResult> onEach) {
    return run(config, EnumSet.allOf(AtomicFamily.class), true, onEach);
  }

  /**
   * Part of the suite, for a short pass (the demo's): the cells of {@code families} only, and the
   * flag checks only when {@code flagChecks}; otherwise as {@link #run(SuiteConfig, Consumer)}.
   *
   * @param config the provider, transport and target placement
   * @param families the families whose cells are checked
   * @param flagChecks whether the checks of no cell (flags, counters, error entries) run too
   * @param onEach told of each check as it ends
   * @return the checks, in run order
   */
  public static List<CheckResult> run(
      SuiteConfig config,
      Set<AtomicFamily> families,
      boolean flagChecks,
      Consumer<CheckResult> onEach) {
    List<CheckResult> all = new ArrayList<>();
    try (Rig rig = new Rig(config)) {
      CellChecks cells = new CellChecks(rig);
      for (AtomicFamily family : AtomicFamily.values()) {
        if (!families.contains(family)) {
          continue;
        }
        for (FiOp op : FiOp.values()) {
          for (FiDatatype dt : FiDatatype.values()) {
            for (CheckResult r : cells.check(family, op, dt)) {
              all.add(r);
              onEach.accept(r);
            }
          }
        }
      }
      for (CheckResult r : flagChecks ? new FlagChecks(rig).check() : List.<CheckResult>of()) {
        all.add(r);
        onEach.accept(r);
      }
    }
    return all;
  }
}
