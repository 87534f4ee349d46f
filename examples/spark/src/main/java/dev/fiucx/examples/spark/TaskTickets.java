package dev.fiucx.examples.spark;

import java.io.Serializable;

/**
 * What one task sends the driver: its tickets, in record order, and where it ran.
 *
 * @param partition the partition the task computed
 * @param executor Spark's executor id ({@code driver} in {@code local[N]})
 * @param thread the id of the executor thread that ran the task (its endpoint was this thread's;
 *     Spark renames its threads for every task, so the name would not tell them apart)
 * @param connection which of its executor JVM's connects made the connection it used
 * @param path how its fetches reached the counter, in the provider's words ({@code mapped}: CPU
 *     atomics on the serve's memory mapped into the executor; {@code ucp}: through UCX)
 * @param tickets one per record
 */
public record TaskTickets(
    int partition, String executor, long thread, long connection, String path, long[] tickets)
    implements Serializable {}
