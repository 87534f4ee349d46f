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
 * Where the endpoint's last one-element call went when its region is mapped into this process (a
 * native element is then a CPU atomic on the mapping; a CAS-loop or remote-lock element runs in
 * place there when nothing of its engine is in flight): its cell, peer and region, with what the
 * next call to the same place needs from them kept in plain fields. A call with the same (family,
 * op, datatype, address, key) then checks only what can change between calls (its buffers, its
 * offset, the peer still in the address vector and alive, the region still mapped and not revoked)
 * instead of looking the cell, the peer and the region up again; anything else takes the general
 * path, which remembers the route again when its region is mapped. The posting thread's alone, like
 * the last-region cache.
 */
final class MappedRoute {
  private AtomicFamily family;
  private FiOp op;
  private FiDatatype datatype;
  private long destAddr;
  private long key;

  /** The address vector's table when the route was made: while it is the same, so is the peer. */
  Object peers;

  AtomicCell cell;
  Mechanism mechanism;
  TransportPeer peer;
  RemoteRegion region;

  /** The peer's lock region (REMOTE_LOCK cells), else null. */
  RemoteRegion locks;

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

  /**
   * A one-element call on {@code cell} went to {@code region}, which is mapped into this process.
   *
   * @param peers the address vector's table, read before {@code peer} was looked up in it
   * @param locks the peer's lock region (REMOTE_LOCK cells), else ignored
   */
  void remember(
      AtomicCell cell,
      long destAddr,
      long key,
      Object peers,
      TransportPeer peer,
      RemoteRegion region,
      RemoteRegion locks) {
    if (cell.mechanism() == Mechanism.REMOTE_LOCK
        && (locks == null || peer.mapped(locks) == null)) {
      return; // the lock runs in place only on a mapped lock region
    }
    this.cell = cell;
    this.mechanism = cell.mechanism();
    this.locks = mechanism == Mechanism.REMOTE_LOCK ? locks : null;
    this.family = cell.family();
    this.op = cell.op();
    this.datatype = cell.datatype();
    this.destAddr = destAddr;
    this.key = key;
    this.peers = peers;
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
