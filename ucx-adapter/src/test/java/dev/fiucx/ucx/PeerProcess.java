package dev.fiucx.ucx;

import dev.fiucx.spi.ProcessIdentity;
import java.lang.foreign.Arena;
import java.util.HexFormat;

/**
 * A target in a process of its own, for {@link UcxPeerFailureTest}: opens a transport with the
 * transports named in {@code args[0]}, exposes 64 bytes ({@code args[1]}: {@link Memory} kind,
 * allocated by default), prints its address, key and process, and progresses until it is killed.
 */
public final class PeerProcess {
  private PeerProcess() {}

  public static void main(String[] args) throws Exception {
    Memory memory = args.length > 1 ? Memory.valueOf(args[1]) : Memory.ALLOCATED;
    try (UcxTransport t =
        new UcxTransport((token, status) -> {}, UcxOptions.defaults().withTransports(args[0]))) {
      var region = memory.expose(t, Arena.global(), 64);
      ProcessIdentity me = ProcessIdentity.self();
      System.out.println("ADDRESS " + HexFormat.of().formatHex(t.address()));
      System.out.println("KEY " + Long.toHexString(region.key()));
      System.out.println(
          "PROCESS "
              + me.pid()
              + " "
              + me.startTicks()
              + " "
              + me.bootIdHigh()
              + " "
              + me.bootIdLow()
              + " "
              + me.pidNamespace());
      System.out.flush();
      while (true) {
        t.progress();
      }
    }
  }
}
