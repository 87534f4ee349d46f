package dev.fiucx.ucx;

/**
 * A process that allocates one region and waits to be killed, for {@link UcxKilledAllocationTest}:
 * opens a transport on the UCX_TLS list in {@code args[0]}, prints {@code ALLOCATING}, allocates
 * {@code args[1]} bytes, prints {@code ALLOCATED} and sleeps.
 */
public final class AllocatingProcess {
  private AllocatingProcess() {}

  public static void main(String[] args) throws Exception {
    try (UcxTransport t =
        new UcxTransport((token, status) -> {}, UcxOptions.defaults().withTransports(args[0]))) {
      System.out.println("ALLOCATING");
      System.out.flush();
      t.allocate(Long.parseLong(args[1]), Memory.RW);
      System.out.println("ALLOCATED");
      System.out.flush();
      Thread.sleep(Long.MAX_VALUE);
    }
  }
}
