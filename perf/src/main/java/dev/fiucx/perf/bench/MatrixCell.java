package dev.fiucx.perf.bench;

import dev.fiucx.AtomicAttr;
import dev.fiucx.conformance.report.OpMatrix;
import java.util.Locale;

/**
 * One cell of a matrix run and what became of it: timed (with its result and target check), or not
 * timed and why.
 *
 * @param cfg the run's configuration with this cell
 * @param attr the provider's answer to {@code queryAtomic}, or null for an invalid cell
 * @param status what became of it
 * @param reason why the cell was not timed (the provider's refusal for an invalid one), or null
 * @param result the timed run, or null
 */
record MatrixCell(
    BenchConfig cfg, AtomicAttr attr, Status status, String reason, BenchResult result) {

  /** What became of a cell. */
  enum Status {
    /** Timed; the target held exactly what the calls leave. */
    OK,
    /** Timed; not checked: a serve's region is shared and not handed back. */
    UNCHECKED,
    /** Timed; the target held a wrong value. */
    WRONG,
    /** A call failed; the cells after it were not run. */
    FAILED,
    /** The provider refuses the cell ({@code queryAtomic}): never timed. */
    INVALID,
    /** Valid, but the typed layer ({@code --api typed}) has no call for it: not timed. */
    SKIPPED,
    /** Valid, not run: an earlier cell's call failed. */
    NOT_RUN;

    /** The word in the table, JSON and CSV: {@code ok}, {@code invalid}, {@code not run}. */
    String word() {
      return name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }

    boolean timed() {
      return this == OK || this == UNCHECKED || this == WRONG || this == FAILED;
    }
  }

  /** A cell that was timed, with its status from the result. */
  static MatrixCell timed(BenchConfig cfg, AtomicAttr attr, BenchResult r) {
    Status s =
        r.error() != 0
            ? Status.FAILED
            : !r.check().checked() ? Status.UNCHECKED : r.check().ok() ? Status.OK : Status.WRONG;
    return new MatrixCell(cfg, attr, s, null, r);
  }

  /** The same cell, not timed for {@code why}. */
  MatrixCell untimed(Status s, String why) {
    return new MatrixCell(cfg, attr, s, why, null);
  }

  boolean valid() {
    return attr != null;
  }

  /** The mechanism as the JSON and CSV spell it ({@code NATIVE}), or empty for an invalid cell. */
  String mechanismName() {
    return attr == null ? "" : attr.mechanism().name();
  }

  /** The mechanism as the table and the page say it ({@code native}, {@code cas}, {@code lock}). */
  String mechanismWord() {
    if (attr == null) {
      return "invalid";
    }
    return OpMatrix.word(attr.mechanism());
  }
}
