package dev.fiucx.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.spi.ProcessIdentity;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** fiucx's address header: what encodes decodes to itself, and nothing else gets past decode. */
class DomainAddressTest {
  private static final byte[] TRANSPORT = transportBytes(173);

  private static byte[] transportBytes(int n) {
    byte[] b = new byte[n];
    new SplittableRandom(7).nextBytes(b);
    return b;
  }

  private static byte[] valid() {
    return new DomainAddress(ProcessIdentity.self(), 0x1122_3344_5566_7788L, TRANSPORT).encode();
  }

  private static void assertInvalid(byte[] bytes, String why) {
    FiException e = assertThrows(FiException.class, () -> DomainAddress.decode(bytes), why);
    assertEquals(FiErrno.EINVAL, e.errno(), e.getMessage());
  }

  @Test
  void anAddressDecodesToWhatWasEncoded() {
    byte[] bytes = valid();
    assertEquals(
        DomainAddress.HEADER_BYTES + TRANSPORT.length + DomainAddress.CHECKSUM_BYTES, bytes.length);
    DomainAddress a = DomainAddress.decode(bytes);
    assertEquals(ProcessIdentity.self(), a.process());
    assertEquals(0x1122_3344_5566_7788L, a.lockKey());
    assertArrayEquals(TRANSPORT, a.transportAddress());
  }

  @Test
  void thisProcessKnowsItselfAndSeesItselfAlive() {
    ProcessIdentity me = ProcessIdentity.self();
    assertTrue(me.known(), "/proc is readable on Linux: " + me);
    assertEquals(ProcessHandle.current().pid(), me.pid());
    assertTrue(me.observable());
    assertTrue(me.alive());
  }

  @Test
  void aProcessThatExitedIsDeadAndAReusedPidIsNotItsOwner() throws Exception {
    Process p = new ProcessBuilder("true").start();
    long pid = p.pid();
    assertEquals(0, p.waitFor());
    ProcessIdentity me = ProcessIdentity.self();
    ProcessIdentity gone =
        new ProcessIdentity(
            (int) pid, me.startTicks(), me.bootIdHigh(), me.bootIdLow(), me.pidNamespace());
    assertEquals(false, gone.alive(), "pid " + pid + " exited and was reaped");
    ProcessIdentity otherStart =
        new ProcessIdentity(
            me.pid(), me.startTicks() + 1, me.bootIdHigh(), me.bootIdLow(), me.pidNamespace());
    assertEquals(false, otherStart.alive(), "same pid, other start time: another process");
  }

  @Test
  void aProcessInAnotherNamespaceOrBootIsNeverDeclaredDead() {
    ProcessIdentity me = ProcessIdentity.self();
    ProcessIdentity otherNamespace =
        new ProcessIdentity(
            Integer.MAX_VALUE, 1, me.bootIdHigh(), me.bootIdLow(), me.pidNamespace() + 1);
    ProcessIdentity otherBoot =
        new ProcessIdentity(
            Integer.MAX_VALUE, 1, me.bootIdHigh() ^ 1, me.bootIdLow(), me.pidNamespace());
    assertEquals(false, otherNamespace.observable());
    assertTrue(otherNamespace.alive(), "cannot be looked up here, so never dead");
    assertEquals(false, otherBoot.observable());
    assertTrue(otherBoot.alive());
    assertTrue(ProcessIdentity.UNKNOWN.alive());
  }

  @Test
  void truncatedAndExtendedAddressesAreRefused() {
    byte[] bytes = valid();
    for (int n = 0; n < bytes.length; n++) {
      assertInvalid(Arrays.copyOf(bytes, n), "truncated to " + n);
    }
    for (int extra = 1; extra <= 16; extra++) {
      assertInvalid(Arrays.copyOf(bytes, bytes.length + extra), "extended by " + extra);
    }
    assertInvalid(null, "null");
  }

  @Test
  void everySingleBitFlipIsRefused() {
    byte[] bytes = valid();
    for (int bit = 0; bit < bytes.length * 8; bit++) {
      byte[] flipped = bytes.clone();
      flipped[bit / 8] ^= (byte) (1 << (bit % 8));
      assertInvalid(flipped, "bit " + bit);
    }
  }

  @Test
  void anotherVersionIsRefusedEvenWithARightChecksum() {
    for (int version : new int[] {0, 2, 0xFFFF}) {
      byte[] bytes = valid();
      ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putShort(4, (short) version);
      reseal(bytes);
      FiException e = assertThrows(FiException.class, () -> DomainAddress.decode(bytes));
      assertEquals(FiErrno.EINVAL, e.errno());
      assertTrue(e.getMessage().contains("format version " + version), e.getMessage());
    }
  }

  @Test
  void inconsistentLengthsAreRefusedEvenWithARightChecksum() {
    byte[] bytes = valid();
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(56, TRANSPORT.length - 1);
    reseal(bytes);
    assertInvalid(bytes, "transport length disagrees with the total");
    byte[] reserved = valid();
    reserved[60] = 1;
    reseal(reserved);
    assertInvalid(reserved, "reserved bits set");
    byte[] header = valid();
    header[6] = 65;
    reseal(header);
    assertInvalid(header, "another header length");
  }

  @Test
  void thousandsOfRandomInputsAreRefused() {
    for (int seed = 0; seed < 4000; seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      byte[] bytes = new byte[random.nextInt(0, 600)];
      random.nextBytes(bytes);
      if (seed % 2 == 1 && bytes.length >= 16) { // past the magic and into the deeper checks
        byte[] v = valid();
        System.arraycopy(v, 0, bytes, 0, Math.min(v.length, random.nextInt(4, 16)));
      }
      assertInvalid(bytes, "seed " + seed);
    }
  }

  /** Writes the checksum that fits the bytes before it. */
  private static void reseal(byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length - 4);
    ByteBuffer.wrap(bytes)
        .order(ByteOrder.LITTLE_ENDIAN)
        .putInt(bytes.length - 4, (int) crc.getValue());
  }
}
