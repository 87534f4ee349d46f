/**
 * The exact meaning of every (family, op, datatype): the one table ({@link
 * dev.fiucx.semantics.AtomicTable}, its {@link dev.fiucx.semantics.AtomicCell}s) that decides
 * validity, mechanism and native op, and the reference kernels that compute an element as gcc and
 * libfabric 1.17 do (SSE for float and double, x87 for long double). Emulation and the conformance
 * suite both compute with these kernels.
 */
package dev.fiucx.semantics;
