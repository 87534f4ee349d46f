package dev.fiucx.conformance.remote;

import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import dev.fiucx.FiFlags;
import dev.fiucx.MemoryRegion;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Map;

/**
 * The target side of a two-process test: opens a domain with automatic progress, exposes one
 * region, prints {@code READY <address hex> <key> <length>} and then serves a line protocol on
 * stdin until {@code QUIT} or end of input, so the parent can set and inspect the target's memory
 * without going through the provider under test:
 *
 * <pre>
 * SET offset hex      -> OK
 * GET offset length   -> DATA hex
 * CLOSE               -> OK (closes the region: its key is revoked)
 * RENEW               -> OK key (closes the region if open and exposes a new one, zeroed, of the
 *                        same length and kind; SET and GET then address it)
 * QUIT                -> process exits
 * </pre>
 *
 * Arguments: {@code provider transport length allocate|register read-only|read-write}.
 */
public final class TargetProcess {
  private static final HexFormat HEX = HexFormat.of();

  private TargetProcess() {}

  private static MemoryRegion expose(
      Domain domain, Arena arena, long length, boolean register, long access) {
    return register
        ? domain.registerMemory(arena.allocate(length, 16), access)
        : domain.allocateMemory(length, access);
  }

  public static void main(String[] args) throws Exception {
    String provider = args[0];
    String transport = args[1].equals("-") ? null : args[1];
    long length = Long.parseLong(args[2]);
    boolean register = args[3].equals("register");
    long access =
        args.length > 4 && args[4].equals("read-only")
            ? FiFlags.REMOTE_READ
            : FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE;
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    try (Arena arena = Arena.ofShared();
        Domain domain =
            Fabric.openDomain(
                provider, new DomainAttr(transport, DomainAttr.Progress.AUTO, false, Map.of()))) {
      MemoryRegion mr = expose(domain, arena, length, register, access);
      MemorySegment memory = mr.segment();
      out.println(
          "READY " + HEX.formatHex(domain.openEndpoint().name()) + " " + mr.key() + " " + length);
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      String line;
      while ((line = in.readLine()) != null) {
        String[] w = line.trim().split(" ");
        try {
          switch (w[0]) {
            case "SET" -> {
              byte[] bytes = HEX.parseHex(w[2]);
              MemorySegment.copy(
                  MemorySegment.ofArray(bytes), 0, memory, Long.parseLong(w[1]), bytes.length);
              out.println("OK");
            }
            case "GET" -> {
              byte[] bytes =
                  memory
                      .asSlice(Long.parseLong(w[1]), Long.parseLong(w[2]))
                      .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
              out.println("DATA " + HEX.formatHex(bytes));
            }
            case "CLOSE" -> {
              mr.close();
              out.println("OK");
            }
            case "RENEW" -> {
              mr.close(); // closing twice is allowed
              mr = expose(domain, arena, length, register, access);
              memory = mr.segment();
              out.println("OK " + mr.key());
            }
            case "QUIT" -> {
              return;
            }
            default -> out.println("ERR unknown command " + w[0]);
          }
        } catch (RuntimeException e) {
          out.println("ERR " + e.getMessage());
        }
      }
    }
  }
}
