package dev.fiucx.ucx;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Every UCX fact fiucx hard-codes (the struct offsets of {@link UcxLayout}, the values of {@link
 * UcxConstants}) against the installed UCX headers, as {@code tools/ucx-layout} prints them:
 * libfabric's callers see no error from a wrong offset or flag, only corrupted memory or another
 * operation. Skipped where {@code cc} or the UCX headers ({@code libucx-dev}) are missing.
 */
@RequiresUcx
class UcxLayoutProbeTest {
  /** run.sh's exit status when cc or the UCX headers are missing. */
  private static final int MISSING = 2;

  /**
   * Every header constant fiucx passes, by its C name. The worker address constants are not here:
   * UCX defines them in its sources, not in an installed header.
   */
  private static final Map<String, Long> HEADER_CONSTANTS = new LinkedHashMap<>();

  static {
    constant("UCP_ATOMIC_OP_ADD", UcxConstants.UCP_ATOMIC_OP_ADD);
    constant("UCP_ATOMIC_OP_SWAP", UcxConstants.UCP_ATOMIC_OP_SWAP);
    constant("UCP_ATOMIC_OP_CSWAP", UcxConstants.UCP_ATOMIC_OP_CSWAP);
    constant("UCP_ATOMIC_OP_AND", UcxConstants.UCP_ATOMIC_OP_AND);
    constant("UCP_ATOMIC_OP_OR", UcxConstants.UCP_ATOMIC_OP_OR);
    constant("UCP_ATOMIC_OP_XOR", UcxConstants.UCP_ATOMIC_OP_XOR);
    constant("UCP_OP_ATTR_FIELD_REQUEST", UcxConstants.UCP_OP_ATTR_FIELD_REQUEST);
    constant("UCP_OP_ATTR_FIELD_CALLBACK", UcxConstants.UCP_OP_ATTR_FIELD_CALLBACK);
    constant("UCP_OP_ATTR_FIELD_USER_DATA", UcxConstants.UCP_OP_ATTR_FIELD_USER_DATA);
    constant("UCP_OP_ATTR_FIELD_DATATYPE", UcxConstants.UCP_OP_ATTR_FIELD_DATATYPE);
    constant("UCP_OP_ATTR_FIELD_FLAGS", UcxConstants.UCP_OP_ATTR_FIELD_FLAGS);
    constant("UCP_OP_ATTR_FIELD_REPLY_BUFFER", UcxConstants.UCP_OP_ATTR_FIELD_REPLY_BUFFER);
    constant("UCP_OP_ATTR_FLAG_NO_IMM_CMPL", UcxConstants.UCP_OP_ATTR_FLAG_NO_IMM_CMPL);
    constant("ucp_dt_make_contig(4)", UcxConstants.ucpDtMakeContig(4));
    constant("ucp_dt_make_contig(8)", UcxConstants.ucpDtMakeContig(8));
    constant("UCP_EP_CLOSE_FLAG_FORCE", UcxConstants.UCP_EP_CLOSE_FLAG_FORCE);
    constant("UCP_AM_SEND_FLAG_REPLY", UcxConstants.UCP_AM_SEND_FLAG_REPLY);
    constant("UCP_AM_SEND_FLAG_EAGER", UcxConstants.UCP_AM_SEND_FLAG_EAGER);
    constant("UCP_AM_FLAG_WHOLE_MSG", UcxConstants.UCP_AM_FLAG_WHOLE_MSG);
    constant("UCP_MEM_MAP_PROT_LOCAL_READ", UcxConstants.UCP_MEM_MAP_PROT_LOCAL_READ);
    constant("UCP_MEM_MAP_PROT_LOCAL_WRITE", UcxConstants.UCP_MEM_MAP_PROT_LOCAL_WRITE);
    constant("UCP_MEM_MAP_PROT_REMOTE_READ", UcxConstants.UCP_MEM_MAP_PROT_REMOTE_READ);
    constant("UCP_MEM_MAP_PROT_REMOTE_WRITE", UcxConstants.UCP_MEM_MAP_PROT_REMOTE_WRITE);
    constant("UCP_ATTR_FIELD_REQUEST_SIZE", UcxLayout.UCP_ATTR_FIELD_REQUEST_SIZE);
    constant("UCS_OK", UcxConstants.UCS_OK);
    constant("UCS_INPROGRESS", UcxConstants.UCS_INPROGRESS);
    constant("UCS_ERR_NO_MESSAGE", UcxConstants.UCS_ERR_NO_MESSAGE);
    constant("UCS_ERR_NO_RESOURCE", UcxConstants.UCS_ERR_NO_RESOURCE);
    constant("UCS_ERR_IO_ERROR", UcxConstants.UCS_ERR_IO_ERROR);
    constant("UCS_ERR_NO_MEMORY", UcxConstants.UCS_ERR_NO_MEMORY);
    constant("UCS_ERR_INVALID_PARAM", UcxConstants.UCS_ERR_INVALID_PARAM);
    constant("UCS_ERR_UNREACHABLE", UcxConstants.UCS_ERR_UNREACHABLE);
    constant("UCS_ERR_INVALID_ADDR", UcxConstants.UCS_ERR_INVALID_ADDR);
    constant("UCS_ERR_NOT_IMPLEMENTED", UcxConstants.UCS_ERR_NOT_IMPLEMENTED);
    constant("UCS_ERR_MESSAGE_TRUNCATED", UcxConstants.UCS_ERR_MESSAGE_TRUNCATED);
    constant("UCS_ERR_NO_PROGRESS", UcxConstants.UCS_ERR_NO_PROGRESS);
    constant("UCS_ERR_BUFFER_TOO_SMALL", UcxConstants.UCS_ERR_BUFFER_TOO_SMALL);
    constant("UCS_ERR_NO_ELEM", UcxConstants.UCS_ERR_NO_ELEM);
    constant("UCS_ERR_SOME_CONNECTS_FAILED", UcxConstants.UCS_ERR_SOME_CONNECTS_FAILED);
    constant("UCS_ERR_NO_DEVICE", UcxConstants.UCS_ERR_NO_DEVICE);
    constant("UCS_ERR_BUSY", UcxConstants.UCS_ERR_BUSY);
    constant("UCS_ERR_CANCELED", UcxConstants.UCS_ERR_CANCELED);
    constant("UCS_ERR_SHMEM_SEGMENT", UcxConstants.UCS_ERR_SHMEM_SEGMENT);
    constant("UCS_ERR_ALREADY_EXISTS", UcxConstants.UCS_ERR_ALREADY_EXISTS);
    constant("UCS_ERR_OUT_OF_RANGE", UcxConstants.UCS_ERR_OUT_OF_RANGE);
    constant("UCS_ERR_TIMED_OUT", UcxConstants.UCS_ERR_TIMED_OUT);
    constant("UCS_ERR_EXCEEDS_LIMIT", UcxConstants.UCS_ERR_EXCEEDS_LIMIT);
    constant("UCS_ERR_UNSUPPORTED", UcxConstants.UCS_ERR_UNSUPPORTED);
    constant("UCS_ERR_REJECTED", UcxConstants.UCS_ERR_REJECTED);
    constant("UCS_ERR_NOT_CONNECTED", UcxConstants.UCS_ERR_NOT_CONNECTED);
    constant("UCS_ERR_CONNECTION_RESET", UcxConstants.UCS_ERR_CONNECTION_RESET);
    constant("UCS_ERR_FIRST_LINK_FAILURE", UcxConstants.UCS_ERR_FIRST_LINK_FAILURE);
    constant("UCS_ERR_LAST_LINK_FAILURE", UcxConstants.UCS_ERR_LAST_LINK_FAILURE);
    constant("UCS_ERR_FIRST_ENDPOINT_FAILURE", UcxConstants.UCS_ERR_FIRST_ENDPOINT_FAILURE);
    constant("UCS_ERR_ENDPOINT_TIMEOUT", UcxConstants.UCS_ERR_ENDPOINT_TIMEOUT);
    constant("UCS_ERR_LAST_ENDPOINT_FAILURE", UcxConstants.UCS_ERR_LAST_ENDPOINT_FAILURE);
    constant("UCS_ERR_LAST", UcxConstants.UCS_ERR_LAST);
    constant("UCS_CONFIG_PRINT_CONFIG", UcxConstants.UCS_CONFIG_PRINT_CONFIG);
    constant("UCS_LOG_LEVEL_FATAL", UcxLayout.LOG_LEVEL_FATAL);
    constant("UCS_LOG_LEVEL_ERROR", UcxLayout.LOG_LEVEL_ERROR);
    constant("UCS_LOG_LEVEL_WARN", UcxLayout.LOG_LEVEL_WARN);
  }

  /**
   * The width fiucx reads or writes each field (and C return value) with, in UcxTransport,
   * AtomicPoster and UcpNative: a right offset with a wider access overwrites the next field.
   */
  private static final Map<String, Long> ACCESS_WIDTHS =
      Map.ofEntries(
          Map.entry("width(ucp_request_param_t.op_attr_mask)", JAVA_INT.byteSize()),
          Map.entry("width(ucp_request_param_t.flags)", JAVA_INT.byteSize()),
          Map.entry("width(ucp_request_param_t.request)", ADDRESS.byteSize()),
          Map.entry("width(ucp_request_param_t.cb)", ADDRESS.byteSize()),
          Map.entry("width(ucp_request_param_t.datatype)", JAVA_LONG.byteSize()),
          Map.entry("width(ucp_request_param_t.user_data)", ADDRESS.byteSize()),
          Map.entry("width(ucp_request_param_t.reply_buffer)", ADDRESS.byteSize()),
          Map.entry("width(ucp_context_attr_t.field_mask)", JAVA_LONG.byteSize()),
          Map.entry("width(ucp_context_attr_t.request_size)", JAVA_LONG.byteSize()),
          Map.entry("width(ucs_global_opts_t.log_component.log_level)", JAVA_INT.byteSize()),
          // UCS_S_PACKED: the downcalls return and pass it as JAVA_BYTE
          Map.entry("sizeof(ucs_status_t)", JAVA_BYTE.byteSize()),
          Map.entry("sizeof(ucs_status_ptr_t)", ADDRESS.byteSize()));

  /** The probe's output, or why it could not run; null until a test first asks. */
  private static Probe probe;

  private record Probe(Map<String, Long> facts, String missing) {}

  private static void constant(String cName, long value) {
    HEADER_CONSTANTS.put(cName, value);
  }

  /**
   * The probe's facts, run once. Without cc or the UCX headers each test is skipped, naming what is
   * missing: an assumption failing in a {@code BeforeAll} would hide the skips from surefire's
   * counts.
   */
  private static Map<String, Long> facts() throws Exception {
    if (probe == null) {
      probe = runProbe();
    }
    Assumptions.assumeTrue(probe.missing() == null, probe.missing());
    return probe.facts();
  }

  private static Probe runProbe() throws IOException, InterruptedException {
    // surefire runs in the module directory and names it in basedir
    Path run =
        Path.of(System.getProperty("basedir", ""))
            .toAbsolutePath()
            .resolve("../tools/ucx-layout/run.sh")
            .normalize();
    assertTrue(Files.isRegularFile(run), "the probe's script is in the checkout: " + run);
    Path out = Files.createTempFile("ucx-layout", ".out");
    Path err = Files.createTempFile("ucx-layout", ".err");
    try {
      Process p =
          new ProcessBuilder("sh", run.toString())
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .start();
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        fail("the probe did not end within 120 s: " + run);
      }
      String stderr = Files.readString(err, StandardCharsets.UTF_8).strip();
      if (p.exitValue() == MISSING) {
        return new Probe(Map.of(), stderr);
      }
      assertEquals(0, p.exitValue(), "the probe failed: " + stderr);
      return new Probe(parse(Files.readString(out, StandardCharsets.UTF_8)), null);
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  /** {@code NAME VALUE} lines; {@code #} lines are the probe's remarks. */
  private static Map<String, Long> parse(String output) {
    Map<String, Long> facts = new LinkedHashMap<>();
    for (String line : output.lines().toList()) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int space = line.lastIndexOf(' ');
      assertTrue(space > 0, "a probe line is NAME VALUE: " + line);
      Long was = facts.put(line.substring(0, space), Long.parseLong(line.substring(space + 1)));
      assertNull(was, "the probe printed one line per name: " + line);
    }
    return facts;
  }

  private static long probed(String name) throws Exception {
    Long value = facts().get(name);
    assertNotNull(value, "the probe printed no " + name + " (see tools/ucx-layout/ucx-layout.c)");
    return value;
  }

  private static String headers() throws Exception {
    return "UCX " + probed("UCP_API_MAJOR") + "." + probed("UCP_API_MINOR") + "'s headers";
  }

  @Test
  void theHeadersAreThoseOfTheLoadedLibucp() throws Exception {
    int[] v = UcpNative.version();
    String loaded = v[0] + "." + v[1] + "." + v[2];
    assertEquals(v[0], probed("UCP_API_MAJOR"), headers() + ", libucp " + loaded + " loaded");
    assertEquals(v[1], probed("UCP_API_MINOR"), headers() + ", libucp " + loaded + " loaded");
  }

  @Test
  void everyOffsetAndSizeOfTheLoadedSeriesIsTheHeaders() throws Exception {
    UcxSeries series = UcxSeries.loaded();
    assertHeadersSay(
        series.layout().fields(), "UcxLayout of the 1." + series.minor() + " row says");
  }

  @Test
  void ucpContextAttrFitsTheBytesAllocatedForIt() throws Exception {
    long size = probed("sizeof(ucp_context_attr_t)");
    assertTrue(
        size <= UcxLayout.CONTEXT_ATTR_ALLOCATED,
        "sizeof(ucp_context_attr_t) is "
            + size
            + " in "
            + headers()
            + ", UcxLayout.CONTEXT_ATTR_ALLOCATED "
            + UcxLayout.CONTEXT_ATTR_ALLOCATED);
  }

  @Test
  void everyFieldIsAccessedWithItsOwnWidth() throws Exception {
    assertHeadersSay(ACCESS_WIDTHS, "fiucx accesses it with");
  }

  @Test
  void everyHeaderConstantIsTheHeaders() throws Exception {
    assertHeadersSay(HEADER_CONSTANTS, "fiucx passes");
  }

  /** Each of fiucx's values equals the probe's of that name; every difference is reported. */
  private static void assertHeadersSay(Map<String, Long> fiucx, String fiucxSays) throws Exception {
    String headers = headers();
    assertAll(
        fiucx.entrySet().stream()
            .<Executable>map(
                e ->
                    () -> {
                      long header = probed(e.getKey());
                      assertEquals(
                          header,
                          e.getValue(),
                          e.getKey()
                              + ": "
                              + headers
                              + " say "
                              + header
                              + ", "
                              + fiucxSays
                              + " "
                              + e.getValue());
                    }));
  }
}
