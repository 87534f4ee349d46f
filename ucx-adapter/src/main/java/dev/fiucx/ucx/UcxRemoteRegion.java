package dev.fiucx.ucx;

import dev.fiucx.spi.LockWordRegion;
import dev.fiucx.spi.RemoteRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.openucx.jucx.ucp.UcpRemoteKey;

/**
 * A peer's region as resolved: where it is and the unpacked UCX rkey that atomics use. The rkey
 * stays valid until the peer connection closes, even after a revoke, so an operation already posted
 * never meets a destroyed rkey. When UCX mapped the region into this process ({@code
 * ucp_rkey_ptr}), {@link #mapping} is that mapping, which lives as long as the rkey; its segment
 * belongs to the peer's arena of mappings, closed before the rkeys are destroyed, so a late use
 * throws instead of touching unmapped memory.
 */
final class UcxRemoteRegion implements RemoteRegion {
  private final long key;
  private final long base;
  private final long length;
  private final long access;
  private final UcpRemoteKey rkey;
  private final long rkeyHandle;
  private final MemorySegment mapping;
  private volatile boolean revoked;

  /**
   * @param mapping the whole region as mapped in this process, or null to go through UCX
   */
  UcxRemoteRegion(
      long key, long base, long length, long access, UcpRemoteKey rkey, MemorySegment mapping) {
    this.key = key;
    this.base = base;
    this.length = length;
    this.access = access;
    this.rkey = rkey;
    this.rkeyHandle = rkey.getNativeId(); // unboxed once here, not on every post
    this.mapping = mapping;
  }

  /**
   * The region mapped into this process, or null. UCX attaches a peer's shared-memory segment (sysv
   * or posix) when it unpacks the rkey, so the whole region is one contiguous mapping.
   *
   * @param scope closed (by {@link #unmapAll}) before the rkey is destroyed
   */
  @SuppressWarnings("restricted") // scopes UCX's mapping to the arena that outlives it no longer
  static MemorySegment map(long rkeyHandle, long base, long length, Arena scope) {
    long first = UcpNative.rkeyPtr(rkeyHandle, base);
    if (first == 0 || UcpNative.rkeyPtr(rkeyHandle, base + length - 1) != first + length - 1) {
      return null;
    }
    return UcpNative.ALL.asSlice(first, length).reinterpret(scope, null);
  }

  /**
   * Ends every mapping made in {@code scope}, before their rkeys unmap them. An arena a native call
   * still holds cannot be closed: that is counted and logged (the caller then destroys the rkeys
   * anyway, as it did before mappings had a scope).
   */
  static void unmapAll(Arena scope, UcxErrors errors) {
    try {
      scope.close();
    } catch (IllegalStateException e) {
      if (scope.scope().isAlive()) {
        errors.caught("closing a peer's mappings", e);
      }
    }
  }

  /** The region as mapped into this process, or null when UCX carries its atomics. */
  MemorySegment mapping() {
    return mapping;
  }

  @Override
  public String path() {
    return mapping != null ? "mapped" : "ucp";
  }

  long key() {
    return key;
  }

  /** The ucp_rkey_h for ucp_atomic_op_nbx. */
  long rkeyHandle() {
    return rkeyHandle;
  }

  UcpRemoteKey rkey() {
    return rkey;
  }

  @Override
  public long base() {
    return base;
  }

  @Override
  public long length() {
    return length;
  }

  @Override
  public long access() {
    return access;
  }

  @Override
  public boolean revoked() {
    return revoked;
  }

  void markRevoked() {
    revoked = true;
  }

  /** Whether a fresh answer describes the same memory, so this rkey can keep serving. */
  boolean sameAs(long base, long length, long access) {
    return this.base == base && this.length == length && this.access == access;
  }

  @Override
  public String toString() {
    return "UcxRemoteRegion[key=%s, base=0x%x, length=%d, access=0x%x, %s%s]"
        .formatted(
            LockWordRegion.isMarked(access) ? "(lock words)" : "%016x".formatted(key),
            base,
            length,
            access,
            path(),
            revoked ? ", revoked" : "");
  }
}
