/**
 * Where operations end: the completion ring behind a CQ (single- or multi-producer as the thread
 * model allows), counters, the table of operations in flight, and the plain per-endpoint counts
 * metrics read. Allocation-free and lock-free on the hot path.
 */
package dev.fiucx.completion;
