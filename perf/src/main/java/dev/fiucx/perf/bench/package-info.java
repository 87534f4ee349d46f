/**
 * {@code fiucx bench}: options in ucx_perftest's and fabtests' spellings, the target it starts or
 * connects to (its own {@code --server}, or a {@code serve}), the allocation-free measuring loop,
 * HdrHistogram percentiles, the table, CSV, JSON, hgrm and plots, the /metrics endpoint, and the
 * interleaved comparison with {@code ucx_perftest}.
 */
package dev.fiucx.perf.bench;
