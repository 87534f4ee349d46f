package dev.fiucx.ucx;

import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import java.util.Map;

/** A child JVM for {@link UcpApiWarningTest}: opens and closes one ucx domain, prints OPENED. */
public final class OpeningProcess {
  private OpeningProcess() {}

  public static void main(String[] args) {
    try (Domain d =
        Fabric.openDomain(
            "ucx", new DomainAttr("shm", DomainAttr.Progress.MANUAL, false, Map.of()))) {
      System.out.println("OPENED " + d.providerName());
    }
  }
}
