package dev.fiucx.ucx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import org.junit.jupiter.api.Test;

/** The version check that guards the struct layouts: a pure function, then the real libucp. */
class UcxLayoutTest {
  @Test
  void everyReleaseOfTheKnownSeriesPassesAndNothingElse() {
    assertNull(UcxLayout.check(1, 13, 0));
    assertNull(UcxLayout.check(1, 13, 1));
    assertNull(UcxLayout.check(1, 13, 7));
    for (int[] v : new int[][] {{1, 12, 1}, {1, 14, 0}, {1, 18, 0}, {2, 13, 1}, {0, 13, 1}}) {
      String why = UcxLayout.check(v[0], v[1], v[2]);
      String found = v[0] + "." + v[1] + "." + v[2];
      assertTrue(why != null && why.startsWith("UCX " + found + " found;"), why);
      assertTrue(why.contains("UCX 1.13.x only"), why);
    }
  }

  @Test
  void anUnknownVersionRefusesToOpenWithEnodev() {
    FiException e =
        assertThrows(FiException.class, () -> UcxLayout.requireKnown(new int[] {1, 14, 0}));
    assertEquals(FiErrno.ENODEV, e.errno());
    assertTrue(e.getMessage().contains("UCX 1.14.0 found"), e.getMessage());
    UcxLayout.requireKnown(new int[] {1, 13, 1});
  }

  @Test
  @RequiresUcx(release = "1.13.1")
  void theLibraryHereIsDebians1131AndTheProviderIsAvailable() {
    assertArrayEquals(new int[] {1, 13, 1}, UcpNative.version());
    assertNull(UcxLayout.checkLoaded());
    assertNull(new UcxProvider().unavailabilityCause());
    assertEquals("known (1.13.1; written for UCX 1.13.x)", UcxLayout.verdict());
  }
}
