package dev.fiucx.perf.bench;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;

/**
 * The ucx_perftest test that does what a bench cell does, one element at a time: fetch SUM is
 * {@code ucp_fadd}, base SUM {@code ucp_add}, fetch ATOMIC_WRITE {@code ucp_swap}, compare CSWAP
 * {@code ucp_cswap}, on 4- or 8-byte integers ({@code -s 4|8}). Nothing else has a counterpart, but
 * any cell may be put beside one of these tests by name ({@link #named}): the speed targets for the
 * emulated cells are ratios to {@code ucp_fadd}.
 *
 * @param test ucx_perftest's {@code -t}
 * @param size ucx_perftest's {@code -s}
 */
public record PerftestMatch(String test, int size) {

  /** ucx_perftest's atomic tests that bench can run beside a cell. */
  public static final java.util.List<String> TESTS =
      java.util.List.of("ucp_add", "ucp_fadd", "ucp_swap", "ucp_cswap");

  /**
   * ucx_perftest's {@code test} on words of the cell's size when that is 4 or 8 bytes, else 8; null
   * when {@code test} is not one of {@link #TESTS}.
   */
  public static PerftestMatch named(String test, FiDatatype dt) {
    if (!TESTS.contains(test)) {
      return null;
    }
    return new PerftestMatch(test, dt.size() == 4 ? 4 : 8);
  }

  /** The counterpart of the cell, or null. */
  public static PerftestMatch of(AtomicFamily family, FiOp op, FiDatatype dt) {
    if (!dt.isInteger() || (dt.size() != 4 && dt.size() != 8)) {
      return null;
    }
    String test =
        switch (family) {
          case FETCH -> op == FiOp.SUM ? "ucp_fadd" : op == FiOp.ATOMIC_WRITE ? "ucp_swap" : null;
          case BASE -> op == FiOp.SUM ? "ucp_add" : null;
          case COMPARE -> op == FiOp.CSWAP ? "ucp_cswap" : null;
        };
    return test == null ? null : new PerftestMatch(test, dt.size());
  }
}
