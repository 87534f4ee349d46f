package dev.fiucx.ucx;

import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import java.util.List;

/**
 * What fiucx knows of each UCX release series it runs on: the struct layouts it writes, the worker
 * address format its walker reads, the protocols it runs and the behaviours it routes around. The
 * provider reads all of it from here; nothing else in this package compares version numbers.
 *
 * <p>The gate is a floor and a ceiling of major version 1. From {@link #FLOOR} on, every 1.x runs:
 * UCP's API keeps its structs binary compatible within a major version (fields are only added at
 * their ends, behind {@code op_attr_mask}/{@code field_mask}, as {@code ucp.h} promises), which
 * {@code tools/ucx-layout} checks against the headers of every series fiucx is tested on. A series
 * fiucx's tests have run on is {@code proven}; any other 1.x runs with its own row's facts (the
 * nearest older row's) and says so in {@code info} and the bench header ({@link #verdict}), so a
 * user on, say, UCX 1.20 can run and knows what was and was not tested. Below the floor, and on
 * another major version, the layouts are not known and the provider is unavailable with the reason:
 * a wrong offset shows no error, only corrupted memory.
 *
 * @param minor the first minor version (of major 1) this row describes; it holds until the next row
 * @param proven the release fiucx's test suite ran on for this row (Debian's), or null
 * @param layout the struct offsets of this series' headers
 * @param addressFormat how this series packs a worker address, for the walk that checks one
 * @param protocolV1Only whether fiucx pins {@code UCX_PROTO_ENABLE=n}; from 1.16 on fiucx runs
 *     UCX's default protocols (v2), and from 1.22 on v1 has no RMA at all (put and get answer
 *     {@code UCS_ERR_UNSUPPORTED})
 * @param softwareAtomicsWithFailureHandling whether an endpoint with UCX's peer-failure handling
 *     has software atomics (every atomic over tcp is one): on protocols v2 it has none (their
 *     software atomic cannot be aborted, so UCX leaves it out; seen on 1.18.1 and 1.23.0~rc1,
 *     ucx_perftest's {@code -e} included), and data endpoints then go without, a control worker
 *     watching the peer
 * @param fetchingLogicWrongOnShm whether this series is known to compute fetching AND, OR and XOR
 *     wrongly on shared-memory lanes (Debian's 1.13.1: the target keeps {@code old OP old}); the
 *     self-test decides in any case, this says what to expect
 * @param udDgidCheckDropsRoce whether ud_verbs' destination-GID check drops every packet on RoCE
 *     devices other than ConnectX (UCX before 1.19 reads the packet's address family from a
 *     completion field only mlx5 hardware fills); {@link VerbsSetup} turns it off there
 */
record UcxSeries(
    int minor,
    String proven,
    UcxLayout layout,
    UcxWorkerAddress.Format addressFormat,
    boolean protocolV1Only,
    boolean softwareAtomicsWithFailureHandling,
    boolean fetchingLogicWrongOnShm,
    boolean udDgidCheckDropsRoce) {

  /** The oldest UCX fiucx runs on. */
  static final int FLOOR = 13;

  /**
   * One row per series whose facts differ from the row before, oldest first. Releases Debian ships
   * are proven here: 1.13.1 (bookworm), 1.18.1 (trixie), 1.23.0~rc1 (forky, sid).
   */
  static final List<UcxSeries> TABLE =
      List.of(
          // 1.13: v1 protocols are UCX's default; 6 lanes per endpoint
          new UcxSeries(
              13, "1.13.1", UcxLayout.V1_13, UcxWorkerAddress.Format.V1_13, true, true, true, true),
          // 1.14 raised UCP_MAX_LANES to 16; v1 stays UCX's default until 1.16
          new UcxSeries(
              14, null, UcxLayout.V1_13, UcxWorkerAddress.Format.V1_14, true, true, false, true),
          // 1.16 made protocol v2 UCX's default
          new UcxSeries(
              16, null, UcxLayout.V1_13, UcxWorkerAddress.Format.V1_14, false, false, false, true),
          new UcxSeries(
              18,
              "1.18.1",
              UcxLayout.V1_13,
              UcxWorkerAddress.Format.V1_18,
              false,
              false,
              false,
              true),
          // 1.19 reads 7 bits of a v1 address's md byte as the index, and a RoCE packet's address
          // family from its header
          new UcxSeries(
              19, null, UcxLayout.V1_13, UcxWorkerAddress.Format.V1_19, false, false, false, false),
          // 1.22 removed protocol v1 for RMA, and ucp_request_param_t grew to 96 bytes (remote_*)
          new UcxSeries(
              22, null, UcxLayout.V1_22, UcxWorkerAddress.Format.V1_19, false, false, false, false),
          new UcxSeries(
              23,
              "1.23.0",
              UcxLayout.V1_22,
              UcxWorkerAddress.Format.V1_19,
              false,
              false,
              false,
              false));

  /** The newest series fiucx's tests ran on. */
  static final int NEWEST_PROVEN = 23;

  /** The row for UCX {@code major.minor}, or null where fiucx does not run (see {@link #gate}). */
  static UcxSeries of(int major, int minor) {
    if (major != 1 || minor < FLOOR) {
      return null;
    }
    UcxSeries row = null;
    for (UcxSeries s : TABLE) {
      if (s.minor <= minor) {
        row = s;
      }
    }
    return row;
  }

  /** Whether this row's series, as {@code minor}, was proven by fiucx's tests. */
  boolean proves(int minor) {
    return proven != null && this.minor == minor;
  }

  /** Null when fiucx runs on UCX {@code major.minor.release}, else why not and what to do. */
  static String gate(int major, int minor, int release) {
    if (of(major, minor) != null) {
      return null;
    }
    return "UCX "
        + major
        + "."
        + minor
        + "."
        + release
        + " found; fiucx runs on UCX 1."
        + FLOOR
        + " and later 1.x (tested on 1.13.1, 1.18.1 and 1.23.0), whose struct layouts it knows:"
        + " install a UCX of 1."
        + FLOOR
        + " or later (Debian and Ubuntu: libucx0; Fedora: ucx; conda: ucx) or point"
        + " FIUCX_UCX_LIB at its libucp.so";
  }

  /** The row for the libucp loaded here; throws {@code FI_ENODEV} with the reason if none. */
  static UcxSeries loaded() {
    int[] v = UcpNative.version();
    UcxSeries s = of(v[0], v[1]);
    if (s == null) {
      throw new FiException(FiErrno.ENODEV, gate(v[0], v[1], v[2]));
    }
    if (!s.layout.writtenAlike()) { // a row added without the code to write its layout
      throw new FiException(
          FiErrno.ENODEV, "UCX 1." + v[1] + "'s struct layout is not the one fiucx writes");
    }
    return s;
  }

  /** The gate's answer for the libucp loaded here: null when fiucx runs on it, else why not. */
  static String checkLoaded() {
    int[] v = UcpNative.version();
    return gate(v[0], v[1], v[2]);
  }

  /**
   * What {@code info} and the bench header say of the UCX loaded here: series, and proven or not.
   */
  static String verdict() {
    int[] v = UcpNative.version();
    String found = v[0] + "." + v[1] + "." + v[2];
    UcxSeries s = of(v[0], v[1]);
    if (s == null) {
      return gate(v[0], v[1], v[2]);
    }
    if (s.proves(v[1])) {
      return "1." + v[1] + " series, proven (tested on " + s.proven + "; " + found + " here)";
    }
    String nearest =
        v[1] > NEWEST_PROVEN ? "newer than any tested series" : "between tested series";
    return "1."
        + v[1]
        + " series, not proven ("
        + found
        + " here, "
        + nearest
        + "; run with the facts of 1."
        + s.minor
        + "+ and layouts checked against the headers of 1.13.1, 1.18.1 and 1.23.0): run"
        + " ./fiucx conformance before relying on it";
  }
}
