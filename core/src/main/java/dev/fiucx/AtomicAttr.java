package dev.fiucx;

/**
 * What {@code fi_query_atomic} reports: libfabric's {@code struct fi_atomic_attr} ({@code count},
 * {@code size}) plus how the provider carries the operation out, and why when that is not the
 * obvious choice (for example a native op that the provider's self-test demoted).
 *
 * @param count the most elements one call of the cell takes
 * @param size bytes of one element in memory ({@code fi_atomic_attr.size})
 * @param mechanism how the provider carries the cell out
 * @param reason why the cell is carried out that way (e.g. why a native op was demoted), or null
 */
public record AtomicAttr(long count, long size, Mechanism mechanism, String reason) {}
