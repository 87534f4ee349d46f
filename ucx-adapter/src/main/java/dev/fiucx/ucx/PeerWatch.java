package dev.fiucx.ucx;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One daemon thread per JVM that looks at the processes of every open transport's peers every
 * {@link #PERIOD_MILLIS} ({@link UcxTransport#lookForDeadPeers}). Reading /proc allocates and makes
 * system calls, so it happens here, never in progress: progress only reads a flag and, when a peer
 * was seen gone, ends what it left ({@link UcxTransport#checkPeers}).
 */
final class PeerWatch {
  static final long PERIOD_MILLIS = 200;

  private static final System.Logger LOG = System.getLogger("dev.fiucx.ucx");
  private static final Set<UcxTransport> WATCHED = ConcurrentHashMap.newKeySet();
  private static ScheduledExecutorService timer; // guarded by PeerWatch.class

  private PeerWatch() {}

  static synchronized void watch(UcxTransport transport) {
    WATCHED.add(transport);
    if (timer == null) {
      timer =
          Executors.newSingleThreadScheduledExecutor(
              r -> Thread.ofPlatform().daemon().name("fiucx-peer-watch").unstarted(r));
      timer.scheduleWithFixedDelay(
          PeerWatch::look, PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
    }
  }

  static void unwatch(UcxTransport transport) {
    WATCHED.remove(transport);
  }

  private static void look() {
    for (UcxTransport t : WATCHED) {
      try {
        t.lookForDeadPeers();
      } catch (RuntimeException e) { // one transport's trouble must not stop the watch of others
        LOG.log(System.Logger.Level.WARNING, "looking at the peers of " + t + " failed", e);
      }
    }
  }
}
