package dev.fiucx;

import java.lang.foreign.MemorySegment;

/**
 * A local buffer of {@code count} elements: libfabric's {@code struct fi_ioc}. The segment may be
 * longer than {@code count} elements; only the first {@code count} are used.
 *
 * @param addr the local buffer
 * @param count how many elements of the call's datatype it holds
 */
public record Ioc(MemorySegment addr, long count) {}
