package dev.fiucx.conformance.remote;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.fiucx.bootstrap.BootstrapException;
import dev.fiucx.bootstrap.Frame;
import dev.fiucx.bootstrap.Refusal;
import org.junit.jupiter.api.Test;

/** The test mode's messages, byte for byte, and what a malformed one is told. */
class TestModeWireTest {
  private static final byte[] NAME = {6, 't', 'a', 'r', 'g', 'e', 't'};

  private static byte[] concat(byte[]... parts) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  @Test
  void everyMessageIsExactBytes() throws BootstrapException {
    Frame set = TestModeWire.set("target", 0x0102, new byte[] {(byte) 0xaa, (byte) 0xbb});
    assertEquals(0x100, set.type());
    assertArrayEquals(
        concat(NAME, new byte[] {0, 0, 0, 0, 0, 0, 1, 2, (byte) 0xaa, (byte) 0xbb}), set.payload());
    Frame get = TestModeWire.get("target", 8, 0x10000);
    assertEquals(0x101, get.type());
    assertArrayEquals(concat(NAME, new byte[] {0, 0, 0, 0, 0, 0, 0, 8, 0, 1, 0, 0}), get.payload());
    assertEquals(0x102, TestModeWire.close("target").type());
    assertArrayEquals(NAME, TestModeWire.close("target").payload());
    assertEquals(0x103, TestModeWire.renew("target").type());
    assertArrayEquals(NAME, TestModeWire.renew("target").payload());
    assertEquals(0x104, TestModeWire.fact("errors").type());
    assertArrayEquals(
        new byte[] {6, 'e', 'r', 'r', 'o', 'r', 's'}, TestModeWire.fact("errors").payload());

    assertEquals(0x180, TestModeWire.ok().type());
    assertArrayEquals(new byte[0], TestModeWire.ok().payload());
    Frame renewed = TestModeWire.renewed(0x7f00_0000_1000L, -2);
    assertEquals(0x182, renewed.type());
    assertArrayEquals(
        new byte[] {
          0, 0, 0x7f, 0, 0, 0, 0x10, 0, -1, -1, -1, -1, -1, -1, -1, -2,
        },
        renewed.payload());
    Frame failed = TestModeWire.failed("no");
    assertEquals(0x18f, failed.type());
    assertArrayEquals(new byte[] {0, 2, 'n', 'o'}, failed.payload());
    assertEquals("no", TestModeWire.failure(failed.payload()));
    assertEquals(1026, TestModeWire.failed("x".repeat(5000)).payload().length);

    TestModeWire.Request r = TestModeWire.parse(set);
    assertEquals("target", r.name());
    assertEquals(0x0102, r.offset());
    assertArrayEquals(new byte[] {(byte) 0xaa, (byte) 0xbb}, r.bytes());
    r = TestModeWire.parse(get);
    assertEquals(8, r.offset());
    assertEquals(0x10000, r.length());
    assertEquals(0x103, TestModeWire.parse(TestModeWire.renew("target")).type());
  }

  private static void assertMalformed(String text, Frame f) {
    BootstrapException e = assertThrows(BootstrapException.class, () -> TestModeWire.parse(f));
    assertEquals(Refusal.MALFORMED, e.refusal());
    assertEquals(text, e.getMessage());
  }

  @Test
  void malformedRequestsAreRefusedWithTheirReason() {
    assertMalformed("GET: truncated at byte 7", new Frame(0x101, concat(NAME, new byte[4])));
    assertMalformed(
        "CLOSE: 1 bytes after the last field", new Frame(0x102, concat(NAME, new byte[1])));
    assertMalformed("RENEW: truncated at byte 1", new Frame(0x103, new byte[] {9}));
    assertMalformed("SET: bad name", new Frame(0x100, new byte[] {1, '/', 0, 0, 0}));
    assertMalformed("CLOSE: truncated at byte 0", new Frame(0x102, new byte[0]));
    BootstrapException e =
        assertThrows(
            BootstrapException.class, () -> TestModeWire.parse(new Frame(0x180, new byte[0])));
    assertEquals(Refusal.BAD_TYPE, e.refusal());
    assertEquals("unknown test-mode frame type 384", e.getMessage());
  }
}
