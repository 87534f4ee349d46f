package dev.fiucx.conformance.remote;

import dev.fiucx.AtomicFamily;
import dev.fiucx.DomainAttr;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import dev.fiucx.emulation.LockWords;
import dev.fiucx.engine.EngineDomain;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;

/**
 * A process that takes one remote lock of a target exactly as the remote-lock engine does (a
 * compare-and-swap of the stripe's lock word from free to this domain's owner, next generation),
 * prints {@code HELD} and then never lets go: it waits to be killed, at most a minute. Arguments:
 * {@code provider transport addressHex stripe}.
 */
public final class LockHolderProcess {
  private LockHolderProcess() {}

  public static void main(String[] args) throws InterruptedException {
    byte[] address = HexFormat.of().parseHex(args[2]);
    int stripe = Integer.parseInt(args[3]);
    try (Initiator ini = new Initiator(args[0], args[1], DomainAttr.Progress.AUTO);
        Arena arena = Arena.ofConfined()) {
      long peer = ini.av.insert(address);
      long lockKey = lockKey(address);
      int owner = ((EngineDomain) ini.domain).lockOwner();
      MemorySegment free = arena.allocate(8, 8); // a fresh target's words are 0: free, generation 0
      MemorySegment mine = arena.allocate(8, 8);
      mine.set(ValueLayout.JAVA_LONG, 0, LockWords.taken(0, owner));
      MemorySegment seen = arena.allocate(8, 8);
      int rc =
          ini.post(
              AtomicFamily.COMPARE,
              FiOp.CSWAP,
              FiDatatype.UINT64,
              1,
              mine,
              free,
              seen,
              peer,
              LockWords.offset(stripe),
              lockKey,
              null);
      if (rc != 0) {
        throw new IllegalStateException("CSWAP on the lock word: " + rc);
      }
      ini.awaitCompletion();
      if (seen.get(ValueLayout.JAVA_LONG, 0) != 0) {
        throw new IllegalStateException("the stripe was not free");
      }
      System.out.println("HELD " + Integer.toUnsignedString(owner));
      System.out.flush();
      Thread.sleep(60_000);
    }
  }

  /** The lock region's key, as a fiucx address carries it. */
  public static long lockKey(byte[] address) {
    return EngineDomain.lockKeyOf(address);
  }
}
