package dev.fiucx.perf.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.fiucx.AtomicFamily;
import dev.fiucx.DomainAttr;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

class BenchOptionsTest {
  private static BenchCommand parsed(String... args) {
    BenchCommand cmd = new BenchCommand();
    new CommandLine(cmd).parseArgs(args);
    return cmd;
  }

  @ParameterizedTest
  @CsvSource({
    "sum, SUM",
    "FI_SUM, SUM",
    "Sum, SUM",
    "cswap_le, CSWAP_LE",
    "FI_CSWAP_LE, CSWAP_LE",
    "read, ATOMIC_READ",
    "write, ATOMIC_WRITE",
    "atomic_write, ATOMIC_WRITE",
    "FI_ATOMIC_READ, ATOMIC_READ",
    "mswap, MSWAP"
  })
  void opsTakeFabtestsAndLibfabricSpellings(String spelled, FiOp op) {
    assertEquals(op, parsed("-o", spelled).config().op());
    assertEquals(op, parsed("--op", spelled).config().op());
  }

  @ParameterizedTest
  @CsvSource({
    "uint64, UINT64",
    "FI_UINT64, UINT64",
    "int8, INT8",
    "double_complex, DOUBLE_COMPLEX",
    "FI_LONG_DOUBLE_COMPLEX, LONG_DOUBLE_COMPLEX",
    "float, FLOAT"
  })
  void datatypesTakeFabtestsAndLibfabricSpellings(String spelled, FiDatatype dt) {
    assertEquals(dt, parsed("-z", spelled).config().datatype());
    assertEquals(dt, parsed("--datatype", spelled).config().datatype());
  }

  @Test
  void defaultsAreFetchSumUint64OneCallInFlight() {
    BenchConfig cfg = parsed().config();
    assertEquals(AtomicFamily.FETCH, cfg.family());
    assertEquals(FiOp.SUM, cfg.op());
    assertEquals(FiDatatype.UINT64, cfg.datatype());
    assertEquals(1, cfg.count());
    assertEquals(1, cfg.window());
    assertEquals(1, cfg.threads());
    assertEquals("shm", cfg.transport());
    assertEquals(DomainAttr.Progress.AUTO, cfg.progress());
    assertNull(cfg.duration());
    // FI_THREAD_DOMAIN, as ucx_perftest's single-thread worker and fabtests' hints; the rest as
    // the provider's defaults
    assertEquals(DomainAttr.Threading.DOMAIN, cfg.threading());
    java.util.Map<String, String> expected =
        new java.util.HashMap<>(DomainAttr.defaults().options());
    expected.put(DomainAttr.THREADING_OPTION, "domain");
    assertEquals(expected, cfg.domainAttr().options(), "only threading set");
  }

  @Test
  void everyOptionLandsInTheConfig() {
    BenchConfig cfg =
        parsed(
                "--family",
                "base",
                "-o",
                "FI_BOR",
                "-z",
                "int32",
                "--count",
                "3",
                "-O",
                "8",
                "-n",
                "77",
                "-w",
                "5",
                "-T",
                "2",
                "--transport",
                "tcp",
                "--progress",
                "MANUAL",
                "--duration",
                "1.5s",
                "--direct-path",
                "off",
                "--threading",
                "domain")
            .config();
    assertEquals(AtomicFamily.BASE, cfg.family());
    assertEquals(FiOp.BOR, cfg.op());
    assertEquals(FiDatatype.INT32, cfg.datatype());
    assertEquals(3, cfg.count());
    assertEquals(8, cfg.window());
    assertEquals(77, cfg.iterations());
    assertEquals(5, cfg.warmup());
    assertEquals(2, cfg.threads());
    assertEquals("tcp", cfg.transport());
    assertEquals(DomainAttr.Progress.MANUAL, cfg.progress());
    assertEquals(Duration.ofMillis(1500), cfg.duration());
    // the engine reads it; a provider that does not know it ignores it
    assertEquals("off", cfg.domainAttr().options().get("direct_path"));
    assertEquals(DomainAttr.Threading.DOMAIN, cfg.domainAttr().threading());
    assertEquals(64, cfg.threadStride());
    assertEquals(128, cfg.regionBytes());
  }

  @Test
  void aCompareOpPicksTheCompareFamily() {
    assertEquals(AtomicFamily.COMPARE, parsed("-o", "cswap").config().family());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "--frobnicate",
        "-o plus",
        "-z int128",
        "--family base -o cswap",
        "--family compare -o sum",
        "-O 0",
        "--count 0",
        "-n -1",
        "-T 0",
        "-w -5",
        "--progress fast",
        "--direct-path maybe",
        "--threading fid",
        "--duration soon",
        "--connect nohost",
        "--connect host:99999",
        "--server-progress fast",
        "--connect 127.0.0.1:13340 --server-progress auto",
        "--port 5",
        "--metrics-port 70000",
        "--metrics-port -1",
        "--metrics-linger 2s",
        "--metrics-port 0 --metrics-linger later",
        "--vs-ucx-perftest -o min -z int64",
        "--vs-ucx-perftest -z double",
        "--vs-ucx-perftest -T 2",
        "--vs-ucx-perftest --rounds 2",
        "--vs-ucx-perftest --sweep-window -O 4",
        "--vs-ucx-perftest --connect 192.0.2.1:13340 --region c",
        "--vs-ucx-perftest -o min -z int64 --perftest-test ucp_get",
        "--perftest-test ucp_fadd",
        "-n"
      })
  void aBadRequestIsOneLineAndExitStatus2(String args) {
    BenchCli.Run r = BenchCli.run(("bench " + args).split(" "));
    assertEquals(2, r.exit(), r.err());
    assertEquals("", r.out());
    assertEquals(1, r.err().lines().filter(l -> l.startsWith("fiucx bench: ")).count(), r.err());
    assertEquals(1, r.err().lines().count(), r.err());
  }

  @Test
  void durationsHaveUnits() {
    DurationConverter c = new DurationConverter();
    assertEquals(Duration.ofSeconds(10), c.convert("10s"));
    assertEquals(Duration.ofSeconds(10), c.convert("10"));
    assertEquals(Duration.ofMillis(500), c.convert("500ms"));
    assertEquals(Duration.ofMinutes(2), c.convert("2m"));
  }

  @Test
  void ucxPerftestIsLookedForOnThePath() {
    assertNull(PerftestRunner.find("/nonexistent-dir"));
  }

  @Test
  void anyCellCanBePutBesideAPerftestTestByName() {
    assertEquals(
        new PerftestMatch("ucp_fadd", 8), PerftestMatch.named("ucp_fadd", FiDatatype.INT8));
    assertEquals(
        new PerftestMatch("ucp_fadd", 4), PerftestMatch.named("ucp_fadd", FiDatatype.FLOAT));
    assertEquals(
        new PerftestMatch("ucp_cswap", 8),
        PerftestMatch.named("ucp_cswap", FiDatatype.LONG_DOUBLE_COMPLEX));
    assertNull(PerftestMatch.named("ucp_get", FiDatatype.UINT64));
  }

  @Test
  void onlyFourCellKindsHaveAPerftestCounterpart() {
    assertEquals(
        new PerftestMatch("ucp_fadd", 8),
        PerftestMatch.of(AtomicFamily.FETCH, FiOp.SUM, FiDatatype.UINT64));
    assertEquals(
        new PerftestMatch("ucp_add", 4),
        PerftestMatch.of(AtomicFamily.BASE, FiOp.SUM, FiDatatype.INT32));
    assertEquals(
        new PerftestMatch("ucp_swap", 8),
        PerftestMatch.of(AtomicFamily.FETCH, FiOp.ATOMIC_WRITE, FiDatatype.INT64));
    assertEquals(
        new PerftestMatch("ucp_cswap", 4),
        PerftestMatch.of(AtomicFamily.COMPARE, FiOp.CSWAP, FiDatatype.UINT32));
    assertNull(PerftestMatch.of(AtomicFamily.FETCH, FiOp.SUM, FiDatatype.INT16));
    assertNull(PerftestMatch.of(AtomicFamily.FETCH, FiOp.SUM, FiDatatype.DOUBLE));
    assertNull(PerftestMatch.of(AtomicFamily.FETCH, FiOp.MIN, FiDatatype.UINT64));
    assertNull(PerftestMatch.of(AtomicFamily.BASE, FiOp.ATOMIC_WRITE, FiDatatype.UINT64));
  }
}
