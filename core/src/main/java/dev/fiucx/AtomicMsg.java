package dev.fiucx;

/**
 * One atomic message: libfabric's {@code struct fi_msg_atomic}. {@code iovCount} and {@code
 * rmaIovCount} are the arrays' lengths; {@code desc} may be null (descriptors are optional here:
 * any native segment can be a local buffer); {@code addr} is the destination {@code fi_addr_t}.
 * Unlike C, the message may be reused by the caller as soon as the call returns.
 */
public record AtomicMsg(
    Ioc[] msgIov,
    MemoryRegion[] desc,
    long addr,
    RmaIoc[] rmaIov,
    FiDatatype datatype,
    FiOp op,
    Object context,
    long data) {}
