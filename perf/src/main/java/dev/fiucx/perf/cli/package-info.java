/**
 * The {@code fiucx} command line (picocli): {@code demo}, {@code info}, {@code serve}, {@code
 * bench} (its own package), {@code conformance}, {@code replay}, {@code soak} and {@code jmh}.
 */
package dev.fiucx.perf.cli;
