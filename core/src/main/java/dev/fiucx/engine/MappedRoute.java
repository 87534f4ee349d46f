package dev.fiucx.engine;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.Mechanism;
import dev.fiucx.completion.OperationCounts;
import dev.fiucx.semantics.AtomicCell;
import dev.fiucx.spi.RemoteAtomicOp;
import dev.fiucx.spi.RemoteRegion;
import dev.fiucx.spi.TransportPeer;

/**
 * Where the endpoint's last one-element native call went when it ended as a CPU atomic on a region
 * mapped into this process: its cell, peer and region, with what the next call to the same place
 * needs from them kept in plain fields. A call with the same (family, op, datatype, address, key)
 * then checks only what can change between calls (its buffers, its offset, the peer still in the
 * address vector and alive, the region still mapped and not revoked) instead of looking the cell,
 * the peer and the region up again; anything else takes the general path, which remembers the route
 * again when it ends on a mapping. The posting thread's alone, like the last-region cache.
 */
final class MappedRoute {
  private AtomicFamily family;
  private FiOp op;
  private FiDatatype datatype;
  private long destAddr;
  private long key;

  TransportPeer peer;
  RemoteRegion region;

  /** The region's base: an address's offset under virtual addressing is the address minus this. */
  long base;

  /** The largest offset an element may start at (the region's length minus the element's). */
  long lastOffset;

  /** The element's alignment minus one: base plus offset must have none of these bits set. */
  long alignmentMask;

  int size;
  RemoteAtomicOp nativeOp;
  boolean readsOperand;
  boolean fetches;
  boolean compares;

  /** The cell's index in the endpoint's operation counts. */
  int countIndex;

  /** The completion entry's flags. */
  long cqFlags;

  /** Whether the call leads where the last one went. */
  boolean leadsTo(AtomicFamily family, FiOp op, FiDatatype datatype, long destAddr, long key) {
    return op == this.op
        && datatype == this.datatype
        && family == this.family
        && destAddr == this.destAddr
        && key == this.key;
  }

  /** A one-element call on {@code cell} ended as a CPU atomic on {@code region}'s mapping. */
  void remember(AtomicCell cell, long destAddr, long key, TransportPeer peer, RemoteRegion region) {
    if (cell.mechanism() != Mechanism.NATIVE) {
      return;
    }
    this.family = cell.family();
    this.op = cell.op();
    this.datatype = cell.datatype();
    this.destAddr = destAddr;
    this.key = key;
    this.peer = peer;
    this.region = region;
    this.base = region.base();
    this.size = cell.size();
    this.lastOffset = region.length() - size;
    this.alignmentMask = cell.alignment() - 1;
    this.nativeOp = cell.nativeOp();
    this.readsOperand = cell.op() != FiOp.ATOMIC_READ;
    this.fetches = family != AtomicFamily.BASE;
    this.compares = family == AtomicFamily.COMPARE;
    this.countIndex = OperationCounts.index(family, op, datatype);
    this.cqFlags = FiFlags.ATOMIC | (fetches ? FiFlags.READ : FiFlags.WRITE);
  }
}
