package dev.fiucx.ucx;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.fiucx.spi.ExposedRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * A peer's region mapped into this process (the direct path) is reached through a segment whose
 * scope ends when the peer closes, before its rkeys unmap it: a late use throws instead of touching
 * unmapped memory.
 */
@RequiresUcx
class UcxMappingLifetimeTest {
  @Test
  void aMappingThrowsOnceItsPeerIsClosed() {
    try (TransportPair pair = TransportPair.of("shm");
        Arena arena = Arena.ofConfined()) {
      ExposedRegion region = Memory.ALLOCATED.expose(pair.b, arena, 64);
      assertEquals(0, pair.resolve(region.key()));
      UcxRemoteRegion remote = (UcxRemoteRegion) pair.aToB.cached(region.key());
      MemorySegment mapping = remote.mapping();
      assertNotNull(mapping, "UCX maps an allocated shm region");
      mapping.set(JAVA_LONG, 8, 99);
      assertEquals(99, region.segment().get(JAVA_LONG, 8), "the same memory");

      pair.withBProgressing(
          () -> {
            pair.aToB.close();
            return null;
          });
      assertFalse(mapping.scope().isAlive());
      assertThrows(IllegalStateException.class, () -> mapping.get(JAVA_LONG, 8));
      assertEquals(99, region.segment().get(JAVA_LONG, 8), "the target's memory is untouched");
    }
  }
}
