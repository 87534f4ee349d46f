package dev.fiucx;

/**
 * The three families of fi_atomic(3): base ({@code fi_atomic*}), fetch ({@code fi_fetch_atomic*})
 * and compare ({@code fi_compare_atomic*}). Each has its own valid call and its own set of ops.
 */
public enum AtomicFamily {
  BASE("base", 0L),
  FETCH("fetch", FiFlags.FETCH_ATOMIC),
  COMPARE("compare", FiFlags.COMPARE_ATOMIC);

  private final String label;
  private final long queryFlag;

  AtomicFamily(String label, long queryFlag) {
    this.label = label;
    this.queryFlag = queryFlag;
  }

  /** The lowercase name used in vectors, JSON and reports: base, fetch, compare. */
  public String label() {
    return label;
  }

  /** The {@code fi_query_atomic} flag that selects this family (0 for base). */
  public long queryFlag() {
    return queryFlag;
  }

  /** Whether the call returns the initial target value. */
  public boolean fetches() {
    return this != BASE;
  }

  /** The family by its label, or null. */
  public static AtomicFamily ofLabel(String label) {
    for (AtomicFamily f : values()) {
      if (f.label.equals(label)) {
        return f;
      }
    }
    return null;
  }
}
