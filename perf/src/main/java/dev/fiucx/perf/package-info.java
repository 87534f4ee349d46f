/**
 * What the command line ({@code dev.fiucx.cli}) uses of perf, and all it may: bench's command
 * ({@link dev.fiucx.perf.Bench}), the {@code /metrics} endpoint that bench, serve and the demo
 * serve ({@link dev.fiucx.perf.MetricsEndpoint}) and the JMH microbenchmarks' runner ({@link
 * dev.fiucx.perf.Microbenchmarks}).
 */
package dev.fiucx.perf;
