package dev.fiucx.conformance.vectors;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;

/**
 * One {@code case} record of a vector file (shared/VECTORS.md): a call, the target memory before
 * and after it, and the fetched values. Byte arrays are raw little-endian memory images; {@code
 * operand}, {@code compare} and {@code result} are null where the record has null.
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
