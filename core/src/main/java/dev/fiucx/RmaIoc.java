package dev.fiucx;

/**
 * A remote run of {@code count} elements: libfabric's {@code struct fi_rma_ioc}. {@code addr} is a
 * byte offset into the target region unless the domain was opened with virtual addressing; {@code
 * key} is the region's key.
 *
 * @param addr where the range starts in the target's region (offset or virtual address)
 * @param count how many elements
 * @param key the target region's key
 */
public record RmaIoc(long addr, long count, long key) {}
