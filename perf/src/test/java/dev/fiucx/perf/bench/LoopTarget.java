package dev.fiucx.perf.bench;

import dev.fiucx.AtomicFamily;
import dev.fiucx.CompletionQueue;
import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.Endpoint;
import dev.fiucx.Fabric;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.MemoryRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the measuring-loop tests run on, in one JVM: a target domain (automatic progress) with a
 * 64-byte region, and a manual-progress initiator with one endpoint and its completion queue,
 * connected to it; {@link #loop} makes bench's loop of fetch SUM UINT64 calls on the region's first
 * element.
 */
final class LoopTarget implements AutoCloseable {
  private final Domain target;
  private final Domain me;
  private final Arena arena = Arena.ofShared();
  private final MemoryRegion region;
  private final Endpoint ep;
  private final CompletionQueue cq;
  private final long peer;
  private final BenchConfig cfg;

  /**
   * @param threading the initiator domain's threading, or null for the default
   */
  LoopTarget(String transport, int window, DomainAttr.Threading threading) {
    cfg =
        new BenchConfig(
            AtomicFamily.FETCH,
            FiOp.SUM,
            FiDatatype.UINT64,
            1,
            window,
            0,
            0,
            1,
            transport,
            DomainAttr.Progress.MANUAL,
            null,
            null,
            threading,
            BenchConfig.Api.MIRROR);
    target =
        Fabric.openDomain(
            "ucx", new DomainAttr(transport, DomainAttr.Progress.AUTO, false, Map.of()));
    me = Fabric.openDomain("ucx", cfg.domainAttr());
    region = target.allocateMemory(64, FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE);
    var av = me.openAddressVector();
    cq = me.openCompletionQueue(window);
    ep = me.openEndpoint();
    ep.bind(av);
    ep.bind(cq, FiFlags.TRANSMIT);
    ep.enable();
    peer = av.insert(target.openEndpoint().name());
  }

  /**
   * bench's loop with {@code window} calls in flight on the element at offset 0 under {@code key}.
   */
  MeasuringLoop loop(long key) {
    CallPoster poster = new CallPoster(ep, cfg, peer, 0, key, cfg.window(), arena);
    return new MeasuringLoop(poster, cq, cfg.window(), new AtomicLong());
  }

  long key() {
    return region.key();
  }

  /** The target's first element. */
  long word() {
    return region.segment().get(ValueLayout.JAVA_LONG, 0);
  }

  @Override
  public void close() {
    arena.close();
    me.close();
    target.close();
  }
}
