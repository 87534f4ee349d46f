package dev.fiucx.perf.bench;

import java.nio.file.Path;

/**
 * What a bench run writes besides its table, and which extra runs it makes.
 *
 * @param csv print one CSV header and row to stdout (the table then goes to stderr)
 * @param json the JSON report's file, or null
 * @param hgrm HdrHistogram's percentile distribution's file, or null
 * @param plot a PNG plot's file, or null
 * @param sweepWindow run windows 1, 2, 4, ... up to the window, one run each
 * @param vsPerftest alternate rounds with ucx_perftest's matching test
 * @param rounds rounds of each when comparing
 */
record BenchOutputs(
    boolean csv,
    Path json,
    Path hgrm,
    Path plot,
    boolean sweepWindow,
    boolean vsPerftest,
    int rounds) {}
