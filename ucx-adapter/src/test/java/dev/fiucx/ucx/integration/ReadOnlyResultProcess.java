package dev.fiucx.ucx.integration;

import dev.fiucx.AtomicMsg;
import dev.fiucx.DomainAttr;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiOp;
import dev.fiucx.Ioc;
import dev.fiucx.RmaIoc;
import dev.fiucx.conformance.remote.Initiator;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;

/**
 * A child JVM for the cases that once killed the JVM: results written into a {@code
 * FileChannel.map(READ_ONLY)} mapping (native memory the process may not write: UCX or the progress
 * thread died of SIGSEGV writing it). Prints {@code <case> <rc>} for each call, then {@code probe
 * <value>} after a fetch SUM of 1 on the probe element into good memory, and exits 0.
 *
 * <p>Arguments: {@code transport addressHex key probeOffset}.
 */
public final class ReadOnlyResultProcess {
  private ReadOnlyResultProcess() {}

  public static void main(String[] args) throws IOException {
    String transport = args[0];
    byte[] address = HexFormat.of().parseHex(args[1]);
    long key = Long.parseLong(args[2]);
    long probe = Long.parseLong(args[3]);
    Path file = Files.createTempFile("fiucx-read-only", ".bin");
    try (Initiator ini = new Initiator("ucx", transport, DomainAttr.Progress.AUTO);
        Arena arena = Arena.ofShared();
        FileChannel channel =
            FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      channel.write(java.nio.ByteBuffer.allocate(4096));
      MemorySegment mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, 4096, arena);
      long peer = ini.av.insert(address);
      MemorySegment ones = arena.allocate(32, 16);
      for (int i = 0; i < 4; i++) {
        ones.setAtIndex(ValueLayout.JAVA_LONG, i, 1);
      }
      System.out.println("read-only " + mapped.isReadOnly() + " native " + mapped.isNative());
      print(
          "fetch-sum-uint64",
          ini.ep.fetchAtomic(
              ones, 1, null, mapped, null, peer, 0, key, FiDatatype.UINT64, FiOp.SUM, "x"));
      print(
          "fetch-min-int64",
          ini.ep.fetchAtomic(
              ones, 1, null, mapped, null, peer, 8, key, FiDatatype.INT64, FiOp.MIN, "x"));
      print(
          "fetch-sum-double-complex",
          ini.ep.fetchAtomic(
              ones,
              1,
              null,
              mapped,
              null,
              peer,
              16,
              key,
              FiDatatype.DOUBLE_COMPLEX,
              FiOp.SUM,
              "x"));
      print(
          "fetch-sum-count-4",
          ini.ep.fetchAtomic(
              ones, 4, null, mapped, null, peer, 0, key, FiDatatype.UINT64, FiOp.SUM, "x"));
      print(
          "fetch-read",
          ini.ep.fetchAtomic(
              null, 1, null, mapped, null, peer, 0, key, FiDatatype.UINT64, FiOp.ATOMIC_READ, "x"));
      print(
          "cswap-uint64",
          ini.ep.compareAtomic(
              ones,
              1,
              null,
              ones,
              null,
              mapped,
              null,
              peer,
              0,
              key,
              FiDatatype.UINT64,
              FiOp.CSWAP,
              "x"));
      print(
          "fetch-msg",
          ini.ep.fetchAtomicmsg(
              new AtomicMsg(
                  new Ioc[] {new Ioc(ones, 1)},
                  null,
                  peer,
                  new RmaIoc[] {new RmaIoc(0, 1, key)},
                  FiDatatype.UINT64,
                  FiOp.SUM,
                  "x",
                  0),
              new Ioc[] {new Ioc(mapped, 1)},
              null,
              1,
              0));
      MemorySegment good = arena.allocate(8, 8);
      int rc =
          ini.ep.fetchAtomic(
              ones, 1, null, good, null, peer, probe, key, FiDatatype.UINT64, FiOp.SUM, "probe");
      if (rc != 0) {
        print("probe-post", rc);
      } else {
        Object context = ini.awaitCompletion();
        System.out.println("probe " + good.get(ValueLayout.JAVA_LONG, 0) + " " + context);
      }
    } finally {
      Files.deleteIfExists(file);
    }
  }

  private static void print(String name, int rc) {
    System.out.println(name + " " + rc + " " + FiErrno.errorString(rc));
  }
}
