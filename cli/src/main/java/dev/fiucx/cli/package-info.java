/**
 * The {@code fiucx} command line (picocli): {@code demo}, {@code info}, {@code serve}, {@code
 * conformance}, {@code replay}, {@code soak} and {@code jmh}, and {@code bench}, which perf holds
 * and {@link dev.fiucx.perf.Bench} hands over.
 */
package dev.fiucx.cli;
