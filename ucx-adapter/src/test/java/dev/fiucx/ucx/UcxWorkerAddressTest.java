package dev.fiucx.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What UCX can read of a worker address is checked before UCX reads it: real addresses pass, and
 * every cut, a version UCX 1.13 asserts on, an md or device index beyond UCX's arrays and a
 * bandwidth of NaN are refused, at {@code connect} with FI_EINVAL, without UCX being called.
 */
@RequiresUcx
class UcxWorkerAddressTest {
  private static final UcxWorkerAddress.Format FORMAT = UcxWorkerAddress.Format.V1_13;

  @ParameterizedTest
  @ValueSource(strings = {"shm", "tcp", "sm,self,tcp"})
  void realAddressesPassAndEveryCutIsRefused(String transports) {
    try (UcxTransport t =
        new UcxTransport((token, status) -> {}, UcxOptions.defaults().withTransports(transports))) {
      byte[] real = t.address();
      assertNull(UcxWorkerAddress.problem(real, FORMAT));
      UcxAddress both = UcxAddress.read(real);
      assertEquals(!transports.equals("tcp"), both.control() != null, "a control worker");
      for (int n = 0; n < real.length; n++) {
        assertNotNull(UcxWorkerAddress.problem(Arrays.copyOf(real, n), FORMAT), "cut to " + n);
      }
      assertNotNull(
          UcxWorkerAddress.problem(Arrays.copyOf(real, real.length + 1), FORMAT), "lengthened");
      byte[] data = both.data();
      for (int n = 0; n < data.length; n++) {
        assertNotNull(
            UcxWorkerAddress.workerProblem(Arrays.copyOf(data, n), FORMAT), "cut to " + n);
      }
      // a version UCX 1.13 asserts on, in either worker address: refused before UCX sees it
      byte[] version8 = data.clone();
      version8[0] = (byte) ((version8[0] & 0xf0) | 8);
      assertTrue(UcxWorkerAddress.workerProblem(version8, FORMAT).startsWith("version 8"));
      byte[] badData = new UcxAddress(version8, both.control()).encode();
      assertTrue(UcxWorkerAddress.problem(badData, FORMAT).startsWith("data worker: version 8"));
      FiException refused = assertThrows(FiException.class, () -> t.connect(badData));
      assertEquals(FiErrno.EINVAL, refused.errno());
      if (both.control() != null) {
        byte[] control8 = both.control().clone();
        control8[0] = (byte) ((control8[0] & 0xf0) | 8);
        byte[] badControl = new UcxAddress(data, control8).encode();
        assertTrue(
            UcxWorkerAddress.problem(badControl, FORMAT).startsWith("control worker: version 8"));
        assertEquals(
            FiErrno.EINVAL, assertThrows(FiException.class, () -> t.connect(badControl)).errno());
        for (int n = 1; n < both.control().length; n++) {
          byte[] cut = new UcxAddress(data, Arrays.copyOf(both.control(), n)).encode();
          assertNotNull(UcxWorkerAddress.problem(cut, FORMAT), "control cut to " + n);
        }
      }
      // a raw worker address (no framing) is refused too
      assertTrue(UcxWorkerAddress.problem(data, FORMAT).startsWith("framing: "));
      // an address with no transport at all is UCX's to refuse ("unreachable"), not a crash
      byte[] none = Arrays.copyOf(data, 1 + 8 + 1);
      none[9] = (byte) 0xff;
      assertNull(UcxWorkerAddress.workerProblem(none, FORMAT));
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {64, 100, 127})
  void anMdIndexBeyondUcxsArraysIsRefused(int md) {
    // v1 header (no flags), UUID, then a device whose md byte holds only 5 bits in v1; so v2:
    // header 0x01, flags 0x02 (UUID), UUID, md 0x7f (extended) then the index
    byte[] a = new byte[2 + 8 + 2];
    a[0] = 1;
    a[1] = 2;
    a[10] = 0x7f;
    a[11] = (byte) md;
    assertEquals("md index " + md, UcxWorkerAddress.workerProblem(a, FORMAT));
  }

  /**
   * Overhead, bandwidth and latency go into UCX's lane scores, which it asserts are not negative
   * (select.c:294 aborted the JVM on a forged address before): the floats of a v1 interface.
   */
  @ParameterizedTest
  @CsvSource({
    "0, -1, overhead -1.0",
    "0, NaN, overhead NaN",
    "4, NaN, bandwidth NaN",
    "4, Infinity, bandwidth Infinity",
    "4, 0, bandwidth 0.0",
    "8, -1e-9, latency -1.0E-9",
    "8, Infinity, latency Infinity"
  })
  void attributesUcxCannotScoreAreRefused(int offset, float value, String problem) {
    // v1: header 0, UUID, md 0, device length 0x80 (last, 0 bytes), one interface: checksum,
    // attributes (overhead, bandwidth, latency, flags), then its length byte 0x80 (last, 0 bytes)
    int attributes = 1 + 8 + 1 + 1 + 2;
    java.nio.ByteBuffer b =
        java.nio.ByteBuffer.allocate(attributes + 16 + 1).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    b.put((byte) 0).putLong(7).put((byte) 0).put((byte) 0x80).putShort((short) 0x1234);
    b.putFloat(1e-7f).putFloat(1e9f).putFloat(1e-7f).putInt(0).put((byte) 0x80);
    assertNull(UcxWorkerAddress.workerProblem(b.array(), FORMAT), "a readable interface");
    b.putFloat(attributes + offset, value);
    assertEquals(problem, UcxWorkerAddress.workerProblem(b.array(), FORMAT));
  }

  @Test
  void aNegativeBandwidthIsAnOldPeersAndReadable() {
    int attributes = 1 + 8 + 1 + 1 + 2;
    java.nio.ByteBuffer b =
        java.nio.ByteBuffer.allocate(attributes + 16 + 1).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    b.put((byte) 0).putLong(7).put((byte) 0).put((byte) 0x80).putShort((short) 0x1234);
    b.putFloat(1e-7f).putFloat(-1e9f).putFloat(1e-7f).putInt(0).put((byte) 0x80);
    assertNull(UcxWorkerAddress.workerProblem(b.array(), FORMAT));
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 2})
  void aV2EightBitFloatOfNaNIsRefused(int field) {
    // v2: header 1, flags 2 (UUID), UUID, md 0, device length 0x80, checksum, 8 attribute bytes,
    // length byte 0x80
    byte[] a = new byte[2 + 8 + 1 + 1 + 2 + 8 + 1];
    a[0] = 1;
    a[1] = 2;
    a[11] = (byte) 0x80;
    int attributes = 14;
    a[attributes] = 0x13;
    a[attributes + 1] = 0x27;
    a[attributes + 2] = 0x11;
    a[attributes + 8] = (byte) 0x80;
    assertNull(UcxWorkerAddress.workerProblem(a, FORMAT), "a readable interface");
    a[attributes + field] = 0x1f;
    assertEquals("an 8-bit float of NaN or infinity", UcxWorkerAddress.workerProblem(a, FORMAT));
  }

  @ParameterizedTest
  @ValueSource(ints = {129, 200})
  void moreDevicesThanUcxCountsAreRefused(int devices) {
    // v1: header, UUID, then empty devices (md byte 0x80: no interfaces; length byte 0)
    byte[] a = new byte[1 + 8 + 2 * devices];
    for (int i = 0; i < devices; i++) {
      a[9 + 2 * i] = (byte) 0x80;
      a[10 + 2 * i] = (byte) (i == devices - 1 ? 0x80 : 0);
    }
    assertEquals("more than 128 devices", UcxWorkerAddress.workerProblem(a, FORMAT));
  }
}
