package dev.fiucx.conformance.remote;

import dev.fiucx.DomainAttr;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiException;
import dev.fiucx.FiOp;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;

/**
 * An initiator process for contention tests: {@code n} fetching SUMs of 1 on the UINT64 at offset 0
 * of a target's region, one at a time; writes every fetched value (8 bytes, big-endian) to a file.
 * Arguments: {@code provider transport addressHex key n outFile}.
 */
public final class FetchAddProcess {
  private FetchAddProcess() {}

  public static void main(String[] args) throws IOException {
    byte[] address = HexFormat.of().parseHex(args[2]);
    long[] fetched =
        fetchAdd(args[0], args[1], address, Long.parseLong(args[3]), Integer.parseInt(args[4]));
    try (DataOutputStream out = new DataOutputStream(new FileOutputStream(args[5]))) {
      for (long v : fetched) {
        out.writeLong(v);
      }
    }
  }

  /** Runs {@code n} fetch SUMs of 1 and returns the fetched values in order. */
  public static long[] fetchAdd(
      String provider, String transport, byte[] address, long key, int n) {
    long[] fetched = new long[n];
    try (Initiator ini = new Initiator(provider, transport, DomainAttr.Progress.MANUAL);
        Arena arena = Arena.ofConfined()) {
      long peer = ini.av.insert(address);
      MemorySegment one = arena.allocate(8, 8);
      one.set(ValueLayout.JAVA_LONG, 0, 1);
      MemorySegment result = arena.allocate(8, 8);
      for (int i = 0; i < n; i++) {
        int rc =
            ini.ep.fetchAtomic(
                one, 1, null, result, null, peer, 0, key, FiDatatype.UINT64, FiOp.SUM, null);
        if (rc < 0) {
          throw new FiException(rc, "fetch SUM " + i + " of " + n);
        }
        ini.awaitCompletion();
        fetched[i] = result.get(ValueLayout.JAVA_LONG, 0);
      }
    }
    return fetched;
  }
}
