/**
 * JMH microbenchmarks of fiucx's hot paths, run with {@code ./fiucx jmh} (any JMH arguments, e.g.
 * {@code -prof gc}):
 *
 * <ul>
 *   <li>{@link dev.fiucx.perf.jmh.PostPathBenchmark} and its subclasses: one call of the public API
 *       over UCX shared memory, from an initiator domain to a target domain in the same JVM, either
 *       one at a time (post, then read the completion queue until it completes) or with 64 calls
 *       outstanding;
 *   <li>{@link dev.fiucx.perf.jmh.CompletionBenchmark}: the completion queue ring and the pending
 *       operations table alone, on one thread;
 *   <li>{@link dev.fiucx.perf.jmh.SemanticsBenchmark}: what one (op, datatype) does to one element,
 *       as the emulation computes it.
 * </ul>
 *
 * Each hot path is expected to allocate nothing: {@code -prof gc} reports {@code
 * gc.alloc.rate.norm} of about 0 B/op.
 */
package dev.fiucx.perf.jmh;
