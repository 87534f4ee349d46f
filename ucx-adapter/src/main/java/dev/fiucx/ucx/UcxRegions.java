package dev.fiucx.ucx;

import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.FiFlags;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.security.SecureRandom;
import java.util.List;
import org.openucx.jucx.UcxException;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpMemMapParams;
import org.openucx.jucx.ucp.UcpMemory;

/**
 * A transport's exposed regions: maps memory through its UCP context, draws each region's key, and
 * keeps the regions a RESOLVE may find and those not yet unmapped. Publishing holds the transport's
 * lock, so that no region is published after the transport closed.
 */
final class UcxRegions {
  private static final SecureRandom RANDOM = new SecureRandom();

  private final UcxTransport transport;
  private final UcpContext context;
  private final UcxOptions options;

  /** Whether UCX may allocate in /dev/shm: its free space then bounds {@link #allocate}. */
  private final boolean sharedMemory;

  private final UcxErrors errors;

  /** Keys a RESOLVE may find. */
  private final LongObjectMap<UcxExposedRegion> published = new LongObjectMap<>();

  /** Every region not yet unmapped (published or revoking), for acks and close. */
  private final LongObjectMap<UcxExposedRegion> live = new LongObjectMap<>();

  UcxRegions(
      UcxTransport transport,
      UcpContext context,
      UcxOptions options,
      boolean sharedMemory,
      UcxErrors errors) {
    this.transport = transport;
    this.context = context;
    this.options = options;
    this.sharedMemory = sharedMemory;
    this.errors = errors;
  }

  /** {@link UcxTransport#allocate}. */
  @SuppressWarnings("restricted") // scopes UCX's allocation, which this region owns, to its arena
  UcxExposedRegion allocate(long size, long access) {
    if (size <= 0 || size > Long.MAX_VALUE - 7) {
      throw new FiException(FiErrno.EINVAL, "size " + size);
    }
    long length = (size + 7) & ~7L;
    checkAllocationLimit(length);
    UcpMemMapParams params =
        new UcpMemMapParams().allocate().setLength(length).setProtection(protection(access));
    UcpMemory memory = map(params);
    Arena scope = Arena.ofShared();
    MemorySegment segment =
        UcpNative.ALL.asSlice(memory.getAddress(), length).reinterpret(scope, null);
    segment.fill((byte) 0); // ucp_mem_map may hand out recycled memory
    try {
      return publish(memory, segment, scope, access);
    } catch (RuntimeException e) {
      scope.close(); // publish deregistered the memory
      throw e;
    }
  }

  private void checkAllocationLimit(long length) {
    long limit = options.allocationLimit();
    String source = dev.fiucx.DomainAttr.ALLOC_LIMIT_OPTION;
    if (limit == 0) {
      MachineMemory.Backable b = MachineMemory.backable(sharedMemory, errors);
      limit = b.bytes();
      source = "what this machine can back now: " + b.source();
    }
    if (length > limit) {
      throw new FiException(
          FiErrno.ENOMEM,
          "allocateMemory of "
              + length
              + " bytes refused: the limit is "
              + limit
              + " bytes ("
              + source
              + "; set the domain option "
              + dev.fiucx.DomainAttr.ALLOC_LIMIT_OPTION
              + " to change it)");
    }
  }

  /** {@link UcxTransport#register}. */
  UcxExposedRegion register(MemorySegment segment, long access) {
    if (!segment.isNative()
        || segment.address() % 8 != 0
        || segment.byteSize() == 0
        || segment.byteSize() % 8 != 0) {
      throw new FiException(
          FiErrno.EINVAL,
          "registered memory must be native, 8-byte aligned and a non-zero multiple of 8 bytes: "
              + segment);
    }
    UcpMemMapParams params =
        new UcpMemMapParams()
            .setAddress(segment.address())
            .setLength(segment.byteSize())
            .setProtection(protection(access));
    return publish(map(params), segment, null, access);
  }

  /**
   * @param scope the arena of {@code segment} when this transport allocated the memory (the region
   *     closes it before unmapping), or null for the user's registered memory
   */
  private UcxExposedRegion publish(
      UcpMemory memory, MemorySegment segment, Arena scope, long access) {
    UcxExposedRegion region;
    synchronized (transport) {
      if (transport.isClosed()) {
        memory.deregister();
        throw new FiException(FiErrno.EBADF, "transport closed");
      }
      long key;
      do {
        key = RANDOM.nextLong();
      } while (key == 0 || live.get(key) != null);
      region = new UcxExposedRegion(transport, key, memory, segment, scope, access);
      live.put(key, region);
      published.put(key, region);
    }
    return region;
  }

  private UcpMemory map(UcpMemMapParams params) {
    transport.checkOpen();
    try {
      return context.memoryMap(params);
    } catch (UcxException e) {
      throw new FiException(FiErrno.ENOMEM, "ucp_mem_map: " + e.getMessage(), e);
    }
  }

  /** FI_REMOTE_* to UCP_MEM_MAP_PROT_*; local access is always granted (the caller's memory). */
  private static long protection(long access) {
    long prot =
        UcxConstants.UCP_MEM_MAP_PROT_LOCAL_READ | UcxConstants.UCP_MEM_MAP_PROT_LOCAL_WRITE;
    if ((access & FiFlags.REMOTE_READ) != 0) {
      prot |= UcxConstants.UCP_MEM_MAP_PROT_REMOTE_READ;
    }
    if ((access & FiFlags.REMOTE_WRITE) != 0) {
      prot |= UcxConstants.UCP_MEM_MAP_PROT_REMOTE_WRITE;
    }
    return prot;
  }

  /** A RESOLVE no longer finds {@code key} (its region is being revoked). */
  void unpublish(long key) {
    published.remove(key);
  }

  /** {@code region} is unmapped. */
  void closed(UcxExposedRegion region) {
    live.remove(region.key());
  }

  /** The region published under {@code key}, or null: what a RESOLVE may find. */
  UcxExposedRegion published(long key) {
    return published.get(key);
  }

  /** A region not yet unmapped (published or revoking), or null. */
  UcxExposedRegion live(long key) {
    return live.get(key);
  }

  /** Every region not yet unmapped. */
  List<UcxExposedRegion> live() {
    return live.values();
  }
}
