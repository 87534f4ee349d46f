/**
 * {@code fiucx bench}: options in ucx_perftest's and fabtests' spellings, the target it starts or
 * connects to (its own {@code --server}, or a {@code serve}), the allocation-free measuring loop
 * and its threads' CPU pinning, HdrHistogram percentiles, one cell's run or a matrix of cells (one
 * after the other against one target), the tables, CSV, JSON, the HTML page, hgrm and plots, the
 * /metrics endpoint, and the interleaved comparison with {@code ucx_perftest}.
 */
package dev.fiucx.perf.bench;
