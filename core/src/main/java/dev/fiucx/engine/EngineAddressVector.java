package dev.fiucx.engine;

import dev.fiucx.AddressVector;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.spi.Transport;
import dev.fiucx.spi.TransportPeer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@code fi_av} of type {@code FI_AV_TABLE}: inserting a peer's address connects to it, and the
 * returned {@code fi_addr_t} is its index. An address is the peer's transport address followed by
 * the 8-byte key of its lock region ({@link EngineDomain#address}).
 */
final class EngineAddressVector implements AddressVector {
  private final Transport transport;
  private final List<TransportPeer> peers = new ArrayList<>();
  private final List<Long> lockKeyList = new ArrayList<>();
  private volatile TransportPeer[] table = new TransportPeer[0];
  private volatile long[] lockKeys = new long[0];

  EngineAddressVector(Transport transport) {
    this.transport = transport;
  }

  @Override
  public synchronized long insert(byte[] address) {
    if (address == null || address.length <= 8) {
      throw new FiException(FiErrno.EINVAL, "not a fiucx address (fi_getname of an endpoint)");
    }
    int n = address.length - 8;
    long lockKey = 0;
    for (int i = 7; i >= 0; i--) {
      lockKey = (lockKey << 8) | (address[n + i] & 0xFF);
    }
    TransportPeer peer = transport.connect(Arrays.copyOf(address, n));
    lockKeyList.add(lockKey);
    lockKeys = lockKeyList.stream().mapToLong(Long::longValue).toArray();
    peers.add(peer);
    table = peers.toArray(new TransportPeer[0]);
    return peers.size() - 1;
  }

  /** The key of the lock region of the peer at {@code fiAddr} (which exists). */
  long lockKey(long fiAddr) {
    return lockKeys[(int) fiAddr];
  }

  @Override
  public synchronized void remove(long fiAddr) {
    if (fiAddr >= 0 && fiAddr < peers.size() && peers.get((int) fiAddr) != null) {
      peers.get((int) fiAddr).close();
      peers.set((int) fiAddr, null);
      table = peers.toArray(new TransportPeer[0]);
    }
  }

  /** Adds the peers here that the transport found dead to {@code failed}. */
  void addFailedPeers(java.util.Set<TransportPeer> failed) {
    for (TransportPeer p : table) {
      if (p != null && p.failed()) {
        failed.add(p);
      }
    }
  }

  /** The peer at {@code fiAddr}, or null. Allocation-free. */
  TransportPeer peer(long fiAddr) {
    TransportPeer[] t = table;
    return fiAddr >= 0 && fiAddr < t.length ? t[(int) fiAddr] : null;
  }

  @Override
  public synchronized void close() {
    for (TransportPeer p : peers) {
      if (p != null) {
        p.close();
      }
    }
    peers.clear();
    table = new TransportPeer[0];
  }
}
