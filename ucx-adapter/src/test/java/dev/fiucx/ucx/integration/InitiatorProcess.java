package dev.fiucx.ucx.integration;

import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import dev.fiucx.conformance.remote.Initiator;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;

/**
 * An initiator in a process of its own, for tests that kill it: connects to the target whose
 * address and key it is given ({@code transport addressHex key}), adds 1 at offset 0 with a fetch,
 * prints {@code DONE} and waits to be killed.
 */
public final class InitiatorProcess {
  private InitiatorProcess() {}

  public static void main(String[] args) throws Exception {
    try (Arena arena = Arena.ofConfined();
        Initiator ini = new Initiator("ucx", Initiator.manual(args[0]))) {
      long peer = ini.av.insert(HexFormat.of().parseHex(args[1]));
      MemorySegment one = arena.allocate(8, 8);
      one.set(ValueLayout.JAVA_LONG, 0, 1);
      MemorySegment result = arena.allocate(8, 8);
      int rc =
          ini.ep.fetchAtomic(
              one,
              1,
              null,
              result,
              null,
              peer,
              0,
              Long.parseLong(args[2]),
              FiDatatype.UINT64,
              FiOp.SUM,
              null);
      if (rc != 0) {
        throw new IllegalStateException("fetch returned " + rc);
      }
      ini.awaitCompletion();
      System.out.println("DONE");
      System.out.flush();
      Thread.sleep(Long.MAX_VALUE);
    }
  }
}
