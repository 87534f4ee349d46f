package dev.fiucx.engine;

import dev.fiucx.AddressVector;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.spi.Transport;
import dev.fiucx.spi.TransportPeer;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code fi_av} of type {@code FI_AV_TABLE}: inserting a peer's address checks it ({@link
 * DomainAddress}), then connects to it, and the returned {@code fi_addr_t} is its index. Indexes
 * are never reused, so a stale {@code fi_addr_t} finds no peer ({@code -FI_EADDRNOTAVAIL}) rather
 * than another one.
 */
final class EngineAddressVector implements AddressVector {
  private final Transport transport;
  private final List<TransportPeer> peers = new ArrayList<>();
  private final List<Long> lockKeyList = new ArrayList<>();
  private volatile TransportPeer[] table = new TransportPeer[0];
  private volatile long[] lockKeys = new long[0];
  private boolean closed;

  /** The addresses of peers removed after they failed: inserting one again is a reconnection. */
  private final java.util.Set<java.nio.ByteBuffer> failedAddresses = new java.util.HashSet<>();

  private final List<java.nio.ByteBuffer> addresses = new ArrayList<>();
  private final java.util.concurrent.atomic.LongAdder reconnects;

  /**
   * @param reconnects counts inserts of an address whose peer had failed (the domain's, for
   *     metrics)
   */
  EngineAddressVector(Transport transport, java.util.concurrent.atomic.LongAdder reconnects) {
    this.transport = transport;
    this.reconnects = reconnects;
  }

  @Override
  public synchronized long insert(byte[] address) {
    checkOpen("fi_av_insert");
    DomainAddress a = DomainAddress.decode(address); // before the transport sees a byte of it
    java.nio.ByteBuffer key = java.nio.ByteBuffer.wrap(address.clone());
    boolean again = failedAddresses.remove(key) || failedAt(key);
    TransportPeer peer = transport.connect(a.transportAddress(), a.process());
    if (again) {
      reconnects.increment();
    }
    addresses.add(key);
    lockKeyList.add(a.lockKey());
    lockKeys = lockKeyList.stream().mapToLong(Long::longValue).toArray();
    peers.add(peer);
    table = peers.toArray(new TransportPeer[0]);
    return peers.size() - 1;
  }

  /** The key of the lock region of the peer at {@code fiAddr} (which exists). */
  long lockKey(long fiAddr) {
    return lockKeys[(int) fiAddr];
  }

  /**
   * Closes the peer at {@code fiAddr}, which tells it so (the target then lets go of what it held
   * for this peer). Throws {@code FI_EINVAL} for an {@code fi_addr_t} that names no peer.
   */
  @Override
  public synchronized void remove(long fiAddr) {
    checkOpen("fi_av_remove");
    if (fiAddr < 0 || fiAddr >= peers.size() || peers.get((int) fiAddr) == null) {
      throw new FiException(FiErrno.EINVAL, "fi_av_remove: no peer at fi_addr " + fiAddr);
    }
    TransportPeer peer = peers.set((int) fiAddr, null);
    table = peers.toArray(new TransportPeer[0]);
    if (peer.failed()) {
      failedAddresses.add(addresses.get((int) fiAddr));
    }
    peer.close();
  }

  /** Whether a peer here at {@code address} has failed (inserted again without a remove). */
  private boolean failedAt(java.nio.ByteBuffer address) {
    for (int i = 0; i < peers.size(); i++) {
      TransportPeer p = peers.get(i);
      if (p != null && p.failed() && addresses.get(i).equals(address)) {
        return true;
      }
    }
    return false;
  }

  /** Adds the peers here that the transport found dead to {@code failed}. */
  void addFailedPeers(java.util.Set<TransportPeer> failed) {
    for (TransportPeer p : table) {
      if (p != null && p.failed()) {
        failed.add(p);
      }
    }
  }

  /**
   * The peers by {@code fi_addr} as one array, which an insert or a remove replaces and never
   * changes: while a caller still reads the same array, every address still names the same peer.
   */
  Object table() {
    return table;
  }

  /** The peer at {@code fiAddr}, or null. Allocation-free. */
  TransportPeer peer(long fiAddr) {
    TransportPeer[] t = table;
    return fiAddr >= 0 && fiAddr < t.length ? t[(int) fiAddr] : null;
  }

  private void checkOpen(String call) {
    if (closed) {
      throw new FiException(FiErrno.EOPBADSTATE, call + " on a closed address vector");
    }
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    table = new TransportPeer[0];
    for (TransportPeer p : peers) {
      if (p != null) {
        p.close();
      }
    }
    peers.clear();
  }
}
