package dev.fiucx.ucx;

import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import dev.fiucx.FiFlags;
import dev.fiucx.ServeAttr;
import dev.fiucx.Server;
import java.util.List;
import java.util.Map;

/**
 * A serve in a child JVM, for {@link AtomicRegionOneThreadTest}: region {@code cells} (64 bytes,
 * read and write) on loopback over the transports in {@code args[0]}, its domain progressing by
 * itself; prints {@code PORT P} and serves until its standard input ends (the test is gone) or it
 * is killed.
 */
public final class ServingProcess {
  private ServingProcess() {}

  public static void main(String[] args) throws Exception {
    try (Server server =
        Fabric.serve(
            new ServeAttr(
                "127.0.0.1",
                0,
                List.of(
                    new ServeAttr.Region("cells", 64, FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE)),
                new DomainAttr(args[0], DomainAttr.Progress.AUTO, false, Map.of())))) {
      System.out.println("PORT " + server.port());
      System.out.flush();
      while (System.in.read() >= 0) {
        // nothing is sent; only the end matters
      }
    }
  }
}
