package dev.fiucx.ucx;

/** What the series table says of the UCX loaded here, for tests outside this package. */
public final class UcxSeriesFacts {
  private UcxSeriesFacts() {}

  /** Whether the loaded series computes fetching AND, OR and XOR wrongly on shared memory. */
  public static boolean fetchingLogicWrongOnShm() {
    return UcxSeries.loaded().fetchingLogicWrongOnShm();
  }

  /** Whether fiucx runs UCX's protocols v1 on the loaded series. */
  public static boolean protocolsV1() {
    return UcxSeries.loaded().protocolV1Only();
  }

  /** Whether data endpoints over tcp have UCX's peer-failure handling on the loaded series. */
  public static boolean softwareAtomicsWithFailureHandling() {
    return UcxSeries.loaded().softwareAtomicsWithFailureHandling();
  }
}
