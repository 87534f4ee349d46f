package dev.fiucx.spi;

/**
 * The atomic operations a transport executes in one step on 4- or 8-byte words: UCX's {@code
 * ucp_atomic_op_t} (and what verbs NICs offer). A NATIVE cell of the atomic table names one of
 * them.
 */
public enum RemoteAtomicOp {
  /** word += operand. */
  ADD,
  /** word = operand. */
  SWAP,
  /** word = swap if word == compare. */
  CSWAP,
  /** word &amp;= operand. */
  AND,
  /** word |= operand. */
  OR,
  /** word ^= operand. */
  XOR
}
