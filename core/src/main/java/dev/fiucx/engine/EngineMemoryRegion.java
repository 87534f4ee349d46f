package dev.fiucx.engine;

import dev.fiucx.FiFlags;
import dev.fiucx.MemoryRegion;
import dev.fiucx.semantics.ElementSemantics;
import dev.fiucx.spi.ExposedRegion;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code fi_mr}: memory a transport exposes under its key; closing it revokes the key. After close
 * its segment is refused: allocated memory is unmapped by then (its segment's scope is closed too),
 * and registered memory is the user's again, to reach through their own segment.
 */
final class EngineMemoryRegion implements MemoryRegion {
  private final ExposedRegion exposed;
  private volatile boolean closed;

  /** Writes of {@link #writeIfWithin} in progress: close waits for them before it unmaps. */
  private final AtomicInteger writers = new AtomicInteger();

  EngineMemoryRegion(ExposedRegion exposed) {
    this.exposed = exposed;
  }

  @Override
  public long key() {
    return exposed.key();
  }

  @Override
  public MemorySegment segment() {
    checkOpen();
    return exposed.segment();
  }

  @Override
  public long access() {
    return exposed.access();
  }

  @Override
  public long baseAddress() {
    checkOpen();
    return exposed.segment().address();
  }

  @Override
  public void close() {
    closed = true;
    // a write that saw the region open finishes before the memory goes (a few stores)
    while (writers.get() != 0) {
      Thread.onSpinWait();
    }
    exposed.close();
  }

  /**
   * A dead lock holder's committed write (its redo record), completed by the target into whichever
   * of its {@code opened} objects is a region holding it, open for remote writes.
   *
   * @return whether one did
   */
  static boolean writeIntoOpen(
      Iterable<AutoCloseable> opened, long address, MemorySegment from, long fromOffset, int size) {
    for (AutoCloseable o : opened) {
      if (o instanceof EngineMemoryRegion mr && mr.writeIfWithin(address, from, fromOffset, size)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Writes {@code size} bytes of {@code from} at {@code fromOffset} to virtual address {@code
   * address} when they lie within this region and it is open and exposed for remote writes: a dead
   * lock holder's committed write, completed by the target. Never into memory being given back: a
   * close waits for a write that saw the region open, and a write that starts after it writes
   * nothing.
   *
   * @return whether it wrote them
   */
  private boolean writeIfWithin(long address, MemorySegment from, long fromOffset, int size) {
    if ((exposed.access() & FiFlags.REMOTE_WRITE) == 0) {
      return false;
    }
    writers.incrementAndGet();
    try {
      if (closed) {
        return false;
      }
      MemorySegment memory = exposed.segment();
      long offset = address - memory.address(); // modulo 2^64: in range only for one in it
      if (offset < 0 || offset > memory.byteSize() - size) {
        return false;
      }
      ElementSemantics.copy(from, fromOffset, memory, offset, size);
      return true;
    } finally {
      writers.decrementAndGet();
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException(
          "memory region 0x" + Long.toHexString(exposed.key()) + " is closed");
    }
  }
}
