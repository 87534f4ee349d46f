package dev.fiucx;

/**
 * What {@code fi_query_atomic} reports: libfabric's {@code struct fi_atomic_attr} ({@code count},
 * {@code size}) plus how the provider carries the operation out, and why when that is not the
 * obvious choice (for example a native op that the provider's self-test demoted).
 */
public record AtomicAttr(long count, long size, Mechanism mechanism, String reason) {}
