package dev.fiucx.perf.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import dev.fiucx.semantics.AtomicTable;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/**
 * ucx_perftest's spellings ({@code -T}, {@code -c}, {@code -R}), elements per call as {@code
 * --count}, the hints for the old and the foreign spellings, and what selects a matrix: parsing
 * only, nothing runs.
 */
class BenchFlagsTest {
  private static BenchCommand parsed(String... args) {
    BenchCommand cmd = new BenchCommand();
    new CommandLine(cmd).parseArgs(args);
    return cmd;
  }

  /** A bench invocation that must end at once: exit 2, nothing on stdout, this one line. */
  private static void refusedWith(String line, String... args) {
    String[] all = new String[args.length + 1];
    all[0] = "bench";
    System.arraycopy(args, 0, all, 1, args.length);
    BenchCli.Run r = BenchCli.run(all);
    assertEquals(2, r.exit(), r.err());
    assertEquals("", r.out());
    assertEquals("fiucx bench: " + line + "\n", r.err());
  }

  @Test
  void threadsAreCapitalTAsInUcxPerftest() {
    assertEquals(3, parsed("-T", "3").config().threads());
    assertEquals(3, parsed("--threads", "3").config().threads());
  }

  @Test
  void elementsPerCallAreTheLongCountOnly() {
    assertEquals(5, parsed("--count", "5").config().count());
    // -c is the CPU list now; -e would be fabtests' endpoint type
    assertEquals("0", parsed("-c", "0").run.cpus);
    assertThrows(CommandLine.UnmatchedArgumentException.class, () -> parsed("-e", "5"));
  }

  @Test
  void theOldThreadsFlagIsUcxPerftestsTestAndSaysSo() {
    refusedWith("-t is ucx_perftest's test; threads are -T", "-t", "2");
    refusedWith("-t is ucx_perftest's test; threads are -T", "-t", "ucp_fadd", "-n", "10");
  }

  @Test
  void anOldCountThatIsNoCpuHereNamesTheNewFlag() {
    CpuSet online = CpuSet.online();
    int notACpu = online.highest() + 1;
    assertTrue(notACpu <= AtomicTable.MAX_ATOMIC_BYTES, "a machine of fewer than 4096 CPUs");
    refusedWith(
        "-c is ucx_perftest's CPU list (this machine's CPUs: "
            + online
            + "); elements per call are --count",
        "-c",
        Integer.toString(notACpu));
  }

  @Test
  void aCpuListWithACpuThatIsNotHereIsRefusedAsSuch() {
    CpuSet online = CpuSet.online();
    int notACpu = online.highest() + 1;
    refusedWith(
        "-c 0,"
            + notACpu
            + ": CPU "
            + notACpu
            + " is not online here (this machine's CPUs: "
            + online
            + ")",
        "-c",
        "0," + notACpu);
    refusedWith(
        "-c takes a CPU list such as 0,2-3: 'two' is not a CPU list such as 0,2-3", "-c", "two");
    refusedWith(
        "-c takes a CPU list such as 0,2-3: '3-1' is a range from high to low", "-c", "3-1");
  }

  @Test
  void ucxPerftestsMessageSizeIsLeftOutWithTheReason() {
    refusedWith(
        "-s is ucx_perftest's message size: an element's size here is its datatype's (-z), and a"
            + " call's elements are --count",
        "-s",
        "8");
  }

  @Test
  void ucxPerftestsClientIsPinnedAsTheMeasuringThreadsAre() {
    PerftestRunner runner =
        new PerftestRunner(Path.of("ucx_perftest"), "sm,self", java.util.Map.of(), System.err);
    PerftestMatch fadd = new PerftestMatch("ucp_fadd", 8);
    List<String> plain = runner.clientCommand(fadd, 1234, 100, 10, 1);
    assertEquals(-1, plain.indexOf("-c"));
    List<String> pinned =
        runner.pinClientTo(CpuSet.parse("0,2-3")).clientCommand(fadd, 1234, 100, 10, 1);
    assertEquals(plain, pinned.subList(0, plain.size()));
    assertEquals(List.of("-c", "0,2,3"), pinned.subList(plain.size(), pinned.size()));
  }

  @Test
  void ucxPerftestsClientGoesToTheTargetsHostWhenItsServerRunsThere() {
    PerftestRunner runner =
        new PerftestRunner(Path.of("ucx_perftest"), "tcp", java.util.Map.of(), System.err);
    PerftestMatch fadd = new PerftestMatch("ucp_fadd", 8);
    assertEquals(
        List.of(
            "ucx_perftest",
            "10.0.0.7",
            "-p",
            "1234",
            "-t",
            "ucp_fadd",
            "-s",
            "8",
            "-n",
            "100",
            "-w",
            "10",
            "-O",
            "1"),
        runner.clientCommand("10.0.0.7", fadd, 1234, 100, 10, 1));
    assertEquals("127.0.0.1", runner.clientCommand(fadd, 1234, 100, 10, 1).get(1));
  }

  @Test
  void ucxPerftestsServerSideIsBenchServersAndAServeRunsNone() {
    refusedWith("--perftest-server is --server's", "--perftest-server");
    if (PerftestRunner.find() != null) {
      refusedWith(
          "--vs-ucx-perftest against a fiucx serve (--region) runs ucx_perftest on this host:"
              + " --connect only to a loopback address (a bench --server --perftest-server runs"
              + " its server side on another host)",
          "--connect",
          "192.0.2.1:13340",
          "--region",
          "r",
          "--vs-ucx-perftest");
    }
  }

  @Test
  void cpuListsAreTheKernelsFormat() {
    assertEquals(List.of(0, 2, 3), CpuSet.parse("0,2-3").cpus());
    assertEquals(List.of(0, 2, 3), CpuSet.parse(" 3, 2 ,0 ,2-3").cpus());
    assertEquals("0,2-3", CpuSet.parse("3,0,2").toString());
    assertEquals("0-3,7", CpuSet.parse("0,1,2,3,7").toString());
    assertEquals("5", CpuSet.parse("5").toString());
    assertThrows(IllegalArgumentException.class, () -> CpuSet.parse(""));
    assertThrows(IllegalArgumentException.class, () -> CpuSet.parse("1,,2"));
    assertThrows(IllegalArgumentException.class, () -> CpuSet.parse("-1"));
    assertThrows(IllegalArgumentException.class, () -> CpuSet.parse("99999999"));
  }

  @Test
  void cpuZeroIsPinnableAndReadBackExactly() {
    CpuSet zero = parsed("-c", "0").run.cpuSet();
    assertEquals(List.of(0), zero.cpus());
    String[] allowed = new String[1];
    Thread t = Thread.ofPlatform().start(() -> allowed[0] = Pinning.pinAndCheck(CpuSet.parse("0")));
    assertTrue(join(t));
    assertEquals("0", allowed[0]);
    assertNull(parsed().run.cpuSet(), "no -c, no pinning");
  }

  private static boolean join(Thread t) {
    try {
      t.join();
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "50,99,99.99|50,99,99.99|p50,p99,p99.99|p50,p99,p99_99",
        "99.9, 50 ,50|50,99.9|p50,p99.9|p50,p99_9",
        "100|100|p100|p100",
        "0.5|0.5|p0.5|p0_5"
      })
  void percentilesAreAnAscendingListOfRanks(String asked, String ranks, String heads, String keys) {
    Percentiles p = parsed("-R", asked).report.ranks();
    assertEquals(ranks, p.text());
    assertEquals(p, parsed("--percentiles", asked).report.ranks());
    for (int i = 0; i < p.size(); i++) {
      assertEquals(heads.split(",")[i], p.head(i));
      assertEquals(keys.split(",")[i], p.key(i));
    }
    assertNull(parsed().report.ranks(), "without -R: the defaults");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "0|-R/--percentiles: a rank is above 0 and at most 100, not 0",
        "100.5|-R/--percentiles: a rank is above 0 and at most 100, not 100.5",
        "50,,99|-R/--percentiles takes ranks such as 50,99,99.99, not '50,,99'",
        "median|-R/--percentiles takes ranks such as 50,99,99.99, not 'median'"
      })
  void badPercentilesAreOneLine(String asked, String line) {
    refusedWith(line, "-R", asked);
  }

  @Test
  void csvColumnsFollowThePercentiles() {
    List<String> c = CsvLine.columns(Percentiles.parse("50,99.99"));
    assertEquals(
        List.of("latency_kind", "p50_ns", "p99_99_ns", "max_ns"),
        c.subList(c.indexOf("latency_kind"), c.indexOf("max_ns") + 1));
    List<String> d = CsvLine.COLUMNS;
    assertEquals(
        List.of("latency_kind", "p50_ns", "p90_ns", "p99_ns", "p99_9_ns", "max_ns"),
        d.subList(d.indexOf("latency_kind"), d.indexOf("max_ns") + 1));
  }

  /** The table of one cell reads exactly as before -R existed, unless -R is given. */
  @Test
  void oneCellsTableHeadIsUnchangedByDefault() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    new ResultTable(Percentiles.DEFAULT).header(out, "round trip");
    String rule =
        "+---------+--------+--------------+------------------------------------------------------------------------------+---------------------------+";
    assertEquals(
        List.of(
            rule,
            "|         |        |              |                          latency (usec), round trip"
                + "                          |     rate (per second)     |",
            "| stage   | window |      # calls |        p50        p90        p99      p99.9       "
                + " max    average    overall |        calls     elements |",
            rule),
        bytes.toString(StandardCharsets.UTF_8).lines().toList());
    bytes.reset();
    new ResultTable(Percentiles.parse("50,99.99")).header(out, "per op");
    assertTrue(
        bytes
            .toString(StandardCharsets.UTF_8)
            .contains("|        p50     p99.99        max    average    overall |"),
        bytes.toString(StandardCharsets.UTF_8));
  }

  @Test
  void listsAndAllSelectCellsInTheTablesOrder() {
    List<CellSelection.Cell> cells = CellSelection.parse(null, "sum,min", "double,int8").cells();
    assertEquals(
        List.of(
            new CellSelection.Cell(AtomicFamily.FETCH, FiOp.MIN, FiDatatype.INT8),
            new CellSelection.Cell(AtomicFamily.FETCH, FiOp.MIN, FiDatatype.DOUBLE),
            new CellSelection.Cell(AtomicFamily.FETCH, FiOp.SUM, FiDatatype.INT8),
            new CellSelection.Cell(AtomicFamily.FETCH, FiOp.SUM, FiDatatype.DOUBLE)),
        cells);
    // without --family each op takes its own: compare for the compare ops, fetch for the rest
    assertEquals(19 * 14, CellSelection.parse(null, "all", "all").cells().size());
    List<CellSelection.Cell> all = CellSelection.parse("all", "ALL", "all").cells();
    assertEquals(AtomicTable.reference().cells().size(), all.size());
    for (int i = 0; i < all.size(); i++) {
      var c = AtomicTable.reference().cells().get(i);
      assertEquals(new CellSelection.Cell(c.family(), c.op(), c.datatype()), all.get(i));
    }
    assertEquals(
        354,
        all.stream()
            .filter(c -> AtomicTable.reference().cell(c.family(), c.op(), c.datatype()).valid())
            .count());
    assertEquals(
        List.of(
            new CellSelection.Cell(AtomicFamily.BASE, FiOp.SUM, FiDatatype.UINT64),
            new CellSelection.Cell(AtomicFamily.COMPARE, FiOp.SUM, FiDatatype.UINT64)),
        CellSelection.parse("compare,base", "FI_SUM", "uint64").cells());
  }

  @Test
  void unknownNamesInAListAreOneLine() {
    refusedWith(
        "unknown op 'plus' (e.g. sum, cswap_le, read, write, FI_SUM)", "-o", "sum,plus", "-n", "1");
    refusedWith(
        "unknown datatype 'int128' (e.g. int8, uint64, double_complex, FI_UINT64)",
        "-z",
        "int8,int128");
    refusedWith(
        "unknown family 'atomic' (base, fetch, compare, a list of them or all)",
        "--family",
        "base,atomic");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "-o all --plot x.png|--plot",
        "-z int8,int16 --hgrm x.hgrm|--hgrm",
        "--family all --sweep-window -O 4|--sweep-window",
        "-o sum,min --vs-ucx-perftest|--vs-ucx-perftest",
        "-z uint32,uint64 --fetched f.txt|--fetched"
      })
  void optionsAboutOneCellAreRefusedForAMatrix(String args, String option) {
    int cells = parsed(args.split(" ")).run.selection().cells().size();
    String[] words = args.split(" ");
    refusedWith(
        option + " is about one cell; this selection has " + cells + " (one -o, -z and --family)",
        words);
  }

  @Test
  void oneCellStillChecksItsFamilyAndAMatrixListsTheMismatch() {
    refusedWith(
        "FI_CSWAP is no base op (base atomics take MIN .. ATOMIC_WRITE)",
        "--family",
        "base",
        "-o",
        "cswap");
    // with a second family the mismatched cell is one of the matrix's, listed as invalid
    assertEquals(
        2, parsed("--family", "base,compare", "-o", "cswap").run.selection().cells().size());
    refusedWith(
        "--api typed is blocking: one call in flight (-O 1)",
        "--api",
        "typed",
        "-o",
        "sum,read",
        "-O",
        "2");
  }
}
