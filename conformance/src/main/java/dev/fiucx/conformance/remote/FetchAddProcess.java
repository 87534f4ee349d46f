package dev.fiucx.conformance.remote;

import dev.fiucx.DomainAttr;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiException;
import dev.fiucx.FiOp;
import dev.fiucx.semantics.ElementSemantics;
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
 * Arguments: {@code provider transport addressHex key n outFile [offset datatype op operand]}: the
 * optional four name another element, datatype (libfabric's name, e.g. {@code FI_INT8}), op ({@code
 * FI_MIN}) and operand (its bits as a decimal long).
 */
public final class FetchAddProcess {
  private FetchAddProcess() {}

  public static void main(String[] args) throws IOException {
    byte[] address = HexFormat.of().parseHex(args[2]);
    long key = Long.parseLong(args[3]);
    int n = Integer.parseInt(args[4]);
    long[] fetched =
        args.length > 6
            ? fetchLoop(
                args[0],
                args[1],
                address,
                key,
                n,
                Long.parseLong(args[6]),
                FiDatatype.ofName(args[7]),
                FiOp.ofName(args[8]),
                Long.parseLong(args[9]))
            : fetchAdd(args[0], args[1], address, key, n);
    try (DataOutputStream out = new DataOutputStream(new FileOutputStream(args[5]))) {
      for (long v : fetched) {
        out.writeLong(v);
      }
    }
  }

  /** Runs {@code n} fetch SUMs of 1 and returns the fetched values in order. */
  public static long[] fetchAdd(
      String provider, String transport, byte[] address, long key, int n) {
    return fetchLoop(provider, transport, address, key, n, 0, FiDatatype.UINT64, FiOp.SUM, 1);
  }

  /**
   * Runs {@code n} fetching {@code op}s with one operand on the element at {@code offset}, one at a
   * time, and returns the fetched bits (zero-extended) in order.
   */
  public static long[] fetchLoop(
      String provider,
      String transport,
      byte[] address,
      long key,
      int n,
      long offset,
      FiDatatype datatype,
      FiOp op,
      long operandBits) {
    long[] fetched = new long[n];
    try (Initiator ini = new Initiator(provider, transport, DomainAttr.Progress.MANUAL);
        Arena arena = Arena.ofConfined()) {
      long peer = ini.av.insert(address);
      MemorySegment operand = arena.allocate(8, 8);
      operand.set(ValueLayout.JAVA_LONG, 0, operandBits);
      MemorySegment result = arena.allocate(8, 8);
      for (int i = 0; i < n; i++) {
        int rc =
            ini.ep.fetchAtomic(
                operand, 1, null, result, null, peer, offset, key, datatype, op, null);
        if (rc < 0) {
          throw new FiException(rc, "fetch " + op.fiName() + " " + i + " of " + n);
        }
        ini.awaitCompletion();
        fetched[i] = ElementSemantics.load(result, 0, datatype.size());
      }
    }
    return fetched;
  }
}
