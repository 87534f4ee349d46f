package dev.fiucx.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.FiFlags;
import dev.fiucx.emulation.LockWords;
import dev.fiucx.spi.Engine;
import dev.fiucx.spi.LockWordRegion;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a provider reaches of the engine through the SPI is the engine itself. */
class EngineThroughSpiTest {
  @Test
  void theSpiOpensTheEngineDomainOverTheProvidersTransport() {
    LoopbackTransport[] opened = new LoopbackTransport[1];
    try (Domain domain =
        Engine.openDomain(
            "loopback",
            new DomainAttr(null, DomainAttr.Progress.MANUAL, false, Map.of()),
            completions -> opened[0] = new LoopbackTransport(completions))) {
      EngineDomain engine = assertInstanceOf(EngineDomain.class, domain);
      assertEquals("loopback", engine.providerName());
      assertNotNull(opened[0], "the transport was opened through the function given");
      assertEquals(LockWords.REGION_BYTES, engine.lockRegion().byteSize());
    }
  }

  @Test
  void theLockWordRegionIsRecognisedByTheSpisMarkAlone() {
    assertEquals(LockWordRegion.ACCESS_MARK, LockWords.REGION_MARK);
    assertTrue(LockWordRegion.isMarked(LockWords.REGION_ACCESS));
    assertFalse(LockWordRegion.isMarked(FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE));
  }
}
