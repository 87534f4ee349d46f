package dev.fiucx.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The series table and its gate: pure functions first, then the libucp loaded here. */
class UcxSeriesTest {
  @Test
  void everyOneXFromTheFloorRunsAndNothingElse() {
    for (int minor = 13; minor <= 40; minor++) {
      assertNull(UcxSeries.gate(1, minor, 0), "1." + minor);
      assertNotNull(UcxSeries.of(1, minor), "1." + minor);
    }
    for (int[] v : new int[][] {{1, 12, 1}, {1, 0, 0}, {2, 13, 1}, {0, 13, 1}, {2, 0, 0}}) {
      String why = UcxSeries.gate(v[0], v[1], v[2]);
      String found = v[0] + "." + v[1] + "." + v[2];
      assertTrue(why != null && why.startsWith("UCX " + found + " found;"), why);
      assertTrue(why.contains("install a UCX of 1.13 or later"), why);
      assertNull(UcxSeries.of(v[0], v[1]));
    }
  }

  @Test
  void eachSeriesReadsTheNearestRowAtOrBelowIt() {
    assertEquals(13, UcxSeries.of(1, 13).minor());
    assertEquals(14, UcxSeries.of(1, 15).minor());
    assertEquals(16, UcxSeries.of(1, 17).minor());
    assertEquals(18, UcxSeries.of(1, 18).minor());
    assertEquals(19, UcxSeries.of(1, 21).minor());
    assertEquals(22, UcxSeries.of(1, 22).minor());
    assertEquals(23, UcxSeries.of(1, 30).minor());
  }

  @Test
  void protocolsV1ArePinnedOnlyWhereTheyAreUcxsOwnDefault() {
    assertTrue(UcxSeries.of(1, 13).protocolV1Only());
    assertTrue(UcxSeries.of(1, 15).protocolV1Only());
    assertFalse(UcxSeries.of(1, 16).protocolV1Only());
    assertFalse(UcxSeries.of(1, 18).protocolV1Only());
    assertFalse(UcxSeries.of(1, 23).protocolV1Only());
  }

  @Test
  void debiansReleasesAreTheProvenOnes() {
    assertTrue(UcxSeries.of(1, 13).proves(13));
    assertTrue(UcxSeries.of(1, 18).proves(18));
    assertTrue(UcxSeries.of(1, 23).proves(23));
    assertFalse(UcxSeries.of(1, 19).proves(19));
    assertFalse(UcxSeries.of(1, 24).proves(24));
    assertEquals(23, UcxSeries.NEWEST_PROVEN);
    for (UcxSeries s : UcxSeries.TABLE) {
      assertTrue(s.layout().writtenAlike(), "the code writes 1.13's offsets: " + s);
    }
  }

  @Test
  void aLayoutWithAnotherOffsetOrALargerParamIsNotWrittenAlike() {
    assertTrue(UcxLayout.V1_22.writtenAlike());
    assertFalse(new UcxLayout(72, 0, 4, 8, 16, 24, 32, 48, 0, 8, 0).writtenAlike());
    assertFalse(
        new UcxLayout(UcxLayout.PARAM_ROOM + 8, 0, 4, 8, 16, 24, 32, 40, 0, 8, 0).writtenAlike());
  }

  @Test
  @RequiresUcx
  void theLibraryHereIsAProvenSeriesAndTheProviderIsAvailable() {
    int[] v = UcpNative.version();
    assertNull(UcxSeries.checkLoaded());
    assertNull(new UcxProvider().unavailabilityCause());
    // every release this suite runs on (the host's and each suite's root) is a proven one
    assertTrue(UcxSeries.loaded().proves(v[1]), UcxSeries.verdict());
    assertTrue(
        UcxSeries.verdict().startsWith("1." + v[1] + " series, proven (tested on "),
        UcxSeries.verdict());
  }
}
