package dev.fiucx.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.ucx.UcxWorkerAddress.Format;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What UCX can read of a worker address is checked before UCX reads it: real addresses pass (the
 * live worker's here, and those captured from the workers of every release fiucx is proven on, with
 * the format of every series, since a peer may run another), and every cut, a version UCX asserts
 * on, an md or device index beyond UCX's arrays, more endpoint addresses than UCX has lanes and a
 * bandwidth of NaN are refused, at {@code connect} with FI_EINVAL, without UCX being called.
 */
class UcxWorkerAddressTest {
  /** Every format a series fiucx runs on reads addresses with. */
  private static final List<Format> FORMATS =
      UcxSeries.TABLE.stream().map(UcxSeries::addressFormat).distinct().toList();

  private static final HexFormat HEX = HexFormat.of();

  @ParameterizedTest
  @ValueSource(strings = {"shm", "tcp", "sm,self,tcp"})
  @RequiresUcx
  void realAddressesPassAndEveryCutIsRefused(String transports) {
    Format format = UcxSeries.loaded().addressFormat();
    try (UcxTransport t =
        new UcxTransport((token, status) -> {}, UcxOptions.defaults().withTransports(transports))) {
      byte[] real = t.address();
      assertNull(UcxWorkerAddress.problem(real, format));
      UcxAddress both = UcxAddress.read(real);
      // a control worker wherever data endpoints lack peer-failure handling: shared memory, and
      // tcp on protocols v2
      boolean control =
          !transports.equals("tcp") || !UcxSeries.loaded().softwareAtomicsWithFailureHandling();
      assertEquals(control, both.control() != null, "a control worker");
      for (int n = 0; n < real.length; n++) {
        assertNotNull(UcxWorkerAddress.problem(Arrays.copyOf(real, n), format), "cut to " + n);
      }
      assertNotNull(
          UcxWorkerAddress.problem(Arrays.copyOf(real, real.length + 1), format), "lengthened");
      byte[] data = both.data();
      for (int n = 0; n < data.length; n++) {
        assertNotNull(
            UcxWorkerAddress.workerProblem(Arrays.copyOf(data, n), format), "cut to " + n);
      }
      // a version UCX asserts on, in either worker address: refused before UCX sees it
      byte[] version8 = data.clone();
      version8[0] = (byte) ((version8[0] & 0xf0) | 8);
      assertTrue(UcxWorkerAddress.workerProblem(version8, format).startsWith("version 8"));
      byte[] badData = new UcxAddress(version8, both.control()).encode();
      assertTrue(UcxWorkerAddress.problem(badData, format).startsWith("data worker: version 8"));
      FiException refused = assertThrows(FiException.class, () -> t.connect(badData));
      assertEquals(FiErrno.EINVAL, refused.errno());
      if (both.control() != null) {
        byte[] control8 = both.control().clone();
        control8[0] = (byte) ((control8[0] & 0xf0) | 8);
        byte[] badControl = new UcxAddress(data, control8).encode();
        assertTrue(
            UcxWorkerAddress.problem(badControl, format).startsWith("control worker: version 8"));
        assertEquals(
            FiErrno.EINVAL, assertThrows(FiException.class, () -> t.connect(badControl)).errno());
        for (int n = 1; n < both.control().length; n++) {
          byte[] cut = new UcxAddress(data, Arrays.copyOf(both.control(), n)).encode();
          assertNotNull(UcxWorkerAddress.problem(cut, format), "control cut to " + n);
        }
      }
      // a raw worker address (no framing) is refused too
      assertTrue(UcxWorkerAddress.problem(data, format).startsWith("framing: "));
      // an address with no transport at all is UCX's to refuse ("unreachable"), not a crash
      byte[] none = Arrays.copyOf(data, 1 + 8 + 1);
      none[9] = (byte) 0xff;
      assertNull(UcxWorkerAddress.workerProblem(none, format));
    }
  }

  /** The loaded UCX's series row gives the format its own workers' addresses pass with. */
  @Test
  @RequiresUcx
  void theLoadedUcxsAddressesPassWithItsSeriesFormatAndEveryOther() {
    int[] v = UcpNative.version();
    assertSame(UcxSeries.of(v[0], v[1]).addressFormat(), UcxSeries.loaded().addressFormat());
    try (UcxTransport t =
        new UcxTransport(
            (token, status) -> {}, UcxOptions.defaults().withTransports("sm,self,tcp"))) {
      assertNull(UcxWorkerAddress.problem(t.address(), UcxSeries.loaded().addressFormat()));
      // a peer on another series walks it with its own format
      for (Format f : FORMATS) {
        assertNull(UcxWorkerAddress.problem(t.address(), f), f.series());
      }
    }
  }

  @Test
  void eachSeriesReadsWithTheFormatOfItsUcx() {
    assertSame(Format.V1_13, UcxSeries.of(1, 13).addressFormat());
    assertSame(Format.V1_14, UcxSeries.of(1, 14).addressFormat());
    assertSame(Format.V1_14, UcxSeries.of(1, 17).addressFormat());
    assertSame(Format.V1_18, UcxSeries.of(1, 18).addressFormat());
    assertSame(Format.V1_19, UcxSeries.of(1, 19).addressFormat());
    assertSame(Format.V1_19, UcxSeries.of(1, 21).addressFormat());
    assertSame(Format.V1_19, UcxSeries.of(1, 23).addressFormat());
  }

  /**
   * Addresses the workers of each proven release wrote, v1 (UCX's default) and v2, with and without
   * the worker's name: each passes with its own series' format and every other one (a peer may run
   * another series), and UCX would read past the end of every cut of it, so each is refused.
   */
  @ParameterizedTest
  @ValueSource(strings = {"1.13.1", "1.18.1", "1.23.0~rc1"})
  void capturedAddressesPassWithEverySeriesAndTheirCutsAreRefused(String release)
      throws IOException {
    Format own = seriesOf(release).addressFormat();
    List<Captured> addresses = captured(release);
    assertEquals(20, addresses.size(), "v1, v2, each with and without names, 5 workers");
    for (Captured c : addresses) {
      for (Format f : FORMATS) {
        assertNull(UcxWorkerAddress.workerProblem(c.bytes, f), c + " with " + f.series());
      }
      for (int n = 0; n < c.bytes.length; n++) {
        byte[] cut = Arrays.copyOf(c.bytes, n);
        assertNotNull(UcxWorkerAddress.workerProblem(cut, own), c + " cut to " + n);
      }
      byte[] version8 = c.bytes.clone();
      version8[0] = (byte) ((version8[0] & 0xf0) | 8);
      assertEquals(
          "version 8 (UCX reads 0 and 1)", UcxWorkerAddress.workerProblem(version8, own), c.name());
    }
  }

  /** fiucx's framing of two captured worker addresses: it passes, cut in either it is refused. */
  @ParameterizedTest
  @ValueSource(strings = {"1.13.1", "1.18.1", "1.23.0~rc1"})
  void capturedAddressesPassInFiucxsFramingAndItsCutsAreRefused(String release) throws IOException {
    Format own = seriesOf(release).addressFormat();
    for (String how : List.of("v1", "v2")) {
      byte[] data = find(release, how, "sm,self,tcp", "data").bytes;
      byte[] control = find(release, how, "sm,self,tcp", "control").bytes;
      byte[] framed = new UcxAddress(data, control).encode();
      assertNull(UcxWorkerAddress.problem(framed, own), how);
      for (int n = 0; n < framed.length; n++) {
        assertNotNull(UcxWorkerAddress.problem(Arrays.copyOf(framed, n), own), how + " " + n);
      }
      for (int n = 1; n < control.length; n++) {
        byte[] cut = new UcxAddress(data, Arrays.copyOf(control, n)).encode();
        assertTrue(UcxWorkerAddress.problem(cut, own).startsWith("control worker: "), how + n);
      }
    }
  }

  /**
   * Up to 1.18 a v1 md byte carries the md's alloc and reg flags above a 5-bit index; 1.19 reads 7
   * bits as the index, and removes those flags only from an address of 1.18 or older: one that
   * names no release (1.15 and older) or ends in a release device of 16, 17 or 18. 1.18.1's shm
   * address has md bytes of 0x41 and 0x42 (mds 1 and 2, alloc) and ends in release 2 (18): read by
   * 1.19 on as mds 1 and 2. Naming release 5 (1.21) instead, the same bytes are mds 65 and 66 to
   * 1.19 on, beyond UCX's 64, while up to 1.18 they are still 1 and 2.
   */
  @Test
  void onlyAnAddressOf118OrOlderHasItsMdFlagsReadAsFlags() throws IOException {
    byte[] a118 = find("1.18.1", "v1", "shm", "data").bytes;
    assertEquals(0x41, a118[38], "the second device's md byte");
    assertEquals(0x42, a118[75], "the third device's md byte");
    assertEquals(0x82, a118[145] & 0xff, "the last device: empty, release 2");
    assertEquals(0x80, a118[146] & 0xff, "the last device, 0 bytes long");
    assertEquals(147, a118.length);
    byte[] as121 = a118.clone();
    as121[145] = (byte) 0x85;
    assertEquals(
        "md index 66 from release 5 (mod 16)", UcxWorkerAddress.workerProblem(as121, Format.V1_19));
    for (Format before : List.of(Format.V1_13, Format.V1_14, Format.V1_18)) {
      assertNull(UcxWorkerAddress.workerProblem(as121, before), before.series());
    }
    // 1.13.1's addresses name no release (their last device is not empty): 1.19 on reads them as
    // 1.18's
    byte[] a113 = find("1.13.1", "v1", "shm", "data").bytes;
    assertEquals(0x42, a113[75], "the third device's md byte");
    assertEquals(0x23, a113[112], "the last device's md byte, not empty");
    assertNull(UcxWorkerAddress.workerProblem(a113, Format.V1_19));
    // 1.23's md bytes carry no flags (its first device's is 0, at 9): the bit of 64 is an index
    byte[] a123 = find("1.23.0~rc1", "v1", "shm", "data").bytes;
    assertEquals(0, a123[9]);
    assertEquals(0x87, a123[145] & 0xff, "the last device: empty, release 7");
    a123[9] = 0x40;
    assertEquals(
        "md index 64 from release 7 (mod 16)", UcxWorkerAddress.workerProblem(a123, Format.V1_19));
    assertNull(UcxWorkerAddress.workerProblem(a123, Format.V1_18), "1.18 reads 5 bits: md 0");
  }

  /**
   * Whatever one byte of a real address is changed to, the walk answers (null or a problem) and
   * never reads outside the address itself.
   */
  @ParameterizedTest
  @ValueSource(strings = {"1.13.1", "1.18.1", "1.23.0~rc1"})
  void everyOneByteChangeOfARealAddressIsWalkedWithinIt(String release) throws IOException {
    for (Captured c : captured(release)) {
      for (int at = 0; at < c.bytes.length; at++) {
        int b = c.bytes[at] & 0xff;
        for (int to : new int[] {0, 0xff, 0x7f, b ^ 0x80, b ^ 0x40, b ^ 0x20, b + 1}) {
          byte[] changed = c.bytes.clone();
          changed[at] = (byte) to;
          for (Format f : FORMATS) {
            UcxWorkerAddress.workerProblem(changed, f); // throws nothing but Malformed, caught
          }
        }
      }
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {64, 100, 127})
  void anMdIndexBeyondUcxsArraysIsRefused(int md) {
    // v1 header (no flags), UUID, then a device whose md byte holds only 5 or 7 bits in v1; so v2:
    // header 0x01, flags 0x02 (UUID), UUID, md 0x7f (extended) then the index
    byte[] a = new byte[2 + 8 + 2];
    a[0] = 1;
    a[1] = 2;
    a[10] = 0x7f;
    a[11] = (byte) md;
    for (Format f : FORMATS) {
      assertEquals("md index " + md, UcxWorkerAddress.workerProblem(a, f), f.series());
    }
  }

  /**
   * UCX keeps an interface's endpoint addresses in an array of {@code UCP_MAX_LANES}: 6 in 1.13, 16
   * from 1.14, 64 from 1.18.
   */
  @ParameterizedTest
  @CsvSource({"6, 6, 7", "16, 16, 17", "64, 64, 65"})
  void noMoreEndpointAddressesThanUcxHasLanes(int lanes, int fits, int beyond) {
    for (Format f : FORMATS) {
      if (f.maxLanes() != lanes) {
        continue;
      }
      assertNull(UcxWorkerAddress.workerProblem(withEndpoints(fits), f), f.series());
      assertEquals(
          "more than " + lanes + " endpoint addresses",
          UcxWorkerAddress.workerProblem(withEndpoints(beyond), f),
          f.series());
    }
    assertTrue(FORMATS.stream().anyMatch(f -> f.maxLanes() == lanes), "a series of " + lanes);
  }

  /**
   * A v1 address of one interface with {@code n} endpoint addresses of 2 bytes, each with its lane
   * (the last one flagged), after the interface's length byte (0 bytes, last, has endpoints).
   */
  private static byte[] withEndpoints(int n) {
    ByteBuffer b = ByteBuffer.allocate(1 + 8 + 2 + 2 + 16 + 1 + 4 * n);
    b.order(ByteOrder.LITTLE_ENDIAN);
    b.put((byte) 0).putLong(7).put((byte) 0).put((byte) 0x80).putShort((short) 0x1234);
    b.putFloat(1e-7f).putFloat(1e9f).putFloat(1e-7f).putInt(0).put((byte) 0xc0);
    for (int i = 0; i < n; i++) {
      b.put((byte) 2).putShort((short) 0x5678).put((byte) (i % 64 | (i == n - 1 ? 0x80 : 0)));
    }
    return b.array();
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
    ByteBuffer b = ByteBuffer.allocate(attributes + 16 + 1).order(ByteOrder.LITTLE_ENDIAN);
    b.put((byte) 0).putLong(7).put((byte) 0).put((byte) 0x80).putShort((short) 0x1234);
    b.putFloat(1e-7f).putFloat(1e9f).putFloat(1e-7f).putInt(0).put((byte) 0x80);
    for (Format f : FORMATS) {
      assertNull(UcxWorkerAddress.workerProblem(b.array(), f), "a readable interface");
    }
    b.putFloat(attributes + offset, value);
    for (Format f : FORMATS) {
      assertEquals(problem, UcxWorkerAddress.workerProblem(b.array(), f), f.series());
    }
  }

  @Test
  void aNegativeBandwidthIsAnOldPeersAndReadable() {
    int attributes = 1 + 8 + 1 + 1 + 2;
    ByteBuffer b = ByteBuffer.allocate(attributes + 16 + 1).order(ByteOrder.LITTLE_ENDIAN);
    b.put((byte) 0).putLong(7).put((byte) 0).put((byte) 0x80).putShort((short) 0x1234);
    b.putFloat(1e-7f).putFloat(-1e9f).putFloat(1e-7f).putInt(0).put((byte) 0x80);
    for (Format f : FORMATS) {
      assertNull(UcxWorkerAddress.workerProblem(b.array(), f), f.series());
    }
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
    for (Format f : FORMATS) {
      assertNull(UcxWorkerAddress.workerProblem(a, f), "a readable interface");
    }
    a[attributes + field] = 0x1f;
    for (Format f : FORMATS) {
      assertEquals("an 8-bit float of NaN or infinity", UcxWorkerAddress.workerProblem(a, f));
    }
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
    for (Format f : FORMATS) {
      assertEquals("more than 128 devices", UcxWorkerAddress.workerProblem(a, f), f.series());
    }
  }

  /** One captured worker address: how it was packed, over which transports, which worker. */
  private record Captured(
      String release, String how, String transports, String worker, byte[] bytes) {
    String name() {
      return release + " " + how + " " + transports + " " + worker;
    }

    @Override
    public String toString() {
      return name();
    }
  }

  private static UcxSeries seriesOf(String release) {
    String[] v = release.split("[.~]");
    return UcxSeries.of(Integer.parseInt(v[0]), Integer.parseInt(v[1]));
  }

  private static Captured find(String release, String how, String transports, String worker)
      throws IOException {
    for (Captured c : captured(release)) {
      if (c.how.equals(how) && c.transports.equals(transports) && c.worker.equals(worker)) {
        return c;
      }
    }
    throw new AssertionError("no " + how + " " + transports + " " + worker + " of " + release);
  }

  /** The addresses in {@code worker-addresses/<release>.txt} ('~' as '-'), next to this class. */
  private static List<Captured> captured(String release) throws IOException {
    String name = "worker-addresses/" + release.replace('~', '-') + ".txt";
    List<Captured> out = new ArrayList<>();
    try (InputStream in = UcxWorkerAddressTest.class.getResourceAsStream(name)) {
      assertNotNull(in, name);
      BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII));
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        String[] f = line.trim().split(" +");
        out.add(new Captured(release, f[0], f[1], f[2], HEX.parseHex(f[3])));
      }
    }
    return out;
  }
}
