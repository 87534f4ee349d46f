package dev.fiucx.engine;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import java.lang.foreign.MemorySegment;

/**
 * What the typed layer ({@code dev.fiucx.AtomicRegion}) asks of an endpoint beside fi_atomic(3): a
 * one-element call that says whether it was done inside the call. On a peer whose region is mapped
 * into this process (shared memory, the direct path) a native element is one CPU atomic on the
 * mapping and is done before the call returns; a caller that blocks until the element is done then
 * needs no completion entry, and writing one only to read it back would cost more than the atomic.
 * Any other element is posted as fi_atomic posts it, and its completion (context null) comes
 * through the endpoint's completion queue. The checks, their order and the errors are fi_atomic's.
 */
public interface InCallAtomics {
  /**
   * What {@link #postInCall} returns when the element was done inside the call: its old value is in
   * {@code result}, its counters are bumped, and no completion entry was written.
   */
  int DONE_IN_CALL = 1;

  /**
   * One element of {@code family}'s plain call ({@code fi_atomic}, {@code fi_fetch_atomic}, {@code
   * fi_compare_atomic} with count 1), done in the call when it can be.
   *
   * @param family which call
   * @param op the operation
   * @param datatype the element's datatype
   * @param operand the operand (ignored for {@code FI_ATOMIC_READ})
   * @param compare the compare value (compare family), else null
   * @param result receives the old value (fetch and compare families), else null
   * @param destAddr the target peer's {@code fi_addr}
   * @param addr the element's {@code addr} argument
   * @param key the target region's key
   * @return {@link #DONE_IN_CALL}; 0 when posted (its completion comes through the queue); or a
   *     negative fi_errno, nothing done
   */
  int postInCall(
      AtomicFamily family,
      FiOp op,
      FiDatatype datatype,
      MemorySegment operand,
      MemorySegment compare,
      MemorySegment result,
      long destAddr,
      long addr,
      long key);
}
