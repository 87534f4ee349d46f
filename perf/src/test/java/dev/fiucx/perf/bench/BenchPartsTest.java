package dev.fiucx.perf.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.AtomicFamily;
import dev.fiucx.DomainAttr;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pieces of bench that need no UCX: wire format, operands, checks, perftest's final line. */
class BenchPartsTest {
  private static final HexFormat HEX = HexFormat.of();

  @Test
  void bootstrapFramesRoundTripAndRefuseStrangers() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    BootstrapWire.Ready ready = new BootstrapWire.Ready(new byte[] {1, 2, 3}, -42L, 4096);
    BootstrapWire.write(out, BootstrapWire.Type.READY, ready.encode());
    BootstrapWire.write(out, BootstrapWire.Type.STOP);
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes.toByteArray()));
    BootstrapWire.Ready back =
        BootstrapWire.Ready.decode(BootstrapWire.expect(in, BootstrapWire.Type.READY));
    assertArrayEquals(new byte[] {1, 2, 3}, back.address());
    assertEquals(-42L, back.key());
    assertEquals(4096, back.length());
    assertEquals(BootstrapWire.Type.STOP, BootstrapWire.read(in).type());
    assertNull(BootstrapWire.read(in));

    byte[] frame = bytes.toByteArray().clone();
    frame[5] = 9; // version 9
    IOException e =
        assertThrows(
            IOException.class,
            () -> BootstrapWire.read(new DataInputStream(new ByteArrayInputStream(frame))));
    assertTrue(e.getMessage().contains("version 9"), e.getMessage());
    assertThrows(
        IOException.class,
        () ->
            BootstrapWire.read(
                new DataInputStream(new ByteArrayInputStream(new byte[] {'G', 'E', 'T', ' '}))));
  }

  @Test
  void operandsAreOneOfTheType() {
    assertEquals("01", HEX.formatHex(Operands.one(FiDatatype.INT8)));
    assertEquals("0100000000000000", HEX.formatHex(Operands.one(FiDatatype.UINT64)));
    assertEquals("0000803f", HEX.formatHex(Operands.one(FiDatatype.FLOAT)));
    assertEquals(
        "000000000000f03f0000000000000000", HEX.formatHex(Operands.one(FiDatatype.DOUBLE_COMPLEX)));
    // x87: significand 1 << 63, exponent 16383; six bytes of padding
    assertEquals(
        "0000000000000080ff3f000000000000", HEX.formatHex(Operands.one(FiDatatype.LONG_DOUBLE)));
    // 750.0L = 1.46484375 * 2^9
    assertEquals(
        "00000000000080bb0840000000000000",
        HEX.formatHex(Operands.of(FiDatatype.LONG_DOUBLE, 750)));
  }

  @Test
  void expectedTargetsWhereTheOpDeterminesThem() {
    assertEquals("2c", HEX.formatHex(Operands.expected(FiOp.SUM, FiDatatype.INT8, 300)));
    assertEquals("00", HEX.formatHex(Operands.expected(FiOp.MIN, FiDatatype.UINT8, 300)));
    assertEquals(
        "0000803f", HEX.formatHex(Operands.expected(FiOp.ATOMIC_WRITE, FiDatatype.FLOAT, 2)));
    assertEquals("01000000", HEX.formatHex(Operands.expected(FiOp.BXOR, FiDatatype.INT32, 3)));
    assertEquals("00000000", HEX.formatHex(Operands.expected(FiOp.PROD, FiDatatype.INT32, 3)));
    assertEquals(
        "0000804b", HEX.formatHex(Operands.expected(FiOp.SUM, FiDatatype.FLOAT, (1L << 24) + 1)));
  }

  @Test
  void targetCheckNamesTheWrongElement() {
    BenchConfig cfg =
        new BenchConfig(
            AtomicFamily.FETCH,
            FiOp.SUM,
            FiDatatype.UINT32,
            2,
            1,
            10,
            0,
            2,
            "shm",
            DomainAttr.Progress.AUTO,
            null,
            null,
            null,
            BenchConfig.Api.MIRROR);
    byte[] region = new byte[(int) cfg.regionBytes()];
    region[0] = 5;
    region[4] = 5;
    region[64] = 7;
    region[68] = 7;
    assertTrue(TargetCheck.of(cfg, region, new long[] {5, 7}).ok());
    region[68] = 6;
    TargetCheck wrong = TargetCheck.of(cfg, region, new long[] {5, 7});
    assertTrue(wrong.checked());
    assertFalse(wrong.ok());
    assertTrue(wrong.detail().startsWith("thread 1 element 1 holds 06000000"), wrong.detail());
  }

  @Test
  void perftestFinalLineGivesTheOverallColumns() throws Exception {
    // ucx_perftest 1.13.1's output for -t ucp_fadd -s 8 -O 64, as it printed it on this machine
    List<String> out =
        List.of(
            "+--------------+--------------+------------------------------+---------------------+-----------------------+",
            "|              |              |        latency (usec)        |   bandwidth (MB/s)  |  message rate (msg/s) |",
            "+--------------+--------------+----------+---------+---------+----------+----------+-----------+-----------+",
            "|    Stage     | # iterations | 50.0%ile | average | overall |  average |  overall |  average  |  overall  |",
            "+--------------+--------------+----------+---------+---------+----------+----------+-----------+-----------+",
            "[thread 0]           3176893      0.050     0.315     0.315      24.23      24.23     3176823     3176823",
            "Final:               5000000      0.050     0.041     0.198     187.09      38.51    24522902     5047421");
    PerftestResult r = PerftestResult.parse(out);
    assertEquals(5_000_000, r.iterations());
    assertEquals(0.050, r.p50Micros());
    assertEquals(0.041, r.averageLatencyMicros());
    assertEquals(0.198, r.overallLatencyMicros());
    assertEquals(24522902, r.averageRate());
    assertEquals(5047421, r.overallRate());
    assertThrows(IOException.class, () -> PerftestResult.parse(List.of("Waiting for connection")));
    // its final line in the Soft-RoCE VM (TCG): the last interval's average took no time
    PerftestResult emulated =
        PerftestResult.parse(
            List.of(
                "Final:                   500  19766.000       inf 31185.936        0.00       0.00"
                    + "           0          32"));
    assertEquals(19766.0, emulated.p50Micros());
    assertEquals(Double.POSITIVE_INFINITY, emulated.averageLatencyMicros());
    assertEquals(31185.936, emulated.overallLatencyMicros());
    assertEquals(32, emulated.overallRate());
    assertTrue(
        Double.isNaN(
            PerftestResult.parse(List.of("Final: 1 1.0 -nan 1.0 0.00 0.00 0 1"))
                .averageLatencyMicros()));
    assertThrows(
        IOException.class, () -> PerftestResult.parse(List.of("Final: 1 1.0 x 1 0 0 0 1")));
  }

  @Test
  void ratiosAreMedianOfRounds() {
    PerftestComparison.Spread s = PerftestComparison.Spread.of(new double[] {3, 1, 2, 10});
    assertEquals(1, s.min());
    assertEquals(2.5, s.median());
    assertEquals(10, s.max());
    assertEquals(2, PerftestComparison.Spread.of(new double[] {2, 9, 1}).median());
  }
}
