package dev.fiucx.conformance.vectors;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;

/**
 * One {@code case} record of a vector file (docs/conformance.md): a call, the target memory before
 * and after it, and the fetched values. Byte arrays are raw little-endian memory images; {@code
 * operand}, {@code compare} and {@code result} are null where the record has null.
 *
 * @param id the case's id, unique in its file
 * @param family the call's family
 * @param op the operation
 * @param datatype the datatype
 * @param count how many elements
 * @param initialTarget the target's bytes before the call
 * @param operand the operands' bytes, or null
 * @param compare the compare values' bytes, or null
 * @param finalTarget the target's bytes after the call
 * @param result the fetched bytes, or null
 * @param nan whether a NaN of another payload counts as equal
 */
public record VectorCase(
    String id,
    AtomicFamily family,
    FiOp op,
    FiDatatype datatype,
    int count,
    byte[] initialTarget,
    byte[] operand,
    byte[] compare,
    byte[] finalTarget,
    byte[] result,
    boolean nan) {}
