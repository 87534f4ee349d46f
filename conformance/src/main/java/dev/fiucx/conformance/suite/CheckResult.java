package dev.fiucx.conformance.suite;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import dev.fiucx.Mechanism;

/**
 * The outcome of one conformance check: one call form (or one flag, limit or consistency check) on
 * one (family, op, datatype) cell. This is one element of the {@code --json} report.
 *
 * @param datatype the datatype, or null for a check of no cell
 * @param family the call's family, or null for a check of no cell
 * @param op the operation, or null for a check of no cell
 * @param status pass, fail or unsupported
 * @param call what was checked: a libfabric call name ({@code fi_fetch_atomicv}), or a check name
 *     ({@code count_limit}, {@code query}, {@code FI_FENCE} ...)
 * @param mechanism how the provider says it carries the cell out; null when it reports the cell
 *     unsupported
 * @param detail empty when the check passed; otherwise what differed, or why it is unsupported
 */
public record CheckResult(
    AtomicFamily family,
    FiOp op,
    FiDatatype datatype,
    String call,
    Mechanism mechanism,
    Status status,
    String detail) {

  /**
   * Whether this check is one of a cell's own (its query, a call form, its count limit) rather than
   * a flag, counter or error-entry check that stands for a whole mechanism.
   *
   * @return whether it is a cell's own check
   */
  public boolean isCellCheck() {
    return call.startsWith("fi_") || call.equals("query") || call.equals("count_limit");
  }

  /**
   * PASS: behaved as the man page and the reference semantics say. UNSUPPORTED: reported (and
   * behaved as) not supported. FAIL: anything else.
   */
  public enum Status {
    /** Behaved as the man page and the reference semantics say. */
    PASS,
    /** Anything else. */
    FAIL,
    /** Reported (and behaved as) not supported. */
    UNSUPPORTED
  }
}
