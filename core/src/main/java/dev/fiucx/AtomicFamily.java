package dev.fiucx;

/**
 * The three families of fi_atomic(3): base ({@code fi_atomic*}), fetch ({@code fi_fetch_atomic*})
 * and compare ({@code fi_compare_atomic*}). Each has its own valid call and its own set of ops.
 */
public enum AtomicFamily {
  /**
   * {@code fi_atomic}, {@code fi_atomicv}, {@code fi_atomicmsg}, {@code fi_inject_atomic}: no
   * result.
   */
  BASE("base", 0L),
  /** {@code fi_fetch_atomic*}: the initial target values are fetched. */
  FETCH("fetch", FiFlags.FETCH_ATOMIC),
  /**
   * {@code fi_compare_atomic*}: the target is compared, then maybe swapped; initial values fetched.
   */
  COMPARE("compare", FiFlags.COMPARE_ATOMIC);

  private final String label;
  private final long queryFlag;

  AtomicFamily(String label, long queryFlag) {
    this.label = label;
    this.queryFlag = queryFlag;
  }

  /** {@return the lowercase name used in vectors, JSON and reports: base, fetch, compare} */
  public String label() {
    return label;
  }

  /** {@return the {@code fi_query_atomic} flag that selects this family (0 for base)} */
  public long queryFlag() {
    return queryFlag;
  }

  /** {@return whether the call returns the initial target value} */
  public boolean fetches() {
    return this != BASE;
  }

  /**
   * {@return the family by its label, or null}
   *
   * @param label the family's name in words
   */
  public static AtomicFamily ofLabel(String label) {
    for (AtomicFamily f : values()) {
      if (f.label.equals(label)) {
        return f;
      }
    }
    return null;
  }
}
