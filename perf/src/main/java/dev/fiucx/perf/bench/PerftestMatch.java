package dev.fiucx.perf.bench;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;

/**
 * The ucx_perftest test that does what a bench cell does, one element at a time: fetch SUM is
 * {@code ucp_fadd}, base SUM {@code ucp_add}, fetch ATOMIC_WRITE {@code ucp_swap}, compare CSWAP
 * {@code ucp_cswap}, on 4- or 8-byte integers ({@code -s 4|8}). Nothing else has a counterpart.
 *
 * @param test ucx_perftest's {@code -t}
 * @param size ucx_perftest's {@code -s}
 */
public record PerftestMatch(String test, int size) {

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
