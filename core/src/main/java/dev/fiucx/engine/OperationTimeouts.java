package dev.fiucx.engine;

import dev.fiucx.DomainAttr;
import dev.fiucx.completion.OperationClock;
import java.util.concurrent.atomic.LongAdder;

/**
 * A domain's operation timeout ({@link DomainAttr#operationTimeout}): once per clock tick, progress
 * looks at every endpoint's operations and gives up on the peers of those in flight too long
 * ({@link EngineEndpoint#abandonLatePeers}). Used by the one thread inside the domain's progress.
 */
final class OperationTimeouts {
  private final int limitTicks;
  private final long limitMillis;
  private final LongAdder abandoned = new LongAdder();
  private int lastLook;

  OperationTimeouts(DomainAttr attr) {
    this.limitMillis = attr.operationTimeout().toMillis();
    this.limitTicks = OperationClock.ticksOf(limitMillis);
  }

  /** Looks once per tick (a volatile load otherwise); returns how many peers it gave up on. */
  int look(EngineEndpoint[] endpoints) {
    int now = OperationClock.ticks();
    if (now == lastLook) {
      return 0;
    }
    lastLook = now;
    int n = 0;
    for (EngineEndpoint ep : endpoints) {
      n += ep.abandonLatePeers(now, limitTicks, limitMillis);
    }
    abandoned.add(n);
    return n;
  }

  /** Peers given up on so far (metrics; any thread). */
  long abandoned() {
    return abandoned.sum();
  }
}
