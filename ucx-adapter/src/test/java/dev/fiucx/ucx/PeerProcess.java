package dev.fiucx.ucx;

import java.util.HexFormat;

/**
 * A target in a process of its own, for {@link UcxPeerFailureTest}: opens a transport with the
 * transports named in {@code args[0]}, exposes 64 registered bytes, prints its address and key, and
 * progresses until its standard input closes (or it is killed).
 */
public final class PeerProcess {
  private PeerProcess() {}

  public static void main(String[] args) throws Exception {
    try (UcxTransport t =
        new UcxTransport((token, status) -> {}, UcxOptions.defaults().withTransports(args[0]))) {
      var region = t.allocate(64, Memory.RW);
      System.out.println("ADDRESS " + HexFormat.of().formatHex(t.address()));
      System.out.println("KEY " + Long.toHexString(region.key()));
      System.out.flush();
      while (true) {
        t.progress();
      }
    }
  }
}
