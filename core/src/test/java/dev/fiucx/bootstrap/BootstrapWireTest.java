package dev.fiucx.bootstrap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.FiFlags;
import dev.fiucx.PeerRegion;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The frame layer and the bootstrap's messages, byte for byte, without sockets. */
class BootstrapWireTest {
  static final long RW = FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE;

  static Welcome sample() {
    return new Welcome(
        "ucx",
        "tcp",
        new byte[] {1, 2, 3, 4, 5},
        List.of(
            new PeerRegion("counter", 0, 0x1234_5678_9abc_def0L, 4096, RW),
            new PeerRegion("table.v2", 0x7f00_0000_1000L, -1L, 1 << 20, FiFlags.REMOTE_READ)));
  }

  static byte[] frame(int magic, int version, int type, long length, byte[] payload) {
    return ByteBuffer.allocate(Frames.HEADER_BYTES + payload.length)
        .putInt(magic)
        .putShort((short) version)
        .putShort((short) type)
        .putInt((int) length)
        .put(payload)
        .array();
  }

  static Frame read(byte[] bytes) throws IOException {
    return Frames.read(
        new DataInputStream(new ByteArrayInputStream(bytes)),
        BootstrapServer.MAX_PAYLOAD,
        Frames.FIRST_APPLICATION_TYPE - 1);
  }

  static BootstrapException refused(byte[] bytes) {
    return assertThrows(BootstrapException.class, () -> read(bytes));
  }

  @Test
  void aFrameRoundTripsByteForByte() throws IOException {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    Frames.write(new DataOutputStream(buf), Frames.HELLO, new byte[] {9, 8, 7});
    assertArrayEquals(
        new byte[] {0x46, 0x49, 0x55, 0x42, 0, 2, 0, 1, 0, 0, 0, 3, 9, 8, 7}, buf.toByteArray());
    Frame f = read(buf.toByteArray());
    assertEquals(Frames.HELLO, f.type());
    assertArrayEquals(new byte[] {9, 8, 7}, f.payload());
  }

  @Test
  void anEmptyStreamIsACleanEnd() throws IOException {
    assertNull(read(new byte[0]));
  }

  @Test
  void welcomeAndHelloRoundTrip() throws IOException {
    Welcome w = sample();
    Welcome back = Welcome.decode(w.encode());
    assertEquals("ucx", back.provider());
    assertEquals("tcp", back.transport());
    assertArrayEquals(w.address(), back.address());
    assertEquals(w.regions(), back.regions());
    Welcome noTransport = new Welcome("ucx", null, new byte[] {1}, w.regions());
    assertNull(Welcome.decode(noTransport.encode()).transport());
    assertEquals("fiucx bench pid 7", Hello.decode(Hello.encode("fiucx bench pid 7")));
    assertEquals("", Hello.decode(Hello.encode("")));
    // cut at 256 bytes, never inside a character
    String euros = "\u20ac".repeat(100); // 3 bytes each
    assertEquals("\u20ac".repeat(85), Hello.decode(Hello.encode(euros)));
  }

  @Test
  void errorFramesCarryTheRefusalAndText() {
    byte[] p = Frames.errorPayload(Refusal.STALLED, "no HELLO within 5 ms");
    BootstrapException e = Frames.peerError(new Frame(Frames.ERROR, p));
    assertEquals(Refusal.STALLED, e.refusal());
    assertEquals("no HELLO within 5 ms", e.getMessage());
    assertEquals(true, e.fromPeer());
    assertEquals(
        Refusal.OTHER,
        Frames.peerError(new Frame(Frames.ERROR, new byte[] {0, 99, 0, 0})).refusal());
    assertEquals(
        "the peer sent a malformed ERROR frame",
        Frames.peerError(new Frame(Frames.ERROR, new byte[] {0})).getMessage());
    assertEquals(1024, Frames.errorPayload(Refusal.OTHER, "x".repeat(5000)).length - 4);
  }

  @Test
  void everyMalformedHeaderIsRefusedWithItsReason() {
    BootstrapException e = refused(frame(0x47455420, 2, 1, 0, new byte[0])); // "GET "
    assertEquals(Refusal.BAD_MAGIC, e.refusal());
    assertEquals("not a fiucx bootstrap peer (magic 0x47455420)", e.getMessage());

    e = refused(frame(Frames.MAGIC, 1, 1, 0, new byte[0]));
    assertEquals(Refusal.BAD_VERSION, e.refusal());
    assertEquals("bootstrap version 1 from the peer, this side speaks 2", e.getMessage());

    e = refused(frame(Frames.MAGIC, 2, 0, 0, new byte[0]));
    assertEquals(Refusal.BAD_TYPE, e.refusal());
    assertEquals("unknown frame type 0", e.getMessage());
    e = refused(frame(Frames.MAGIC, 2, 0x100, 0, new byte[0]));
    assertEquals("unknown frame type 256", e.getMessage());

    e = refused(Arrays.copyOf(frame(Frames.MAGIC, 2, 1, 0, new byte[0]), 7));
    assertEquals(Refusal.TRUNCATED, e.refusal());
    assertEquals("the stream ended inside a frame", e.getMessage());
    e = refused(frame(Frames.MAGIC, 2, 1, 10, new byte[3]));
    assertEquals(Refusal.TRUNCATED, e.refusal());
  }

  @Test
  void hostileLengthsAreRefusedBeforeAnythingIsAllocated() {
    for (long length : new long[] {0xffff_ffffL, 0x8000_0000L, (64 << 10) + 1}) {
      BootstrapException e = refused(frame(Frames.MAGIC, 2, 2, length, new byte[0]));
      assertEquals(Refusal.TOO_LONG, e.refusal());
      assertEquals("frame type 2 of " + length + " bytes (at most 65536)", e.getMessage());
    }
  }

  static String malformedWelcome(byte[] payload) {
    BootstrapException e = assertThrows(BootstrapException.class, () -> Welcome.decode(payload));
    assertEquals(Refusal.MALFORMED, e.refusal());
    return e.getMessage();
  }

  @Test
  void everyMalformedWelcomeIsRefusedWithItsField() {
    byte[] good = sample().encode();
    // the last field, a u64, starts 8 bytes before the end
    assertEquals(
        "WELCOME: truncated at byte " + (good.length - 8),
        malformedWelcome(Arrays.copyOf(good, good.length - 3)));
    assertEquals(
        "WELCOME: 2 bytes after the last field",
        malformedWelcome(Arrays.copyOf(good, good.length + 2)));
    assertEquals(
        "WELCOME: provider is not UTF-8", malformedWelcome(new byte[] {2, (byte) 0xc3, 0x28}));
    assertEquals("WELCOME: provider of 65 bytes (at most 64)", malformedWelcome(new byte[] {65}));
    ByteBuffer b = ByteBuffer.allocate(16).put((byte) 1).put((byte) 'u').putShort((short) 0);
    assertEquals(
        "WELCOME: domain address of 4097 bytes (at most 4096)",
        malformedWelcome(Arrays.copyOf(b.putShort((short) 4097).array(), 6)));
    assertEquals(
        "WELCOME: an empty provider or domain address",
        malformedWelcome(new byte[] {1, 'u', 0, 0, 0, 0, 0, 0}));
    assertEquals(
        "WELCOME: 257 regions (at most 256)",
        malformedWelcome(new byte[] {1, 'u', 0, 0, 0, 1, 9, 1, 1}));
    assertEquals(
        "WELCOME: region 0 has a bad or repeated name 'a b'",
        malformedWelcome(regions(List.of("a b"), 8)));
    assertEquals(
        "WELCOME: region 1 has a bad or repeated name 'x'",
        malformedWelcome(regions(List.of("x", "x"), 8)));
    assertEquals("WELCOME: region 'x' has length 0", malformedWelcome(regions(List.of("x"), 0)));
  }

  @Test
  void randomAndBitFlippedPayloadsDecodeOrAreRefusedNeverAnythingElse() {
    java.util.Random random = new java.util.Random(13);
    byte[] good = sample().encode();
    int refused = 0;
    for (int i = 0; i < 200_000; i++) {
      byte[] p;
      if (i % 2 == 0) {
        p = good.clone();
        for (int flips = 1 + random.nextInt(4); flips > 0; flips--) {
          p[random.nextInt(p.length)] ^= (byte) (1 << random.nextInt(8));
        }
        if (random.nextInt(8) == 0) {
          p = Arrays.copyOf(p, random.nextInt(p.length + 8));
        }
      } else {
        p = new byte[random.nextInt(128)];
        random.nextBytes(p);
      }
      try {
        Welcome w = Welcome.decode(p);
        // what decodes re-encodes to the same bytes: no field was read loosely
        assertArrayEquals(p, w.encode());
      } catch (BootstrapException e) {
        assertEquals(Refusal.MALFORMED, e.refusal());
        refused++;
      }
      try {
        Hello.decode(p);
      } catch (BootstrapException e) {
        assertEquals(Refusal.MALFORMED, e.refusal());
      }
    }
    assertTrue(refused > 100_000, refused + " refused");
  }

  /** A WELCOME whose regions carry these names and this length, built by hand. */
  static byte[] regions(List<String> names, long length) {
    ByteBuffer b = ByteBuffer.allocate(1024);
    b.put((byte) 3).put("ucx".getBytes()).putShort((short) 0).putShort((short) 1).put((byte) 7);
    b.putShort((short) names.size());
    for (String n : names) {
      b.put((byte) n.length()).put(n.getBytes()).putLong(0).putLong(1).putLong(length).putLong(RW);
    }
    return Arrays.copyOf(b.array(), b.position());
  }
}
