package dev.fiucx;

/**
 * One atomic message: libfabric's {@code struct fi_msg_atomic}. {@code iovCount} and {@code
 * rmaIovCount} are the arrays' lengths; {@code desc} may be null (descriptors are optional here:
 * any native segment can be a local buffer); {@code addr} is the destination {@code fi_addr_t}.
 * Unlike C, the message may be reused by the caller as soon as the call returns.
 *
 * @param msgIov the operand buffers
 * @param desc their local regions, or null
 * @param addr the target peer's {@code fi_addr}
 * @param rmaIov the target's ranges, each with its address and key
 * @param datatype the elements' datatype
 * @param op the operation
 * @param context handed back as the completion's {@code opContext}
 * @param data remote CQ data (unused by atomics without {@code FI_REMOTE_CQ_DATA})
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
