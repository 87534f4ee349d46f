package dev.fiucx.spi;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/**
 * A transport's atomics done by this CPU on a peer's region mapped into this process ({@link
 * TransportPeer#mapped}): one LOCK-prefixed instruction each on the shared page, the same ones a
 * shared-memory transport runs for its atomics, so they are atomic against every initiator whose
 * atomics the CPU executes. One implementation for the provider's direct path and core's in-place
 * paths. Offsets are checked by the engine before (inside the region, aligned to the word).
 */
public final class MappedWords {
  private static final VarHandle LONG = JAVA_LONG.varHandle();
  private static final VarHandle INT = JAVA_INT.varHandle();

  private MappedWords() {}

  /**
   * One native element on a mapping: CSWAP stores {@code value} when the word equals {@code
   * compare} ({@link #compareSwap}), every other op is {@link #apply}. The engine's one-element
   * calls do their native element on a mapping with it (the route and the dispatcher, through
   * {@code Dispatcher.runMapped}); a caller reads the operands and writes the old value where it
   * wants it.
   *
   * @param mapping the peer's region, mapped
   * @param offset the word's byte offset
   * @param op the remote atomic
   * @param size 4 or 8
   * @param value the operand (CSWAP: the value stored)
   * @param compare CSWAP's compare value; ignored by the other ops
   * @return the old value (a 4-byte word zero-extended)
   */
  public static long element(
      MemorySegment mapping, long offset, RemoteAtomicOp op, int size, long value, long compare) {
    return op == RemoteAtomicOp.CSWAP
        ? compareSwap(mapping, offset, size, compare, value)
        : apply(mapping, offset, op, size, value);
  }

  /**
   * {@code mapping[offset] op= value} on a 4- or 8-byte word with an op other than CSWAP; returns
   * the old value (a 4-byte word zero-extended).
   *
   * @param op the operation
   * @param mapping the peer's region, mapped
   * @param offset the word's byte offset
   * @param size 4 or 8
   * @param value the operand
   * @return the old value
   */
  public static long apply(
      MemorySegment mapping, long offset, RemoteAtomicOp op, int size, long value) {
    // kept small, so that the JIT compiles it into its caller: fetch-add first, the rest apart
    if (op != RemoteAtomicOp.ADD) {
      return size == 8
          ? applyLong(mapping, offset, op, value)
          : applyInt(mapping, offset, op, value);
    }
    if (value == 0) {
      // adding 0 (the CAS loop's and the remote lock's reads) changes nothing: an aligned load is
      // the same atomic read without the LOCK prefix
      return size == 8
          ? (long) LONG.getVolatile(mapping, offset)
          : (int) INT.getVolatile(mapping, offset) & 0xFFFF_FFFFL;
    }
    return size == 8
        ? (long) LONG.getAndAdd(mapping, offset, value)
        : (int) INT.getAndAdd(mapping, offset, (int) value) & 0xFFFF_FFFFL;
  }

  private static long applyLong(MemorySegment mapping, long offset, RemoteAtomicOp op, long value) {
    return switch (op) {
      case ADD -> (long) LONG.getAndAdd(mapping, offset, value);
      case SWAP -> (long) LONG.getAndSet(mapping, offset, value);
      case AND -> (long) LONG.getAndBitwiseAnd(mapping, offset, value);
      case OR -> (long) LONG.getAndBitwiseOr(mapping, offset, value);
      case XOR -> (long) LONG.getAndBitwiseXor(mapping, offset, value);
      case CSWAP -> throw new IllegalArgumentException("CSWAP is compareSwap");
    };
  }

  private static long applyInt(MemorySegment mapping, long offset, RemoteAtomicOp op, long value) {
    int v = (int) value;
    int old =
        switch (op) {
          case ADD -> (int) INT.getAndAdd(mapping, offset, v);
          case SWAP -> (int) INT.getAndSet(mapping, offset, v);
          case AND -> (int) INT.getAndBitwiseAnd(mapping, offset, v);
          case OR -> (int) INT.getAndBitwiseOr(mapping, offset, v);
          case XOR -> (int) INT.getAndBitwiseXor(mapping, offset, v);
          case CSWAP -> throw new IllegalArgumentException("CSWAP is compareSwap");
        };
    return old & 0xFFFF_FFFFL;
  }

  /**
   * {@return the old value; {@code swap} is stored when the word equals {@code compare}}
   *
   * @param mapping the peer's region, mapped
   * @param offset the word's byte offset
   * @param size 4 or 8
   * @param compare the value the word must hold
   * @param swap the value stored then
   */
  public static long compareSwap(
      MemorySegment mapping, long offset, int size, long compare, long swap) {
    if (size == 8) {
      return (long) LONG.compareAndExchange(mapping, offset, compare, swap);
    }
    return (int) INT.compareAndExchange(mapping, offset, (int) compare, (int) swap) & 0xFFFF_FFFFL;
  }
}
