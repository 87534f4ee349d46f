package dev.fiucx.conformance.remote;

import dev.fiucx.FiDatatype;
import dev.fiucx.FiException;
import dev.fiucx.FiOp;
import dev.fiucx.semantics.ElementSemantics;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HexFormat;

/**
 * An initiator process for contention tests: {@code n} fetching SUMs of 1 on the UINT64 at offset 0
 * of a target's region, one at a time; writes every fetched value (8 bytes, big-endian) to a file.
 * Arguments: {@code provider transport addressHex key n outFile [offset datatype op operand]}: the
 * optional four name another element, datatype (libfabric's name, e.g. {@code FI_INT8}), op ({@code
 * FI_MIN}) and operand (its bits as a decimal long; for elements wider than 8 bytes, its bytes in
 * hex). Each fetched value is written as its first 8 bytes (zero-extended when shorter).
 */
public final class FetchAddProcess {
  private FetchAddProcess() {}

  /**
   * Runs the calls the arguments describe and writes the fetched values.
   *
   * @param args as the class comment says
   * @throws IOException when the output file cannot be written
   */
  public static void main(String[] args) throws IOException {
    byte[] address = HexFormat.of().parseHex(args[2]);
    long key = Long.parseLong(args[3]);
    int n = Integer.parseInt(args[4]);
    long[] fetched;
    if (args.length > 6) {
      FiDatatype datatype = FiDatatype.ofName(args[7]);
      fetched =
          fetchLoop(
              args[0],
              args[1],
              address,
              key,
              n,
              Long.parseLong(args[6]),
              datatype,
              FiOp.ofName(args[8]),
              datatype.size() > 8
                  ? HexFormat.of().parseHex(args[9])
                  : bitsAsBytes(Long.parseLong(args[9])));
    } else {
      fetched = fetchAdd(args[0], args[1], address, key, n);
    }
    try (DataOutputStream out = new DataOutputStream(new FileOutputStream(args[5]))) {
      for (long v : fetched) {
        out.writeLong(v);
      }
    }
  }

  /**
   * {@return the fetched values of {@code n} fetch SUMs of 1, in order}
   *
   * @param provider the provider's name, e.g. {@code ucx}
   * @param transport the provider's transport name, or null for its default
   * @param address the target domain's address
   * @param key the target region's key
   * @param n how many calls
   */
  public static long[] fetchAdd(
      String provider, String transport, byte[] address, long key, int n) {
    return fetchLoop(
        provider, transport, address, key, n, 0, FiDatatype.UINT64, FiOp.SUM, bitsAsBytes(1));
  }

  private static byte[] bitsAsBytes(long bits) {
    byte[] b = new byte[8];
    for (int i = 0; i < 8; i++) {
      b[i] = (byte) (bits >>> (8 * i));
    }
    return b;
  }

  /**
   * Runs {@code n} fetching {@code op}s with one operand on the element at {@code offset}, one at a
   * time, and returns the first 8 bytes of each fetched value (zero-extended) in order.
   *
   * @param provider the provider's name, e.g. {@code ucx}
   * @param transport the provider's transport name, or null for its default
   * @param address the target domain's address
   * @param key the target region's key
   * @param n how many calls
   * @param offset the element's byte offset in the region
   * @param datatype the element's datatype
   * @param op the fetching operation
   * @param operand the operand's bytes, little-endian; its first {@code datatype.size()} are used
   * @return the first 8 bytes of each fetched value, in order
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
      byte[] operand) {
    long[] fetched = new long[n];
    try (Initiator ini = new Initiator(provider, Initiator.manual(transport));
        Arena arena = Arena.ofConfined()) {
      long peer = ini.av.insert(address);
      int size = datatype.size();
      MemorySegment operandBuffer = arena.allocate(Math.max(8, size), 16);
      operandBuffer.copyFrom(
          MemorySegment.ofArray(operand)
              .asSlice(0, Math.min(operand.length, operandBuffer.byteSize())));
      MemorySegment result = arena.allocate(Math.max(8, size), 16);
      for (int i = 0; i < n; i++) {
        int rc =
            ini.ep.fetchAtomic(
                operandBuffer, 1, null, result, null, peer, offset, key, datatype, op, null);
        if (rc < 0) {
          throw new FiException(rc, "fetch " + op.fiName() + " " + i + " of " + n);
        }
        ini.awaitCompletion();
        fetched[i] = ElementSemantics.load(result, 0, Math.min(size, 8));
      }
    }
    return fetched;
  }
}
