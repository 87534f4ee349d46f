package dev.fiucx.dispatch;

import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.FiFlags;
import dev.fiucx.spi.ExposedRegion;
import dev.fiucx.spi.RemoteAtomicOp;
import dev.fiucx.spi.RemoteRegion;
import dev.fiucx.spi.Transport;
import dev.fiucx.spi.TransportPeer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * Proves each remote atomic right before the table calls it native: every (op, size, fetching or
 * not) runs once through the transport against this process's own memory, allocated and registered,
 * and the old and new values are checked. A native op is only native once it has been seen
 * computing the right answer on this machine (Debian's UCX 1.13.1 gets fetching AND, OR and XOR
 * wrong on shared memory).
 */
public final class NativeAtomicsProof {
  /** A remote atomic that gave a wrong answer, and what it did. */
  public record Demotion(RemoteAtomicOp op, int size, boolean fetching, String reason) {}

  private static final long TIMEOUT_NANOS = 5_000_000_000L;
  private static final long INITIAL = 0x0123456789ABCDEFL;
  private static final long OPERAND = 0x0FF00FF0F00FF00FL;

  private volatile boolean completed;
  private volatile int completionStatus;

  /** Receives the completion of the self-test's pending operation. */
  public void completed(long token, int status) {
    completionStatus = status;
    completed = true;
  }

  /**
   * Runs every check with {@code token} for pending operations; returns the ops that failed. Throws
   * when the transport cannot run them at all.
   */
  public List<Demotion> run(Transport transport, long token) {
    List<Demotion> demoted = new ArrayList<>();
    try (Arena arena = Arena.ofConfined();
        ExposedRegion allocated =
            transport.allocate(16, FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE);
        ExposedRegion registered =
            transport.register(arena.allocate(16, 8), FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE);
        TransportPeer self = transport.connect(transport.address())) {
      MemorySegment result = arena.allocate(8, 8);
      for (ExposedRegion region : List.of(allocated, registered)) {
        check(self.resolve(region.key()), "resolving its own key");
        RemoteRegion remote = self.cached(region.key());
        for (RemoteAtomicOp op : RemoteAtomicOp.values()) {
          for (int size : new int[] {4, 8}) {
            for (boolean fetching : new boolean[] {false, true}) {
              boolean mustFetch = op == RemoteAtomicOp.SWAP || op == RemoteAtomicOp.CSWAP;
              if (mustFetch && !fetching || alreadyDemoted(demoted, op, size, fetching)) {
                continue;
              }
              String wrong =
                  runOne(
                      transport, self, remote, region.segment(), result, op, size, fetching, token);
              if (wrong != null) {
                demoted.add(new Demotion(op, size, fetching, wrong));
              }
            }
          }
        }
      }
    }
    return List.copyOf(demoted);
  }

  private static boolean alreadyDemoted(
      List<Demotion> demoted, RemoteAtomicOp op, int size, boolean fetching) {
    for (Demotion d : demoted) {
      if (d.op() == op && d.size() == size && d.fetching() == fetching) {
        return true;
      }
    }
    return false;
  }

  /** Null when right, else what went wrong. */
  private String runOne(
      Transport transport,
      TransportPeer self,
      RemoteRegion remote,
      MemorySegment target,
      MemorySegment result,
      RemoteAtomicOp op,
      int size,
      boolean fetching,
      long token) {
    long mask = size == 8 ? -1L : 0xFFFFFFFFL;
    long initial = INITIAL & mask;
    long operand = OPERAND & mask;
    store(target, size, initial);
    store(result, size, 0);
    completed = false;
    int rc =
        op == RemoteAtomicOp.CSWAP
            ? self.postCompareSwap(remote, 0, size, initial, operand, result.address(), token)
            : self.postAtomic(remote, 0, op, size, operand, fetching ? result.address() : 0, token);
    if (rc == TransportPeer.PENDING) {
      long deadline = System.nanoTime() + TIMEOUT_NANOS;
      while (!completed) {
        if (System.nanoTime() - deadline > 0) {
          throw new FiException(FiErrno.ETIMEDOUT, "self-test " + op + " never completed");
        }
        transport.progress();
      }
      rc = completionStatus;
    }
    check(rc, "self-test " + op + " on " + size + " bytes");
    long expectedFinal =
        switch (op) {
              case ADD -> initial + operand;
              case AND -> initial & operand;
              case OR -> initial | operand;
              case XOR -> initial ^ operand;
              case SWAP, CSWAP -> operand;
            }
            & mask;
    long finalValue = load(target, size);
    long fetched = load(result, size);
    String what = (fetching ? "fetching " : "") + op + " on " + size + " bytes";
    if (finalValue != expectedFinal) {
      return what
          + " left 0x"
          + Long.toHexString(finalValue)
          + " in the target, not 0x"
          + Long.toHexString(expectedFinal)
          + " (self-test at domain open)";
    }
    if (fetching && fetched != initial) {
      return what
          + " fetched 0x"
          + Long.toHexString(fetched)
          + ", not 0x"
          + Long.toHexString(initial)
          + " (self-test at domain open)";
    }
    return null;
  }

  private static void check(int rc, String what) {
    if (rc < 0) {
      throw new FiException(rc, what);
    }
  }

  private static void store(MemorySegment s, int size, long v) {
    if (size == 8) {
      s.set(ValueLayout.JAVA_LONG, 0, v);
    } else {
      s.set(ValueLayout.JAVA_INT, 0, (int) v);
    }
  }

  private static long load(MemorySegment s, int size) {
    return size == 8
        ? s.get(ValueLayout.JAVA_LONG, 0)
        : s.get(ValueLayout.JAVA_INT, 0) & 0xFFFFFFFFL;
  }
}
