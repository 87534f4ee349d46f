package dev.fiucx.engine;

import dev.fiucx.AddressVector;
import dev.fiucx.spi.Transport;
import dev.fiucx.spi.TransportPeer;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code fi_av} of type {@code FI_AV_TABLE}: inserting a peer's address connects to it, and the
 * returned {@code fi_addr_t} is its index.
 */
final class EngineAddressVector implements AddressVector {
  private final Transport transport;
  private final List<TransportPeer> peers = new ArrayList<>();
  private volatile TransportPeer[] table = new TransportPeer[0];

  EngineAddressVector(Transport transport) {
    this.transport = transport;
  }

  @Override
  public synchronized long insert(byte[] address) {
    peers.add(transport.connect(address));
    table = peers.toArray(new TransportPeer[0]);
    return peers.size() - 1;
  }

  @Override
  public synchronized void remove(long fiAddr) {
    if (fiAddr >= 0 && fiAddr < peers.size() && peers.get((int) fiAddr) != null) {
      peers.get((int) fiAddr).close();
      peers.set((int) fiAddr, null);
      table = peers.toArray(new TransportPeer[0]);
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
