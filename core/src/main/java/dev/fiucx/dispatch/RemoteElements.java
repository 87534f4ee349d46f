package dev.fiucx.dispatch;

import dev.fiucx.FiErrno;
import dev.fiucx.RmaIoc;
import dev.fiucx.emulation.LockWords;
import dev.fiucx.semantics.AtomicCell;
import dev.fiucx.spi.RemoteRegion;
import dev.fiucx.spi.TransportPeer;
import dev.fiucx.validation.CallChecks;
import dev.fiucx.validation.RemoteChecks;

/**
 * The remote side of a call as a walk over its elements: one (address, count, key) or up to {@link
 * LocalElements#MAX_IOV} {@code fi_rma_ioc}s. {@link #resolve} turns each key into the peer's
 * region and checks every range before anything is posted. Reused from call to call.
 */
public final class RemoteElements implements CallChecks.RemoteSide {
  private static final int MAX = LocalElements.MAX_IOV;
  private final long[] addrs = new long[MAX];
  private final long[] counts = new long[MAX];
  private final long[] keys = new long[MAX];
  private final long[] offsets = new long[MAX];
  private final RemoteRegion[] regions = new RemoteRegion[MAX];
  private int iovs;
  private int iov;

  // the last key resolved, at which peer: most calls name the same region as the one before
  private TransportPeer lastPeer;
  private long lastKey;
  private RemoteRegion lastRegion;
  private int lastError;

  private long left;
  private long offset;
  private int size;

  /** The region of the current element, after {@link #next}. */
  RemoteRegion region;

  /** The current element's byte offset in {@link #region}. */
  long elementOffset;

  public void set(long addr, long count, long key) {
    addrs[0] = addr;
    counts[0] = count;
    keys[0] = key;
    iovs = 1;
  }

  /** {@code -FI_EINVAL} for more than {@link LocalElements#MAX_IOV} or no rma iovs. */
  public int set(RmaIoc[] rma, int count) {
    if (rma == null || count <= 0 || count > MAX || count > rma.length) {
      iovs = 0;
      return -FiErrno.EINVAL;
    }
    for (int i = 0; i < count; i++) {
      if (rma[i] == null) {
        iovs = 0;
        return -FiErrno.EINVAL;
      }
      addrs[i] = rma[i].addr();
      counts[i] = rma[i].count();
      keys[i] = rma[i].key();
    }
    iovs = count;
    return 0;
  }

  /**
   * Ranges whose keys a call resolved and checked when it was made (a call deferred by {@code
   * FI_FENCE}): the first {@code iovs} regions, byte offsets in them and element counts.
   */
  public void setResolved(RemoteRegion[] regions, long[] offsets, long[] counts, int iovs) {
    System.arraycopy(regions, 0, this.regions, 0, iovs);
    System.arraycopy(offsets, 0, this.offsets, 0, iovs);
    System.arraycopy(counts, 0, this.counts, 0, iovs);
    this.iovs = iovs;
  }

  /** The number of ranges, after {@link #set}. */
  public int iovs() {
    return iovs;
  }

  /** The region of range {@code i}, after {@link #resolve} passed. */
  public RemoteRegion resolvedRegion(int i) {
    return regions[i];
  }

  /** The byte offset of range {@code i} in its region, after {@link #resolve} passed. */
  public long resolvedOffset(int i) {
    return offsets[i];
  }

  /** The element count of range {@code i}, after {@link #set}. */
  public long count(int i) {
    return counts[i];
  }

  /**
   * Total elements, or {@code -FI_EINVAL} for a negative count or no rma iovs. A sum beyond {@code
   * Long.MAX_VALUE} saturates there, so the count check says {@code -FI_EMSGSIZE} (more elements
   * than the cell's count) instead of a wrapped total being taken for a small one.
   */
  @Override
  public long total() {
    if (iovs == 0) {
      return -FiErrno.EINVAL;
    }
    long total = 0;
    for (int i = 0; i < iovs; i++) {
      long n = counts[i];
      if (n < 0) {
        return -FiErrno.EINVAL;
      }
      total = n > Long.MAX_VALUE - total ? Long.MAX_VALUE : total + n;
    }
    return total;
  }

  /**
   * The region behind {@code key} at {@code peer}, from the last one resolved when it is the same,
   * else resolved (asking the peer on first use); null with {@link #lastError} set when the peer
   * does not know the key or does not answer. Not checked for revocation: the range check is.
   */
  @Override
  public RemoteRegion region(TransportPeer peer, long key) {
    if (peer == lastPeer && key == lastKey) {
      return lastRegion;
    }
    RemoteRegion r = peer.cached(key);
    if (r == null) {
      int rc = peer.resolve(key);
      r = rc < 0 ? null : peer.cached(key);
      if (r == null) {
        lastError = rc < 0 ? rc : -FiErrno.EKEYREJECTED;
        return null;
      }
    }
    if ((r.access() & LockWords.REGION_MARK) != 0) {
      lastError = -FiErrno.EKEYREJECTED; // the engine's lock words: no user call reaches them
      return null;
    }
    // a region stays the peer's answer for its key until revoked, and a revoked one is refused by
    // the range check; a peer that left the address vector is never looked up again
    lastPeer = peer;
    lastKey = key;
    lastRegion = r;
    return r;
  }

  /** Why {@link #region} returned null. */
  @Override
  public int lastError() {
    return lastError;
  }

  /**
   * Resolves every key at {@code peer} (asking it on first use) and checks each range with {@link
   * RemoteChecks}. Addresses are offsets into the region, or virtual addresses at the peer when
   * {@code virtualAddressing}. Returns 0 or the first negative {@code fi_errno}.
   */
  @Override
  public int resolve(TransportPeer peer, AtomicCell cell, boolean virtualAddressing, long access) {
    for (int i = 0; i < iovs; i++) {
      RemoteRegion r = region(peer, keys[i]);
      if (r == null) {
        return lastError;
      }
      long off = virtualAddressing ? addrs[i] - r.base() : addrs[i];
      int shift = Integer.numberOfTrailingZeros(cell.size());
      long bytes = counts[i] > Long.MAX_VALUE >>> shift ? -1 : counts[i] << shift;
      int rc = RemoteChecks.range(r, off, bytes, cell.alignment(), access);
      if (rc < 0) {
        return rc;
      }
      regions[i] = r;
      offsets[i] = off;
    }
    return 0;
  }

  void rewind(int elementSize) {
    size = elementSize;
    iov = -1;
    left = 0;
  }

  void next() {
    while (left == 0) {
      iov++;
      left = counts[iov];
      offset = offsets[iov];
    }
    region = regions[iov];
    elementOffset = offset;
    offset += size;
    left--;
  }

  void forget() {
    for (int i = 0; i < iovs; i++) {
      regions[i] = null;
    }
    region = null;
    iovs = 0;
  }
}
