package dev.fiucx.perf.jmh;

import dev.fiucx.AddressVector;
import dev.fiucx.CompletionQueue;
import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.Endpoint;
import dev.fiucx.Fabric;
import dev.fiucx.FiFlags;
import dev.fiucx.MemoryRegion;
import java.util.Map;

/**
 * A target and an initiator over the ucx provider's shared memory, both in this JVM, opened through
 * the public API only: the target domain (automatic progress, so it answers key resolution) exposes
 * memory that UCX allocated; the initiator domain has a completion queue, an address vector with
 * the target in it, and an enabled endpoint.
 */
final class ShmPair implements AutoCloseable {
  final Domain target;
  final Endpoint targetEndpoint;
  final MemoryRegion region;
  final Domain initiator;
  final CompletionQueue cq;
  final AddressVector av;
  final Endpoint ep;
  final long peer;

  /**
   * @param progress the initiator's progress mode
   * @param regionBytes the size of the target's region
   * @param cqSize room in the initiator's completion queue
   */
  ShmPair(DomainAttr.Progress progress, long regionBytes, int cqSize) {
    UcxLogToStderr.ensure();
    target =
        Fabric.openDomain("ucx", new DomainAttr("shm", DomainAttr.Progress.AUTO, false, Map.of()));
    targetEndpoint = target.openEndpoint();
    region = target.allocateMemory(regionBytes, FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE);
    initiator = Fabric.openDomain("ucx", new DomainAttr("shm", progress, false, Map.of()));
    cq = initiator.openCompletionQueue(cqSize);
    av = initiator.openAddressVector();
    ep = initiator.openEndpoint();
    ep.bind(av);
    ep.bind(cq, FiFlags.TRANSMIT);
    ep.enable();
    peer = av.insert(targetEndpoint.name());
  }

  /** Closes the initiator first: closing the region waits for every peer that resolved its key. */
  @Override
  public void close() {
    ep.close();
    cq.close();
    av.close();
    initiator.close();
    region.close();
    targetEndpoint.close();
    target.close();
  }
}
