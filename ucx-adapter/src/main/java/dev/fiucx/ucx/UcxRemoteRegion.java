package dev.fiucx.ucx;

import dev.fiucx.spi.RemoteRegion;
import org.openucx.jucx.ucp.UcpRemoteKey;

/**
 * A peer's region as resolved: where it is and the unpacked UCX rkey that atomics use. The rkey
 * stays valid until the peer connection closes, even after a revoke, so an operation already posted
 * never meets a destroyed rkey.
 */
final class UcxRemoteRegion implements RemoteRegion {
  private final long key;
  private final long base;
  private final long length;
  private final long access;
  private final UcpRemoteKey rkey;
  private final long rkeyHandle;
  private volatile boolean revoked;

  UcxRemoteRegion(long key, long base, long length, long access, UcpRemoteKey rkey) {
    this.key = key;
    this.base = base;
    this.length = length;
    this.access = access;
    this.rkey = rkey;
    this.rkeyHandle = rkey.getNativeId(); // unboxed once here, not on every post
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
    return "UcxRemoteRegion[key=%016x, base=0x%x, length=%d, access=0x%x%s]"
        .formatted(key, base, length, access, revoked ? ", revoked" : "");
  }
}
