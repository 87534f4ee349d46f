package dev.fiucx;

/**
 * How a provider carries out one (family, op, datatype): the honest answer that {@code
 * fi_query_atomic} cannot give in libfabric. See docs/semantics.md, "How each (op, datatype) is
 * carried out".
 */
public enum Mechanism {
  /** One transport atomic per element (UCX ADD, SWAP, CSWAP, AND, OR, XOR on 4 or 8 bytes). */
  NATIVE,
  /**
   * Fetch, compute locally, compare-and-swap the raw bits until it sticks; elements of 8 bytes or
   * less.
   */
  CAS_LOOP,
  /**
   * A lock word at the target taken by remote CAS, then get, compute, put, release; 16 and 32
   * bytes.
   */
  REMOTE_LOCK
}
