package dev.fiucx.perf.bench;

import dev.fiucx.CompletionQueue;
import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.Endpoint;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiOp;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Reads a serve's elements as any initiator can: a fetching {@code ATOMIC_READ} per element,
 * through one thread of a {@link BenchInitiator}. bench -P reads every element its initiators will
 * change before it starts them and after they end, from its own serve and from a user's alike.
 */
final class ElementReader {
  private final Endpoint ep;
  private final CompletionQueue cq;
  private final long peer;
  private final long key;

  ElementReader(BenchInitiator observer, long key) {
    this.ep = observer.endpoint(0);
    this.cq = observer.queue(0);
    this.peer = observer.peer(0);
    this.key = key;
  }

  /** The bytes of {@code count} elements of {@code dt} from byte {@code addr} of the region. */
  byte[] read(long addr, FiDatatype dt, int count) throws IOException {
    int size = dt.size();
    byte[] out = new byte[size * count];
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment operand = arena.allocate(size, 16);
      MemorySegment result = arena.allocate(size, 16);
      CqEntry[] entries = {new CqEntry()};
      for (int e = 0; e < count; e++) {
        long at = addr + (long) e * size;
        int rc;
        while ((rc =
                ep.fetchAtomic(
                    operand, 1, null, result, null, peer, at, key, dt, FiOp.ATOMIC_READ, null))
            == -FiErrno.EAGAIN) {
          cq.read(entries, 1);
        }
        if (rc < 0) {
          throw new IOException(
              "reading the target's element at byte " + at + ": " + FiErrno.errorString(-rc));
        }
        int n;
        while ((n = cq.read(entries, 1)) == -FiErrno.EAGAIN) {
          Thread.onSpinWait();
        }
        if (n != 1) {
          CqErrEntry err = new CqErrEntry();
          String why =
              n == -FiErrno.EAVAIL && cq.readErr(err) == 1
                  ? FiErrno.errorString(err.err)
                  : FiErrno.errorString(-n);
          throw new IOException("reading the target's element at byte " + at + ": " + why);
        }
        MemorySegment.copy(result, ValueLayout.JAVA_BYTE, 0, out, e * size, size);
      }
    }
    return out;
  }
}
